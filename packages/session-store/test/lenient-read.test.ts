import { describe, expect, it } from "vitest";
import { readSessionEntry, repairSessionEntry } from "../src/backend.js";
import {
  MemorySessionStore,
  Session,
  type SessionEntry,
  type SessionHeader,
  summarizeSessionNotices,
} from "../src/index.js";
import { assistant, call, describeMessages, result, user } from "./helpers.js";

const header: SessionHeader = {
  type: "session",
  version: 3,
  id: "s",
  timestamp: "2025-11-20T23:33:50.805Z",
  cwd: "/",
};

function entry(id: string, parentId: string | null, message: unknown): SessionEntry {
  return { type: "message", id, parentId, timestamp: "2025-11-20T23:33:54.572Z", message } as SessionEntry;
}

/** An assistant message as pi agents before December 2025 wrote it: `usage` without `totalTokens`. */
function olderAssistant(content: unknown[], stopReason = "toolUse"): Record<string, unknown> {
  const { totalTokens: _, ...usage } = assistant("x").usage;
  return { ...assistant("x"), content, usage: { ...usage, input: 7, output: 5, cacheRead: 100 }, stopReason };
}

function without(value: Record<string, unknown>, ...keys: string[]): Record<string, unknown> {
  const copy = { ...value };
  for (const key of keys) delete copy[key];
  return copy;
}

describe("reading older and foreign entries leniently", () => {
  it("keeps an assistant message without usage.totalTokens in the context, filled from its counts", async () => {
    const older = olderAssistant([call("c1")]);
    const store = new MemorySessionStore();
    await store.createSession(header);
    await store.appendEntries("s", [
      entry("aaaa0001", null, user("read a.txt")),
      entry("aaaa0002", "aaaa0001", older),
      entry("aaaa0003", "aaaa0002", result("c1")),
    ]);
    const session = await Session.open(store, "s");
    const context = session.buildContext();
    expect(describeMessages(context.messages)).toEqual([
      "user: read a.txt",
      "assistant: call(c1)",
      "result(c1)",
    ]);
    expect(context.repairs).toEqual([]);
    const read = context.messages[1] as { usage: { totalTokens: number } };
    expect(read.usage.totalTokens).toBe(112);
    // The stored entry is not changed; the session reads a repaired copy.
    expect((older.usage as Record<string, unknown>).totalTokens).toBeUndefined();
    expect(session.getEntry("aaaa0002")).toMatchObject({ message: { usage: { totalTokens: 112 } } });
    // A note, not a warning: nothing is lost and nothing needs doing.
    expect(session.warnings).toEqual([]);
    expect(session.notices).toEqual([
      {
        level: "note",
        kind: "filled assistant message usage.totalTokens",
        message:
          'Entry "aaaa0002" (assistant message) had no usage.totalTokens: filled from their token counts.',
        entryId: "aaaa0002",
        group: "assistant messages had no usage.totalTokens: filled from their token counts",
        example: "entry aaaa0002",
      },
    ]);
  });

  it("fills display-only and derivable fields and says which", () => {
    const reading = readSessionEntry(
      entry(
        "aaaa0001",
        null,
        without(
          { ...olderAssistant([{ type: "toolCall", id: "c1", name: "ls" }]), usage: { input: 3 } },
          "api",
          "stopReason",
          "timestamp",
        ),
      ),
    );
    expect(reading.ok).toBe(true);
    if (!reading.ok) return;
    expect(reading.value).toMatchObject({
      message: {
        api: "unknown",
        stopReason: "toolUse",
        timestamp: Date.parse("2025-11-20T23:33:54.572Z"),
        content: [{ type: "toolCall", id: "c1", name: "ls", arguments: {} }],
        usage: {
          input: 3,
          output: 0,
          cacheRead: 0,
          cacheWrite: 0,
          totalTokens: 3,
          cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
        },
      },
    });
    expect(reading.filled.map((fill) => fill.field)).toEqual([
      "api",
      "usage.output",
      "usage.cacheRead",
      "usage.cacheWrite",
      "usage.totalTokens",
      "usage.cost",
      "stopReason",
      "toolCall.arguments",
      "timestamp",
    ]);
  });

  it("derives a missing stopReason from the message: an error, a tool call, else a stop", () => {
    const reasonOf = (message: Record<string, unknown>) => {
      const reading = readSessionEntry(entry("aaaa0001", null, without(message, "stopReason")));
      return reading.ok
        ? (reading.value as { message: { stopReason: string } }).message.stopReason
        : undefined;
    };
    expect(reasonOf(olderAssistant([call("c1")]))).toBe("toolUse");
    expect(reasonOf(olderAssistant([{ type: "text", text: "done" }]))).toBe("stop");
    expect(reasonOf({ ...olderAssistant([]), errorMessage: "overloaded" })).toBe("error");
  });

  it("fills the fields of other roles and of a compaction", () => {
    const filled = (value: unknown) => {
      const reading = readSessionEntry(value);
      return reading.ok
        ? reading.filled.map((fill) => `${fill.role ?? fill.entryType} ${fill.field}`)
        : reading;
    };
    expect(filled(entry("aaaa0001", null, without({ ...result("c1") }, "isError", "timestamp")))).toEqual([
      "toolResult isError",
      "toolResult timestamp",
    ]);
    expect(filled(entry("aaaa0001", null, without({ ...user("hi") }, "timestamp")))).toEqual([
      "user timestamp",
    ]);
    expect(
      filled(entry("aaaa0001", null, { role: "bashExecution", command: "ls", output: "", timestamp: 1 })),
    ).toEqual(["bashExecution cancelled", "bashExecution truncated"]);
    expect(
      filled(entry("aaaa0001", null, { role: "custom", customType: "note", content: "x", timestamp: 1 })),
    ).toEqual(["custom display"]);
    expect(
      filled({
        type: "compaction",
        id: "aaaa0002",
        parentId: "aaaa0001",
        timestamp: "2025-11-20T23:33:54.572Z",
        summary: "s",
        firstKeptEntryId: "aaaa0001",
      }),
    ).toEqual(["compaction tokensBefore"]);
  });

  it("keeps invalid what cannot be understood, naming the problems of the entry as it was", () => {
    const notBlocks = readSessionEntry(entry("aaaa0001", null, { ...olderAssistant([]), content: "text" }));
    expect(notBlocks).toMatchObject({
      ok: false,
      message: expect.stringMatching(
        /^Entry "aaaa0001" \(message\) is invalid: \/message\/content: expected array/,
      ),
    });
    expect(
      repairSessionEntry(entry("aaaa0001", null, without({ ...result("c1") }, "toolCallId"))),
    ).toBeUndefined();
    expect(repairSessionEntry({ type: "label", id: "a", parentId: null, timestamp: "t" })).toBeUndefined();
  });

  it("returns a valid entry itself, with nothing filled", () => {
    const valid = entry("aaaa0001", null, assistant("fine"));
    const reading = readSessionEntry(valid);
    expect(reading).toEqual({ ok: true, value: valid, filled: [] });
    expect(reading.ok && reading.value).toBe(valid);
  });
});

describe("summarizing notices", () => {
  it("gives one line per kind, with its count and two examples (one when it is long)", async () => {
    const store = new MemorySessionStore();
    await store.createSession(header);
    const entries: SessionEntry[] = [];
    for (let index = 1; index <= 5; index++) {
      const id = `aaaa000${index}`;
      entries.push(entry(id, index === 1 ? null : `aaaa000${index - 1}`, olderAssistant([], "stop")));
    }
    entries.push(entry("bbbb0001", "aaaa0005", { ...olderAssistant([]), content: "not blocks" }));
    entries.push(entry("bbbb0002", "bbbb0001", { ...olderAssistant([]), content: 42 }));
    await store.appendEntries("s", entries);
    const session = await Session.open(store, "s");
    expect(session.buildContext().messages).toHaveLength(5);
    expect(session.notices).toHaveLength(7);
    expect(summarizeSessionNotices(session.notices, "note")).toEqual([
      "5 assistant messages had no usage.totalTokens: filled from their token counts (e.g. entry aaaa0001; entry aaaa0002)",
    ]);
    expect(session.warnings).toEqual([
      expect.stringMatching(
        /^2 entries are invalid; they are left out of the context \(e\.g\. Entry "bbbb0001" \(message\) is invalid: \/message\/content: expected array, received string "not blocks"; \/message\/usage\/totalTokens: required property missing \(expected number\)\)$/,
      ),
    ]);
  });
});
