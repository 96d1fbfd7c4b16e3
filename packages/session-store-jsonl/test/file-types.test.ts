import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, readFileSync, symlinkSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { JsonlSessionStore, NotARegularFileError } from "../src/index.js";
import { chain, header, openStore, temporaryHome } from "./helpers.js";

/** A store's session directory for the helpers' cwd, and a session path in it. */
function sessionPath(home: string, id: string): string {
  const directory = join(home, "sessions", "--home-user-project--");
  mkdirSync(directory, { recursive: true });
  return join(directory, `2026-01-02T03-04-05-678Z_${id}.jsonl`);
}

/** Settles within `ms` (a FIFO opened for reading would block forever). */
function settlesQuickly<T>(promise: Promise<T>, ms = 5000): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`still waiting after ${ms} ms`)), ms)),
  ]);
}

async function expectNotRegular(promise: Promise<unknown>, kind: RegExp): Promise<void> {
  const error = await settlesQuickly(promise).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(NotARegularFileError);
  expect((error as NotARegularFileError).code).toBe("not_a_regular_file");
  expect((error as Error).message).toMatch(kind);
}

describe("only regular files are opened as sessions", () => {
  it("a FIFO where a session file should be is refused at once, by the store and by openFile", async () => {
    const home = temporaryHome();
    const path = sessionPath(home, "fifo");
    execFileSync("mkfifo", [path]);
    await expectNotRegular(
      openStore({ home }).readSession("fifo"),
      /is a FIFO \(named pipe\), not a regular file/,
    );
    await expectNotRegular(JsonlSessionStore.openFile(path), /FIFO/);
    // Listing skips it instead of waiting for a writer.
    const page = await settlesQuickly(openStore({ home }).listSessions());
    expect(page.sessions).toEqual([]);
  });

  it("a directory and a symbolic link loop are NotARegularFileError, never EISDIR or ELOOP", async () => {
    const home = temporaryHome();
    mkdirSync(sessionPath(home, "dir"));
    const loop = sessionPath(home, "loop");
    symlinkSync(loop, loop);
    const store = openStore({ home });
    await expectNotRegular(store.readSession("dir"), /is a directory/);
    await expectNotRegular(store.readSession("loop"), /symbolic link that loops/);
    await expectNotRegular(store.appendEntries("dir", chain("a", 1)), /is a directory/);
    await expectNotRegular(JsonlSessionStore.openFile(loop), /loops/);
    await expectNotRegular(JsonlSessionStore.openFile(join(home, "sessions")), /is a directory/);
  });

  it("a .torn path that is a directory stops the repair with a clear error and loses nothing", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("s1"));
    await store.appendEntries("s1", chain("a", 2));
    const path = store.pathOf("s1")!;
    await store.close();
    appendFileSync(path, '{"type":"message","id":"zz"');
    const before = readFileSync(path);
    mkdirSync(`${path}.torn`);
    await expectNotRegular(openStore({ home }).readSession("s1"), /\.torn is a directory/);
    expect(readFileSync(path)).toEqual(before);
    unlinkSync(path);
  });
});
