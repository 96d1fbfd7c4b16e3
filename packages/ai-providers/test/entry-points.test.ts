import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import * as main from "../src/index.js";
import * as recording from "../src/recording/index.js";

const RECORDING_NAMES = [
  "CASSETTE_VERSION",
  "CassetteError",
  "createRecordingProvider",
  "createReplayProvider",
  "normalizeRequest",
  "readCassette",
  "requestKey",
];

describe("entry points", () => {
  it("record and replay live in ./recording only, so the main entry reaches no file system", () => {
    expect(Object.keys(recording).sort()).toEqual(RECORDING_NAMES);
    expect(RECORDING_NAMES.filter((name) => name in main)).toEqual([]);
  });

  it("the main entry's VERSION is its package.json's", async () => {
    const manifest = JSON.parse(await readFile(new URL("../package.json", import.meta.url), "utf8")) as {
      version: string;
    };
    expect(main.VERSION).toBe(manifest.version);
  });
});
