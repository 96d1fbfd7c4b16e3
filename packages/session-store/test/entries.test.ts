import type { AssistantMessage, Message, ToolResultMessage, UserMessage } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import { validateSessionEntry, validateSessionHeader } from "../src/backend.js";
import {
  MemorySessionStore,
  type MessageEntry,
  Session,
  type SessionEntry,
  type SessionHeader,
  type StoredEntry,
} from "../src/index.js";
import { checkSchema, SessionEntrySchema, type StoredMessage } from "../src/schema.js";
import { assistant, describeMessages, result, user } from "./helpers.js";

// The stored message types and @arbor/ai-providers' message types are the same vocabulary.
type Assignable<From, To> = [From] extends [To] ? true : false;
const compatible: [
  Assignable<UserMessage, StoredMessage>,
  Assignable<AssistantMessage, StoredMessage>,
  Assignable<ToolResultMessage, StoredMessage>,
  Assignable<Extract<StoredMessage, { role: "user" | "assistant" | "toolResult" }>, Message>,
] = [true, true, true, true];

const header: SessionHeader = {
  type: "session",
  version: 3,
  id: "s",
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/",
};

function message(id: string, parentId: string | null, body: unknown): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: body,
  } as SessionEntry;
}

describe("entry schemas", () => {
  it("share the message vocabulary of @arbor/ai-providers", () => {
    expect(compatible).toEqual([true, true, true, true]);
  });

  it("accept unknown fields and unknown entry types", () => {
    const entry = { ...message("aaaa0001", null, { ...user("hi"), extra: 1 }), "x-client": { a: 1 } };
    expect(validateSessionEntry(entry)).toEqual({ ok: true, value: entry });
    const future = {
      type: "x-future",
      id: "aaaa0002",
      parentId: null,
      timestamp: "2026-01-01T00:00:00Z",
      data: [1],
    };
    expect(validateSessionEntry(future)).toEqual({ ok: true, value: future });
    const otherRole = message("aaaa0003", null, { role: "note", text: "mine" });
    expect(validateSessionEntry(otherRole).ok).toBe(true);
    expect(validateSessionHeader({ ...header, "x-extra": true }).ok).toBe(true);
  });

  it("report what is wrong, against the entry's own type", () => {
    const broken = message("aaaa0001", null, { ...assistant("hi"), usage: { input: 1 }, stopReason: "done" });
    const validation = validateSessionEntry(broken);
    expect(validation.ok).toBe(false);
    if (validation.ok) return;
    expect(validation.message).toMatch(/^Entry "aaaa0001" \(message\) is invalid: /);
    expect(validation.issues).toContainEqual({
      path: "/message/usage/output",
      message: "required property missing (expected number)",
    });
    expect(validation.issues).toContainEqual({
      path: "/message/stopReason",
      message: 'expected "stop" | "length" | "toolUse" | "error" | "aborted", received string "done"',
    });

    expect(
      validateSessionEntry({ type: "label", id: "x", parentId: null, timestamp: "t", targetId: 5 }),
    ).toMatchObject({
      ok: false,
      issues: [{ path: "/targetId", message: "expected string, received number 5" }],
    });
    expect(validateSessionEntry({ type: "x-future", id: 1 })).toMatchObject({
      ok: false,
      issues: [
        { path: "/id", message: "expected string, received number 1" },
        { path: "/parentId", message: "required property missing (expected string | null)" },
        { path: "/timestamp", message: "required property missing (expected string)" },
      ],
    });
    expect(validateSessionEntry("not an entry")).toMatchObject({ ok: false });
    expect(validateSessionHeader({ type: "session", id: "s" })).toMatchObject({ ok: false });
    const wrongBlock = message("aaaa0002", null, { ...user("x"), content: [{ type: "video", url: "u" }] });
    expect(checkSchema(SessionEntrySchema, wrongBlock)).toEqual([
      {
        path: "/message/content/0/type",
        message: 'expected one of "text", "image", received string "video"',
      },
    ]);
    expect(checkSchema(SessionEntrySchema, message("aaaa0003", null, { ...user("x"), content: 5 }))).toEqual([
      { path: "/message/content", message: "expected string | array, received number 5" },
    ]);
  });
});

describe("damaged data never stops a session from opening", () => {
  it("leaves invalid entries out of the context with a warning and keeps their place in the tree", async () => {
    const store = new MemorySessionStore();
    await store.createSession(header);
    await store.appendEntries("s", [
      message("aaaa0001", null, user("hello")),
      message("aaaa0002", "aaaa0001", { role: "assistant", content: "not an array" }),
      message("aaaa0003", "aaaa0002", user("still here")),
      {
        type: "thinking_level_change",
        id: "aaaa0004",
        parentId: "aaaa0003",
        timestamp: "t",
        thinkingLevel: 3,
      } as never,
      { type: "leaf", id: "aaaa0005", parentId: "aaaa0004", timestamp: "t" } as never,
    ]);
    const session = await Session.open(store, "s");
    expect(session.leafId).toBe("aaaa0004");
    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual(["user: hello", "user: still here"]);
    expect(context.thinkingLevel).toBeUndefined();
    // Invalid for its type: left out of every read, like an unreadable entry (its place in the tree stays).
    expect(session.getEntry("aaaa0002")).toBeUndefined();
    expect(session.children("aaaa0001").map((ref) => [ref.id, ref.entry()])).toEqual([
      ["aaaa0002", undefined],
    ]);
    expect(
      session.notices.map(({ level, kind, entryId, message }) => ({ level, kind, entryId, message })),
    ).toEqual([
      {
        level: "warning",
        kind: "invalid_entry",
        entryId: "aaaa0005",
        message: expect.stringMatching(
          /^Entry "aaaa0005" \(leaf\) is invalid: \/targetId: required property missing/,
        ),
      },
      {
        level: "warning",
        kind: "invalid_entry",
        entryId: "aaaa0002",
        message: expect.stringMatching(
          /^Entry "aaaa0002" \(message\) is invalid: \/message\/content: expected array, received string/,
        ),
      },
      {
        level: "warning",
        kind: "invalid_entry",
        entryId: "aaaa0004",
        message: expect.stringMatching(/^Entry "aaaa0004" \(thinking_level_change\) is invalid/),
      },
    ]);
    // For people: one line per kind, with its count and an example (one: it is long).
    expect(session.warnings).toEqual([
      expect.stringMatching(
        /^3 entries are invalid; they are left out of the context \(e\.g\. Entry "aaaa0005" \(leaf\) is invalid: \/targetId: required property missing \(expected string \| null\)\)$/,
      ),
    ]);
  });

  it("survives entries whose entry() throws", async () => {
    const stored: StoredEntry[] = [
      { type: "message", id: "aaaa0001", parentId: null, entry: () => message("aaaa0001", null, user("hi")) },
      {
        type: "message",
        id: "aaaa0002",
        parentId: "aaaa0001",
        entry: () => {
          throw new Error("bytes on disk are damaged");
        },
      },
      {
        type: "label",
        id: "aaaa0003",
        parentId: "aaaa0002",
        entry: () => {
          throw new Error("damaged too");
        },
      },
      {
        type: "message",
        id: "aaaa0004",
        parentId: "aaaa0003",
        entry: () => message("aaaa0004", "aaaa0003", result("gone")),
      },
    ];
    const store = new MemorySessionStore();
    const reading = {
      ...store,
      readSession: async () => ({ header, entries: stored, warnings: ["a store warning"] }),
    };
    const session = await Session.open(reading as unknown as MemorySessionStore, "s");
    expect(session.getEntry("aaaa0002")).toBeUndefined();
    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual(["user: hi"]);
    expect(context.repairs).toEqual([
      { kind: "orphan_tool_result", entryId: "aaaa0004", toolCallId: "gone" },
    ]);
    expect(session.notices.map((notice) => notice.message)).toEqual([
      "a store warning",
      'Entry "aaaa0003" (label) cannot be read: damaged too',
      'Entry "aaaa0002" (message) cannot be read: bytes on disk are damaged',
    ]);
    expect(session.warnings).toEqual([
      "a store warning",
      '2 entries cannot be read; they are left out (e.g. Entry "aaaa0003" (label) cannot be read: damaged too; Entry "aaaa0002" (message) cannot be read: bytes on disk are damaged)',
    ]);
  });
});

describe("unknown entry types and fields survive every round trip", () => {
  it("through a store, a session, a fork and a new append", async () => {
    const store = new MemorySessionStore();
    await store.createSession({ ...header, "x-header": { kept: true } } as SessionHeader);
    const first = {
      ...message("aaaa0001", null, { ...user("hi"), "x-in-message": [1, 2] }),
      "x-top": "kept",
    };
    const future = {
      type: "x-future",
      id: "aaaa0002",
      parentId: "aaaa0001",
      timestamp: "t",
      payload: { deep: { a: [null] } },
    };
    const second = message("aaaa0003", "aaaa0002", assistant("answer"));
    await store.appendEntries("s", [first, future as unknown as SessionEntry, second]);

    const session = await Session.open(store, "s");
    expect(session.warnings).toEqual([]);
    expect(describeMessages(session.buildContext().messages)).toEqual(["user: hi", "assistant: answer"]);
    expect(session.getEntry("aaaa0002")).toEqual(future);
    expect(session.getPath().map((ref) => ref.type)).toEqual(["message", "x-future", "message"]);
    expect(session.header).toMatchObject({ "x-header": { kept: true } });

    session.appendMessage(user("more"));
    await session.flush();
    const fork = await session.fork("aaaa0003");
    for (const id of [session.id, fork.id]) {
      const entries = (await store.readSession(id)).entries.map((entry) => entry.entry());
      expect(entries.slice(0, 3)).toEqual([first, future, second]);
    }
    const entry = (await Session.open(store, fork.id)).getEntry("aaaa0001") as MessageEntry &
      Record<string, unknown>;
    expect(entry["x-top"]).toBe("kept");
    expect((entry.message as unknown as Record<string, unknown>)["x-in-message"]).toEqual([1, 2]);
  });
});
