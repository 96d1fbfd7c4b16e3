import { InvalidArgumentError } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import {
  MemorySessionStore,
  Session,
  SessionConflictError,
  SessionEntryNotFoundError,
  SessionExistsError,
  type SessionMessage,
  UnsupportedSessionVersionError,
} from "../src/index.js";
import { assistant, tickingClock, user } from "./helpers.js";

/** A store that records each appendEntries call. */
class RecordingStore extends MemorySessionStore {
  readonly batches: { sessionId: string; ids: string[]; expectedLastEntryId: string | null | undefined }[] =
    [];

  override async appendEntries(...args: Parameters<MemorySessionStore["appendEntries"]>): Promise<void> {
    const [sessionId, entries, options] = args;
    this.batches.push({
      sessionId,
      ids: entries.map((entry) => entry.id),
      expectedLastEntryId: options?.expectedLastEntryId,
    });
    return super.appendEntries(...args);
  }
}

describe("Session.create and Session.open", () => {
  it("writes the header at once and reads it back", async () => {
    const store = new MemorySessionStore();
    const session = await Session.create(store, {
      cwd: "/project",
      id: "s1",
      parentSession: "s0",
      metadata: { title: "demo" },
      now: tickingClock(),
    });
    expect(session.header).toEqual({
      type: "session",
      version: 3,
      id: "s1",
      timestamp: "2026-01-01T00:00:00.000Z",
      cwd: "/project",
      parentSession: "s0",
      metadata: { title: "demo" },
    });
    expect((await store.readSession("s1")).header).toEqual(session.header);
    await expect(Session.create(store, { cwd: "/", id: "s1" })).rejects.toBeInstanceOf(SessionExistsError);
    const generated = await Session.create(store, { cwd: "/" });
    expect(generated.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("refuses to open a version 1 or 2 session until it is migrated", async () => {
    const store = new MemorySessionStore();
    await store.createSession({
      type: "session",
      version: 2,
      id: "old",
      timestamp: "2025-01-01T00:00:00Z",
      cwd: "/",
    });
    await expect(Session.open(store, "old")).rejects.toBeInstanceOf(UnsupportedSessionVersionError);
  });
});

describe("Session appends and flush", () => {
  it("queues appends in memory and writes them in one batch guarded by the last stored id", async () => {
    const store = new RecordingStore();
    const session = await Session.create(store, { cwd: "/", now: tickingClock() });
    const first = session.appendMessage(user("u1"));
    const second = session.appendMessage(assistant("a1"));
    expect(session.pendingCount).toBe(2);
    expect((await store.readSession(session.id)).entries).toHaveLength(0);
    await session.flush();
    expect(session.pendingCount).toBe(0);
    const third = session.appendMessage(user("u2"));
    await session.flush();
    await session.flush();
    expect(store.batches).toEqual([
      { sessionId: session.id, ids: [first.id, second.id], expectedLastEntryId: null },
      { sessionId: session.id, ids: [third.id], expectedLastEntryId: second.id },
    ]);
    const reopened = await Session.open(store, session.id);
    expect(reopened.getBranch()).toEqual([first, second, third]);
  });

  it("writes every entry type, field for field", async () => {
    const store = new MemorySessionStore();
    const session = await Session.create(store, { cwd: "/", now: tickingClock() });
    const message = session.appendMessage(user("u1"));
    const entries = [
      message,
      session.appendThinkingLevelChange("high"),
      session.appendModelChange("anthropic", "claude"),
      session.appendActiveToolsChange(["read", "bash"]),
      session.appendCustom("ext", { state: [1, 2] }),
      session.appendCustomMessage({
        customType: "ext",
        content: [{ type: "text", text: "hi" }],
        display: false,
      }),
      session.appendLabel(message.id, "start"),
      session.appendSessionInfo("  Named  "),
      session.appendBranchSummary({ fromId: message.id, summary: "elsewhere", fromHook: true }),
      session.appendCompaction({
        summary: "s",
        firstKeptEntryId: message.id,
        tokensBefore: 5,
        details: { a: 1 },
      }),
      ...session.moveTo(message.id).entries,
    ];
    expect(entries.map((entry) => entry.type)).toEqual([
      "message",
      "thinking_level_change",
      "model_change",
      "active_tools_change",
      "custom",
      "custom_message",
      "label",
      "session_info",
      "branch_summary",
      "compaction",
      "leaf",
    ]);
    expect(entries.slice(1).map(({ id, parentId, timestamp, ...fields }) => fields)).toEqual([
      { type: "thinking_level_change", thinkingLevel: "high" },
      { type: "model_change", provider: "anthropic", modelId: "claude" },
      { type: "active_tools_change", activeToolNames: ["read", "bash"] },
      { type: "custom", customType: "ext", data: { state: [1, 2] } },
      { type: "custom_message", customType: "ext", content: [{ type: "text", text: "hi" }], display: false },
      { type: "label", targetId: message.id, label: "start" },
      { type: "session_info", name: "Named" },
      { type: "branch_summary", fromId: message.id, summary: "elsewhere", fromHook: true },
      { type: "compaction", summary: "s", firstKeptEntryId: message.id, tokensBefore: 5, details: { a: 1 } },
      { type: "leaf", targetId: message.id },
    ]);
    await session.flush();
    const reopened = await Session.open(store, session.id);
    expect(reopened.warnings).toEqual([]);
    expect(reopened.getPath(entries.at(-2)?.id ?? null).map((ref) => ref.entry())).toEqual(
      entries.slice(0, -1),
    );
    expect(reopened.name).toBe("Named");
    expect(reopened.leafId).toBe(message.id);
  });

  it("rejects summaries as messages and a compaction that keeps an entry off the path", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/" });
    const summary: SessionMessage = {
      role: "compactionSummary",
      summary: "s",
      tokensBefore: 1,
      timestamp: 1,
    };
    expect(() => session.appendMessage(summary as never)).toThrow(InvalidArgumentError);
    const root = session.appendMessage(user("root"));
    const left = session.appendMessage(user("left"));
    session.moveTo(root.id);
    session.appendMessage(user("right"));
    expect(() =>
      session.appendCompaction({ summary: "s", firstKeptEntryId: left.id, tokensBefore: 1 }),
    ).toThrow(SessionEntryNotFoundError);
  });

  it("keeps the queue when another writer appended first (CAS conflict), and serializes flushes", async () => {
    const store = new MemorySessionStore();
    const mine = await Session.create(store, { cwd: "/", now: tickingClock() });
    mine.appendMessage(user("u1"));
    await mine.flush();
    const theirs = await Session.open(store, mine.id);

    theirs.appendMessage(user("from the other writer"));
    await theirs.flush();

    const pending = mine.appendMessage(user("mine"));
    const flushes = [mine.flush(), mine.flush()];
    await expect(flushes[0]).rejects.toBeInstanceOf(SessionConflictError);
    await expect(flushes[1]).rejects.toBeInstanceOf(SessionConflictError);
    expect(mine.pendingCount).toBe(1);
    expect((await store.readSession(mine.id)).entries).toHaveLength(2);

    // Reopening and re-appending resolves it.
    const reopened = await Session.open(store, mine.id);
    reopened.appendMessage(pending.message as SessionMessage as never);
    await reopened.flush();
    expect((await store.readSession(mine.id)).entries).toHaveLength(3);
  });

  it("keeps appending in memory while a write is in flight, and writes the rest with the next flush", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    class GatedStore extends RecordingStore {
      override async appendEntries(...args: Parameters<MemorySessionStore["appendEntries"]>): Promise<void> {
        await gate;
        return super.appendEntries(...args);
      }
    }
    const store = new GatedStore();
    const session = await Session.create(store, { cwd: "/", now: tickingClock() });
    const first = session.appendMessage(user("u1"));
    const flushing = session.flush();
    await new Promise((resolve) => setImmediate(resolve));
    const second = session.appendMessage(user("u2"));
    release();
    await flushing;
    expect(session.pendingCount).toBe(1);
    await session.flush();
    expect(store.batches.map((batch) => batch.ids)).toEqual([[first.id], [second.id]]);
    expect(store.batches[1]?.expectedLastEntryId).toBe(first.id);
  });
});
