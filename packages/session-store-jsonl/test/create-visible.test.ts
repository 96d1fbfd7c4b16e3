import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { header, openStore, temporaryHome, userEntry } from "./helpers.js";

/** Where the session files of `home` stood each time the store wrote bytes. */
const seenWhileWriting: string[][] = [];
let sessionsDirectory: string | undefined;

vi.mock("../src/durability.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../src/durability.js")>();
  return {
    ...original,
    writeAll: (fd: number, bytes: Buffer) => {
      if (sessionsDirectory !== undefined && existsSync(sessionsDirectory)) {
        seenWhileWriting.push(
          readdirSync(sessionsDirectory, { recursive: true, encoding: "utf8" }).filter((name) =>
            name.endsWith(".jsonl"),
          ),
        );
      }
      return original.writeAll(fd, bytes);
    },
  };
});

describe("creating a session", () => {
  // Another process that lists the sessions while one is created must never find its file empty
  // ("corrupt: the file is empty"): the name appears with the header already in it.
  it("makes the file's name appear only once its header is written", async () => {
    const home = temporaryHome();
    sessionsDirectory = join(home, "sessions");
    const store = openStore({ home });
    await store.createSession(header("visible"));
    const path = store.pathOf("visible") as string;
    expect(seenWhileWriting.length).toBeGreaterThan(0);
    expect(seenWhileWriting.flat().filter((name) => name.endsWith("_visible.jsonl"))).toEqual([]);
    expect(JSON.parse(readFileSync(path, "utf8").split("\n")[0] as string)).toMatchObject({ id: "visible" });
    // Nothing of the creation is left beside the file.
    expect(readdirSync(dirname(path)).filter((name) => name.includes(".creating"))).toEqual([]);
    sessionsDirectory = undefined;
    // The file the store appends to is the linked one.
    await store.appendEntries("visible", [userEntry("u1", null)]);
    expect(readFileSync(path, "utf8")).toContain('"id":"u1"');
  });
});
