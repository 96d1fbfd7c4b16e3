import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { UnsavedEntries } from "@arbor/harness";
import { MemorySessionStore, Session, type SessionEntry, type SessionStore } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { afterEach, describe, expect, it } from "vitest";
import { type AppRuntimeOptions, createAppRuntime } from "../src/create-app-runtime.js";
import type { ProviderFactories, StoreFactories } from "../src/factories.js";
import {
  applyRecoveryFile,
  createRecoveryKeeper,
  listRecoveryFiles,
  readRecoveryFile,
  recoverSessions,
} from "../src/index.js";
import { temporaryDirectory, writeJson } from "./helpers.js";

/** A session with two stored messages, and two more entries that follow it (as a failed save leaves them). */
async function sessionWithUnsaved(
  store: SessionStore,
): Promise<{ session: Session; unsaved: UnsavedEntries }> {
  const session = await Session.create(store, { cwd: "/project" });
  session.appendMessage({ role: "user", content: "one", timestamp: 1 });
  await session.flush();
  const expected = session.leafId;
  const entries: SessionEntry[] = [
    session.appendMessage({ role: "user", content: "two", timestamp: 2 }),
    session.appendCustom("note", { n: 2 }),
  ];
  return {
    session,
    unsaved: {
      sessionId: session.id,
      header: session.header,
      sessionStored: true,
      expectedLastEntryId: expected,
      entries,
      reason: "ENOSPC: no space left on device, write",
      conflict: false,
      failedAt: "2026-03-01T10:00:00.000Z",
    },
  };
}

describe("recovery files", () => {
  it("are written atomically under <home>/recovery/<id>/, 0600 in 0700, rewritten whole, removed on release", async () => {
    const home = temporaryDirectory();
    const { unsaved } = await sessionWithUnsaved(new MemorySessionStore());
    const keeper = createRecoveryKeeper({ home, store: "the JSONL store in /x" });
    const kept = await keeper.keep({ ...unsaved, entries: unsaved.entries.slice(0, 1) }, undefined);
    expect(kept.location).toBe(
      join(home, "recovery", unsaved.sessionId, `2026-03-01T10-00-00-000Z_${process.pid}.jsonl`),
    );
    expect(kept.howToApply).toBe(
      `\`arbor sessions recover ${unsaved.sessionId}\` applies them (\`arbor -r ${unsaved.sessionId}\` offers to)`,
    );
    expect(statSync(kept.location).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "recovery")).mode & 0o777).toBe(0o700);
    const again = await keeper.keep(unsaved, kept);
    expect(again.location).toBe(kept.location);
    const file = readRecoveryFile(kept.location);
    expect(file.header).toMatchObject({
      type: "arbor_recovery",
      version: 1,
      sessionId: unsaved.sessionId,
      store: "the JSONL store in /x",
      expectedLastEntryId: unsaved.expectedLastEntryId,
      sessionStored: true,
      entryCount: 2,
      reason: "ENOSPC: no space left on device, write",
    });
    expect(file.entries.map((entry) => entry.id)).toEqual(unsaved.entries.map((entry) => entry.id));
    expect(readFileSync(kept.location, "utf8").split("\n").filter(Boolean)).toHaveLength(3);
    expect(listRecoveryFiles(home).map((found) => found.path)).toEqual([kept.location]);
    await keeper.release(again);
    expect(listRecoveryFiles(home)).toEqual([]);
  });

  it("go to the temporary directory when the home cannot take them", async () => {
    const home = temporaryDirectory();
    writeFileSync(join(home, "recovery"), "a file where the directory should be");
    const temporary = temporaryDirectory();
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = temporary;
    try {
      const { unsaved } = await sessionWithUnsaved(new MemorySessionStore());
      const kept = await createRecoveryKeeper({ home, store: "s" }).keep(unsaved, undefined);
      expect(kept.location.startsWith(temporary)).toBe(true);
      expect(listRecoveryFiles(home).map((found) => found.path)).toEqual([kept.location]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it("say so when neither the home nor the temporary directory can take them", async () => {
    const home = temporaryDirectory();
    writeFileSync(join(home, "recovery"), "not a directory");
    const blocked = join(temporaryDirectory(), "a-file");
    writeFileSync(blocked, "not a directory either");
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = blocked;
    try {
      const { unsaved } = await sessionWithUnsaved(new MemorySessionStore());
      await expect(createRecoveryKeeper({ home, store: "s" }).keep(unsaved, undefined)).rejects.toThrow(
        /^Cannot write a recovery file: .*recovery.*; .*a-file/,
      );
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it("apply where the failed save would have, skip what is stored, refuse or branch when the session moved on", async () => {
    const home = temporaryDirectory();
    const store = new MemorySessionStore();
    const { session, unsaved } = await sessionWithUnsaved(store);
    const keeper = createRecoveryKeeper({ home, store: "memory" });
    const file = readRecoveryFile((await keeper.keep(unsaved, undefined)).location);

    // Unchanged: appended after the expected entry; the session continues from them.
    const first = await applyRecoveryFile(store, file, { onlyIfUnchanged: true });
    expect(first).toMatchObject({ kind: "applied", appended: 2, alreadyStored: 0, created: false });
    expect((await store.readSession(session.id)).entries.map((entry) => entry.id)).toEqual(
      session.getPath().map((ref) => ref.id),
    );
    expect(await applyRecoveryFile(store, file)).toEqual({ kind: "already_stored", entries: 2 });

    // Moved on: another writer appended after the expected entry.
    const other = new MemorySessionStore();
    const moved = await sessionWithUnsaved(other);
    const otherFile = readRecoveryFile((await keeper.keep(moved.unsaved, undefined)).location);
    const writer = await Session.open(other, moved.session.id);
    const theirs = writer.appendMessage({ role: "user", content: "someone else", timestamp: 3 });
    await writer.flush();
    expect(await applyRecoveryFile(other, otherFile, { onlyIfUnchanged: true })).toEqual({
      kind: "moved_on",
      expected: moved.unsaved.expectedLastEntryId,
      lastEntryId: theirs.id,
    });
    const branched = await applyRecoveryFile(other, otherFile);
    expect(branched).toMatchObject({
      kind: "applied",
      appended: 2,
      branch: { from: moved.unsaved.expectedLastEntryId, otherLeaf: theirs.id },
    });
    const reopened = await Session.open(other, moved.session.id);
    expect(reopened.leafId).toBe(moved.unsaved.entries.at(-1)?.id);
    expect(reopened.children(moved.unsaved.expectedLastEntryId).map((child) => child.id)).toEqual([
      theirs.id,
      moved.unsaved.entries[0]?.id,
    ]);
  });

  it("are applied as a writer: refused, naming the holder, while another writer holds the session", async () => {
    const home = temporaryDirectory();
    const store = new JsonlSessionStore({ home });
    const { unsaved } = await sessionWithUnsaved(store);
    const keeper = createRecoveryKeeper({ home, store: "jsonl" });
    const kept = await keeper.keep(unsaved, undefined);
    const holder = await store.acquireWriterLease(unsaved.sessionId);
    await expect(recoverSessions(store, { home, cwd: home, reference: unsaved.sessionId })).rejects.toThrow(
      /open for writing by pid/,
    );
    expect(listRecoveryFiles(home, unsaved.sessionId).map((found) => found.path)).toEqual([kept.location]);
    await holder.release();
    const lines = await recoverSessions(store, { home, cwd: home, reference: unsaved.sessionId });
    expect(lines.join("\n")).toMatch(/2 entries/);
    expect(listRecoveryFiles(home, unsaved.sessionId)).toEqual([]);
    await store.close();
  });

  it("create the session when its store never held it", async () => {
    const home = temporaryDirectory();
    const store = new MemorySessionStore();
    const { unsaved } = await sessionWithUnsaved(new MemorySessionStore());
    const never: UnsavedEntries = { ...unsaved, sessionStored: false, expectedLastEntryId: null };
    const rootEntries = unsaved.entries.map((entry, index) =>
      index === 0 ? { ...entry, parentId: null } : entry,
    ) as SessionEntry[];
    const kept = await createRecoveryKeeper({ home, store: "memory" }).keep(
      { ...never, entries: rootEntries },
      undefined,
    );
    const lines = await recoverSessions(store, { home, cwd: home, reference: unsaved.sessionId.slice(0, 6) });
    expect(lines[0]).toMatch(
      /^Applied 2 entries to session .* \(not saved on 2026-03-01T10:00:00.000Z\); the session was created\.$/,
    );
    expect((await store.readSession(unsaved.sessionId)).entries).toHaveLength(2);
    expect(listRecoveryFiles(home)).toEqual([]);
    expect(() => readFileSync(kept.location)).toThrow();
  });

  it("are listed, and discarded with --discard", async () => {
    const home = temporaryDirectory();
    const store = new MemorySessionStore();
    const { unsaved } = await sessionWithUnsaved(store);
    const kept = await createRecoveryKeeper({ home, store: "memory" }).keep(unsaved, undefined);
    const listed = await recoverSessions(store, { home, cwd: home });
    expect(listed[0]).toContain(
      `${unsaved.sessionId}  2 entries not saved 2026-03-01T10:00:00.000Z  ${kept.location}`,
    );
    const discarded = await recoverSessions(store, {
      home,
      cwd: home,
      reference: kept.location,
      discard: true,
    });
    expect(discarded).toEqual([
      `Discarded ${kept.location}: 2 entries of session ${unsaved.sessionId} not saved on 2026-03-01T10:00:00.000Z.`,
    ]);
    expect(listRecoveryFiles(home)).toEqual([]);
  });
});

/** The JSONL store whose writes fail while `FaultyJsonl.failing` is set (as on a full disk). */
class FaultyJsonl extends JsonlSessionStore {
  static failing = false;
  override async appendEntries(...args: Parameters<JsonlSessionStore["appendEntries"]>) {
    if (FaultyJsonl.failing) {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
        code: "ENOSPC",
        syscall: "write",
      });
    }
    return super.appendEntries(...args);
  }
}

const stores = { jsonl: async () => ({ JsonlSessionStore: FaultyJsonl }) } as unknown as StoreFactories;
const providers: ProviderFactories = { scripted: () => import("../src/demo/index.js") };

describe("a runtime whose store fails mid-run", () => {
  afterEach(() => {
    FaultyJsonl.failing = false;
  });

  it("keeps what ran in a recovery file, says where; -r applies it when the session is unchanged", async () => {
    const home = temporaryDirectory();
    const cwd = temporaryDirectory();
    writeJson(join(home, "settings.json"), { saveRetryMs: 0 });
    const notes: string[] = [];
    const base: AppRuntimeOptions = {
      cwd,
      env: {},
      home,
      providers,
      stores,
      flags: { provider: "scripted" },
      tools: ["bash"],
      onWarning: (message) => notes.push(message),
    };
    const runtime = await createAppRuntime(base);
    await runtime.session.prompt("hello");
    FaultyJsonl.failing = true;
    const watch = runtime.watchUnsavedWork();
    await runtime.session.prompt("run echo ran > marker.txt");
    const unsaved = watch();
    const id = runtime.session.id;
    await runtime.dispose();
    FaultyJsonl.failing = false;

    // The tool did not run: its call could not be stored first.
    expect(() => statSync(join(cwd, "marker.txt"))).toThrow();
    const [found] = listRecoveryFiles(home, id);
    expect(found?.file?.header.sessionId).toBe(id);
    expect(unsaved).toBe(
      "the session was not saved: ENOSPC: no space left on device, write. The run stopped before running anything " +
        `more. What was not stored is kept in ${found?.path}; \`arbor sessions recover ${id}\` applies them ` +
        `(\`arbor -r ${id}\` offers to).`,
    );
    const roles = found?.file?.entries.map((entry) =>
      entry.type === "message" ? entry.message.role : entry.type,
    );
    expect(roles).toEqual(["user", "assistant", "toolResult"]);

    const resumed = await createAppRuntime({ ...base, session: { kind: "open", reference: id } });
    expect(notes.some((note) => /^Applied 3 entries to session /.test(note))).toBe(true);
    expect(listRecoveryFiles(home, id)).toEqual([]);
    const context = resumed.session.session.buildContext().messages.map((message) => message.role);
    expect(context).toEqual(["user", "assistant", "user", "assistant", "toolResult"]);
    await resumed.dispose();
  });

  it("-r refuses a session that moved on since, until `sessions recover` applies it as a branch", async () => {
    const home = temporaryDirectory();
    const cwd = temporaryDirectory();
    writeJson(join(home, "settings.json"), { saveRetryMs: 0 });
    mkdirSync(join(home, "sessions"), { recursive: true });
    const base: AppRuntimeOptions = {
      cwd,
      env: {},
      home,
      providers,
      stores,
      flags: { provider: "scripted" },
      tools: false,
    };
    const runtime = await createAppRuntime(base);
    await runtime.session.prompt("hello");
    FaultyJsonl.failing = true;
    await runtime.session.prompt("second");
    const id = runtime.session.id;
    await runtime.dispose();
    FaultyJsonl.failing = false;

    const store = new JsonlSessionStore({ home });
    const writer = await Session.open(store, id);
    writer.appendMessage({ role: "user", content: "another writer", timestamp: 5 });
    await writer.flush();
    await store.close();

    await expect(createAppRuntime({ ...base, session: { kind: "open", reference: id } })).rejects.toThrow(
      new RegExp(`moved on since.*arbor sessions recover ${id}\`.*--discard`),
    );
    const target = new JsonlSessionStore({ home });
    const lines = await recoverSessions(target, { home, cwd, reference: id });
    await target.close();
    expect(lines[1]).toMatch(/^The session had moved on: the recovered entries form a branch from /);
    const resumed = await createAppRuntime({ ...base, session: { kind: "open", reference: id } });
    const texts = resumed.session.session
      .buildContext()
      .messages.filter((message) => message.role === "user")
      .map((message) => JSON.stringify(message.content));
    expect(texts.map((text) => /"text":"(\w+)"/.exec(text)?.[1])).toEqual(["hello", "second"]);
    await resumed.dispose();
  });
});
