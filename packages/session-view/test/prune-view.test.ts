import { MemorySessionStore, Session } from "@arbor/session-store";
import { describe, expect, test } from "vitest";
import { exportHtml, exportMarkdown, previewView, treeTextLines, viewEntry } from "../src/index.js";
import { assistantMessage } from "./helpers.js";

/** A user prompt, a read call, its 8,000-character result, a reply, and a prune of the result. */
async function prunedSession() {
  const session = await Session.create(new MemorySessionStore(), { cwd: "/project" });
  session.appendMessage({ role: "user", content: "Read notes.txt", timestamp: 1 });
  session.appendMessage(
    assistantMessage([{ type: "toolCall", id: "call1", name: "read", arguments: { path: "notes.txt" } }], {
      model: "m",
      stopReason: "toolUse",
    }),
  );
  const result = session.appendMessage({
    role: "toolResult",
    toolCallId: "call1",
    toolName: "read",
    content: [{ type: "text", text: "n".repeat(8000) }],
    isError: false,
    timestamp: 3,
  });
  session.appendMessage(assistantMessage([{ type: "text", text: "Read it." }], { model: "m" }));
  const prune = session.appendPrune({ entryIds: [result.id], tokensBefore: 12_345, tokensAfter: 10_385 });
  return { session, prune, result };
}

describe("a prune entry in the views", () => {
  test("shows as one line: how many tool results and about how many tokens", async () => {
    const { session, prune } = await prunedSession();
    const view = viewEntry(session.getEntry(prune.id), {
      id: prune.id,
      type: "prune",
      parentId: prune.parentId,
    });
    expect(view).toMatchObject({
      kind: "prune",
      label: "pruned 1 tool result",
      meta: ["~1,960 tokens"],
      parts: [],
    });
    expect(previewView(view)).toBe("pruned 1 tool result (~1,960 tokens)");
    // A damaged prune entry still gives a line.
    expect(previewView(viewEntry({ ...prune, entryIds: "x", tokensAfter: "?" } as never, prune))).toBe(
      "pruned 0 tool results",
    );
  });

  test("is marked and kept in the tree text, and exported", async () => {
    const { session, prune, result } = await prunedSession();
    const lines = treeTextLines(session);
    expect(lines).toContain(`${prune.id} ✂ pruned 1 tool result (~1,960 tokens)  ← leaf`);
    expect(exportHtml(session)).toContain("✂ pruned 1 tool result (~1,960 tokens)");
    const markdown = exportMarkdown(session);
    expect(markdown).toContain("pruned 1 tool result");
    // The entry of the result keeps its whole output.
    expect(markdown).toContain("n".repeat(100));
    expect(session.buildContext().prunedEntryIds).toEqual([result.id]);
  });
});

describe("the whole output of a cut tool result in the views", () => {
  test("shows as one line naming the tool, the call and its size, not the text", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/project" });
    session.appendMessage({ role: "user", content: "Read big.log", timestamp: 1 });
    const text = "x".repeat(51_249);
    const entry = session.appendCustom("arbor.tool_output", {
      toolCallId: "call_7",
      toolName: "read",
      text,
      totalChars: text.length,
    });
    const view = viewEntry(session.getEntry(entry.id), {
      id: entry.id,
      type: "custom",
      parentId: entry.parentId,
    });
    expect(view).toMatchObject({
      label: "whole output of read (call call_7): 51,249 characters, kept for recall",
      parts: [],
    });
  });
});
