import type { ToolResultMessage, UserMessage } from "@arbor/ai-providers";
import { isPrunedToolResult, Session } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { openStore, temporaryHome } from "./helpers.js";

function user(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp: 1 };
}

function toolResult(toolCallId: string, text: string): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName: "read",
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 3,
  };
}

describe("a prune entry in a JSONL session", () => {
  it("is written as one line, read back equal, and shapes the context of a reopened session", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    const session = await Session.create(store, { cwd: "/project" });
    session.appendMessage(user("read it"));
    session.appendMessage({
      role: "assistant",
      content: [{ type: "toolCall", id: "call_1", name: "read", arguments: { path: "a.txt" } }],
      api: "scripted",
      provider: "scripted",
      model: "m",
      usage: {
        input: 0,
        output: 0,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 0,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "toolUse",
      timestamp: 2,
    });
    const big = session.appendMessage(toolResult("call_1", "z".repeat(10_000)));
    const prune = session.appendPrune({
      entryIds: [big.id],
      tokensBefore: 2600,
      tokensAfter: 110,
      details: { freedTokens: 2490 },
    });
    session.appendMessage(user("next"));
    await session.flush();
    await store.close();

    const reopenedStore = openStore({ home });
    const read = await reopenedStore.readSession(session.id);
    expect(read.warnings).toEqual([]);
    const stored = read.entries.find((entry) => entry.id === prune.id);
    expect(stored?.type).toBe("prune");
    expect(stored?.entry()).toEqual(prune);

    const reopened = await Session.open(reopenedStore, session.id);
    const context = reopened.buildContext();
    expect(reopened.warnings).toEqual([]);
    expect(context.prunedEntryIds).toEqual([big.id]);
    const stub = context.messages[context.entryIds.indexOf(big.id)]!;
    expect(isPrunedToolResult(stub)).toBe(true);
    expect(JSON.stringify(stub)).toContain('Call recall with {\\"toolCallId\\":\\"call_1\\"}');
    expect(reopened.getEntry(big.id)).toEqual(big);
  });
});
