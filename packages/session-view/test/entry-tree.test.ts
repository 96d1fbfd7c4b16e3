import { MemorySessionStore, Session } from "@arbor/session-store";
import { describe, expect, test } from "vitest";
import { entryTextLines, previewView, treeRows, treeTextLines, viewEntry } from "../src/index.js";
import { assistantMessage } from "./helpers.js";

/** root → a (user) → b (assistant calling read) ; a → c (user, another branch). */
async function branchedSession(): Promise<{ session: Session; ids: { a: string; b: string; c: string } }> {
  const session = await Session.create(new MemorySessionStore(), { cwd: "/project" });
  const a = session.appendMessage({ role: "user", content: "Hello there", timestamp: 1 });
  const b = session.appendMessage(
    assistantMessage([{ type: "toolCall", id: "call1", name: "read", arguments: { path: "notes.txt" } }], {
      model: "m",
      stopReason: "toolUse",
    }),
  );
  session.moveTo(a.id);
  const c = session.appendMessage({ role: "user", content: "Another way", timestamp: 3 });
  session.appendLabel(c.id, "alt");
  return { session, ids: { a: a.id, b: b.id, c: c.id } };
}

describe("entry views, previews and the tree", () => {
  test("a view and its one-line preview show a tool call the way sessions show does", async () => {
    const { session, ids } = await branchedSession();
    const view = viewEntry(session.getEntry(ids.b), { id: ids.b, type: "message", parentId: ids.a });
    expect(view).toMatchObject({
      kind: "assistant",
      label: "assistant",
      meta: ["test/m", "toolUse", "2 tokens"],
    });
    expect(previewView(view)).toBe('assistant: → read({"path":"notes.txt"})');
    const lines = entryTextLines(view, { full: false, leaf: true });
    expect(lines[0]).toMatch(new RegExp(`^\\[${ids.b}\\] assistant · test/m · toolUse · 2 tokens ← leaf`));
    expect(lines).toContain('  → read({"path":"notes.txt"})');
    // A damaged entry never throws.
    expect(viewEntry(undefined, { id: "x", type: "message", parentId: null })).toMatchObject({
      kind: "unreadable",
    });
  });

  test("a reply's notices (parts its provider could not read) show with the reply", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/project" });
    const reply = session.appendMessage({
      ...assistantMessage([{ type: "text", text: "4" }], { model: "m" }),
      notices: ['Arbor could not read part of this response: content block "citations".'],
    });
    const view = viewEntry(session.getEntry(reply.id), { id: reply.id, type: "message", parentId: null });
    expect(entryTextLines(view, { full: true, leaf: false })).toContain(
      '  Arbor could not read part of this response: content block "citations".',
    );
  });

  test("tree text and picker rows draw the branches with the same lines", async () => {
    const { session, ids } = await branchedSession();
    const lines = treeTextLines(session);
    expect(lines[0]).toBe(`${ids.a} user: Hello there`);
    expect(lines[1]).toBe(`├─ ${ids.b} assistant: → read({"path":"notes.txt"})`);
    expect(lines.some((line) => line.startsWith(`└─ ${ids.c} user: Another way  [alt]`))).toBe(true);
    const rows = treeRows(session);
    const keys = rows.items.map((row) => row.key);
    // Every entry is a row (the leaf move and the label are entries too), in drawing order.
    expect(keys).toHaveLength(5);
    expect(keys.slice(0, 2)).toEqual([ids.a, ids.b]);
    expect(keys).toContain(ids.c);
    expect(keys[rows.leafIndex]).toBe(session.leafId);
    expect(rows.items[rows.leafIndex]?.current).toBe(true);
    expect(rows.items[1]?.label()).toBe(`├─ ${ids.b} assistant: → read({"path":"notes.txt"})`);
  });
});
