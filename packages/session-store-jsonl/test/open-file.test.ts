import { appendFileSync, copyFileSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Session, SessionCorruptError } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { InvalidStoreArgumentError, JsonlSessionStore, SessionReadOnlyError } from "../src/index.js";
import { header, temporaryHome, userEntry } from "./helpers.js";

const fixtures = join(import.meta.dirname, "../../../fixtures/pi-sessions");
const FIXTURE_FILES = readdirSync(fixtures).filter((name) => name.endsWith(".jsonl"));

/** Every file of a directory with its size, mtime and bytes: what "nothing was written" compares. */
function snapshot(directory: string): Record<string, { size: number; mtimeMs: number; bytes: string }> {
  const result: Record<string, { size: number; mtimeMs: number; bytes: string }> = {};
  for (const name of readdirSync(directory).sort()) {
    const stat = statSync(join(directory, name));
    result[name] = {
      size: stat.size,
      mtimeMs: stat.mtimeMs,
      bytes: stat.isFile() ? readFileSync(join(directory, name), "base64") : "",
    };
  }
  return result;
}

describe("JsonlSessionStore.openFile", () => {
  it("finds the pi fixtures", () => {
    expect(FIXTURE_FILES.length).toBeGreaterThanOrEqual(4);
  });

  it("opens every pi fixture in place read-only, and writes, creates or locks nothing", async () => {
    const before = snapshot(fixtures);
    for (const name of FIXTURE_FILES) {
      const path = join(fixtures, name);
      const lines = readFileSync(path, "utf8")
        .split("\n")
        .filter((line) => line !== "");
      const opened = await JsonlSessionStore.openFile(path, { readOnly: true });
      expect(opened.path).toBe(path);
      expect(opened.sessionId).toBe((JSON.parse(lines[0]!) as { id: string }).id);
      expect(opened.header).toEqual(JSON.parse(lines[0]!));

      const session = await Session.open(opened.store, opened.sessionId);
      expect(session.entryCount).toBe(lines.length - 1);
      expect(session.buildContext().messages.length).toBeGreaterThan(0);
      const page = await opened.store.listSessions();
      expect(page.sessions.map((summary) => [summary.id, summary.location])).toEqual([
        [opened.sessionId, path],
      ]);

      session.appendMessage({ role: "user", content: [{ type: "text", text: "no" }], timestamp: 1 });
      await expect(session.flush()).rejects.toBeInstanceOf(SessionReadOnlyError);
      await expect(opened.store.deleteSession(opened.sessionId)).rejects.toBeInstanceOf(SessionReadOnlyError);
      await expect(opened.store.createSession(header("other"))).rejects.toBeInstanceOf(SessionReadOnlyError);
      await opened.store.close();
    }
    expect(snapshot(fixtures)).toEqual(before);
  });

  it("leaves a torn tail and an old format alone when read-only", async () => {
    const directory = temporaryHome();
    const torn = join(directory, "torn.jsonl");
    copyFileSync(join(fixtures, FIXTURE_FILES[0]!), torn);
    appendFileSync(torn, '{"type":"message","id":"cut');
    const old = join(directory, "old.jsonl");
    writeFileSync(
      old,
      `${JSON.stringify({ type: "session", id: "v1-session", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" })}\n` +
        `${JSON.stringify({ type: "message", timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "hi", timestamp: 1 } })}\n`,
    );
    const before = snapshot(directory);

    const tornFile = await JsonlSessionStore.openFile(torn, { readOnly: true });
    const tornRead = await tornFile.store.readSession(tornFile.sessionId);
    expect(tornRead.warnings.join("\n")).toMatch(/left out \(the file is unchanged\)/);
    await tornFile.store.close();

    const oldFile = await JsonlSessionStore.openFile(old, { readOnly: true });
    const oldRead = await oldFile.store.readSession("v1-session");
    expect(oldRead.header.version).toBe(3);
    expect(oldRead.entries).toHaveLength(1);
    expect(oldRead.warnings.join("\n")).toMatch(/in memory only/);
    await oldFile.store.close();

    expect(snapshot(directory)).toEqual(before);
  });

  it("appends to the file itself when writable, under its lock", async () => {
    const directory = temporaryHome();
    const path = join(directory, "copy.jsonl");
    copyFileSync(join(fixtures, FIXTURE_FILES[0]!), path);
    const opened = await JsonlSessionStore.openFile(path, { durability: "flush" });
    const session = await Session.open(opened.store, opened.sessionId);
    const count = session.entryCount;
    session.appendMessage({ role: "user", content: [{ type: "text", text: "more" }], timestamp: 2 });
    await session.flush();
    expect(readdirSync(directory)).toContain("copy.jsonl.lock");
    await expect(opened.store.createSession(header("elsewhere"))).rejects.toBeInstanceOf(
      InvalidStoreArgumentError,
    );
    await opened.store.close();
    expect(readdirSync(directory).sort()).toEqual(["copy.jsonl"]);

    const again = await JsonlSessionStore.openFile(path, { readOnly: true });
    expect((await Session.open(again.store, again.sessionId)).entryCount).toBe(count + 1);
    await again.store.close();
  });

  it("refuses a file that is not a session, and an id that cannot name one", async () => {
    const directory = temporaryHome();
    const notSession = join(directory, "notes.jsonl");
    writeFileSync(notSession, '{"hello":"world"}\n');
    await expect(JsonlSessionStore.openFile(notSession, { readOnly: true })).rejects.toBeInstanceOf(
      SessionCorruptError,
    );
    const badId = join(directory, "bad.jsonl");
    writeFileSync(badId, `${JSON.stringify(header("../escape"))}\n${JSON.stringify(userEntry("a", null))}\n`);
    await expect(JsonlSessionStore.openFile(badId, { readOnly: true })).rejects.toBeInstanceOf(
      InvalidStoreArgumentError,
    );
    await expect(
      JsonlSessionStore.openFile(join(directory, "missing.jsonl"), { readOnly: true }),
    ).rejects.toMatchObject({ code: "ENOENT" });
    expect(readdirSync(directory).sort()).toEqual(["bad.jsonl", "notes.jsonl"]);
  });
});
