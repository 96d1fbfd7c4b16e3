import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { header, openStore, temporaryHome } from "./helpers.js";

/** The empty `.lock` files of the watched sessions directory each time a process writes with writeSync. */
const emptyLocksSeen: string[] = [];
let sessionsDirectory: string | undefined;

vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const writeSync = ((...args: Parameters<typeof fs.writeSync>) => {
    if (sessionsDirectory !== undefined && fs.existsSync(sessionsDirectory)) {
      for (const name of fs.readdirSync(sessionsDirectory, { recursive: true, encoding: "utf8" })) {
        if (name.endsWith(".lock") && fs.statSync(join(sessionsDirectory, name)).size === 0)
          emptyLocksSeen.push(name);
      }
    }
    return (fs.writeSync as (...a: unknown[]) => number)(...args);
  }) as typeof fs.writeSync;
  return { ...fs, writeSync, default: { ...fs, writeSync } };
});

describe("taking a lock", () => {
  // Another process that reads a lock while it is taken must find its holder, not an empty file
  // ("open for writing by an unknown process (unreadable …)").
  it("makes the lock file's name appear only with its holder written in it", async () => {
    const home = temporaryHome();
    sessionsDirectory = join(home, "sessions");
    const store = openStore({ home });
    await store.createSession(header("locked")); // the creation lock, then the session's lock
    sessionsDirectory = undefined;
    expect(emptyLocksSeen).toEqual([]);
    const locks = readdirSync(join(home, "sessions"), { recursive: true, encoding: "utf8" }).filter((name) =>
      name.endsWith(".lock"),
    );
    expect(locks.length).toBeGreaterThan(0);
    for (const name of locks) expect(statSync(join(home, "sessions", name)).size).toBeGreaterThan(0);
    expect(
      readdirSync(join(home, "sessions"), { recursive: true, encoding: "utf8" }).filter((name) =>
        name.endsWith(".tmp"),
      ),
    ).toEqual([]);
  });
});
