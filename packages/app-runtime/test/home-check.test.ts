import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkWritableDirectory } from "../src/home.js";

const made: string[] = [];
afterEach(() => {
  for (const directory of made.splice(0)) {
    chmodSync(directory, 0o700);
    rmSync(directory, { recursive: true, force: true });
  }
});

function temporary(): string {
  const directory = mkdtempSync(join(tmpdir(), "arbor-home-check-"));
  made.push(directory);
  return directory;
}

describe("checkWritableDirectory", () => {
  it("accepts a writable directory, and one still to be created under it, creating nothing", () => {
    const root = temporary();
    expect(() => checkWritableDirectory(root, "X")).not.toThrow();
    expect(() => checkWritableDirectory(join(root, "a", "b"), "X")).not.toThrow();
  });

  it("refuses a file, a path under a file and /proc, naming what is wrong", () => {
    const root = temporary();
    const file = join(root, "file");
    writeFileSync(file, "");
    expect(() => checkWritableDirectory(file, "The home")).toThrow(
      `The home cannot hold Arbor's files: ${file} is a file, not a directory.`,
    );
    expect(() => checkWritableDirectory(join(file, "x"), "The home")).toThrow(`${file} is a file.`);
    expect(() => checkWritableDirectory("/proc/nope/deeper", "The home")).toThrow(
      "/proc is on a virtual file system (proc)",
    );
  });

  it.skipIf(process.getuid?.() === 0)("refuses a read-only directory (root may write anywhere)", () => {
    const root = temporary();
    mkdirSync(join(root, "ro"));
    chmodSync(join(root, "ro"), 0o500);
    made.push(join(root, "ro"));
    expect(() => checkWritableDirectory(join(root, "ro", "home"), "The home")).toThrow(
      `${join(root, "ro")} is not writable`,
    );
  });
});
