import { MemorySessionStore, Session } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import {
  diffRows,
  diffTextLines,
  entryTextLines,
  exportHtml,
  exportMarkdown,
  parseDiffText,
  previewView,
  toolCallFinder,
  toolDiff,
  treeTextLines,
  viewEntry,
} from "../src/index.js";
import { assistantMessage } from "./helpers.js";

/** What Arbor's edit tool records (the `diff` package's patch, file headers only). */
const EDIT_DIFF = [
  "--- math.js",
  "+++ math.js",
  "@@ -1,4 +1,5 @@",
  " // math",
  "-const a = 1;",
  "+const a = 2;",
  "+const b = 3;",
  " export { a };",
  " ",
  "@@ -40,2 +41,2 @@",
  "-old tail",
  "+new tail",
  " end",
  "",
].join("\n");

describe("toolDiff", () => {
  it("parses the unified diff an edit records, with line numbers and the recorded counts", () => {
    const diff = toolDiff(
      { name: "edit", args: { path: "math.js", edits: [] } },
      { details: { path: "math.js", diff: EDIT_DIFF, linesAdded: 3, linesRemoved: 2, firstChangedLine: 2 } },
    );
    expect(diff).toMatchObject({ tool: "edit", path: "math.js", added: 3, removed: 2, truncated: false });
    expect(diff?.hunks.map((hunk) => hunk.header)).toEqual(["@@ -1,4 +1,5 @@", "@@ -40,2 +41,2 @@"]);
    expect(diff?.hunks[0]?.lines).toEqual([
      { kind: "context", text: "// math", oldLine: 1, newLine: 1 },
      { kind: "remove", text: "const a = 1;", oldLine: 2 },
      { kind: "add", text: "const a = 2;", newLine: 2 },
      { kind: "add", text: "const b = 3;", newLine: 3 },
      { kind: "context", text: "export { a };", oldLine: 3, newLine: 4 },
      { kind: "context", text: "", oldLine: 4, newLine: 5 },
    ]);
    expect(diff?.hunks[1]?.lines[0]).toEqual({ kind: "remove", text: "old tail", oldLine: 40 });
    expect(diffTextLines(diff!)).toEqual([
      " 1   // math",
      " 2 - const a = 1;",
      " 2 + const a = 2;",
      " 3 + const b = 3;",
      " 4   export { a };",
      " 5   ",
      "   …",
      "40 - old tail",
      "41 + new tail",
      "42   end",
    ]);
  });

  it("reads pi's numbered diff format", () => {
    const pi = [
      " 1 // math",
      "-2 const a = 1;",
      "+2 const a = 2;",
      " 3 export { a };",
      "   ...",
      "+9 more",
    ].join("\n");
    const diff = toolDiff({ name: "edit" }, { details: { diff: pi, firstChangedLine: 2 } });
    expect(diff?.added).toBe(2);
    expect(diff?.removed).toBe(1);
    expect(diff?.hunks).toHaveLength(2);
    expect(diff?.hunks[0]?.lines[1]).toEqual({ kind: "remove", text: "const a = 1;", oldLine: 2 });
    expect(diff?.hunks[1]?.lines).toEqual([{ kind: "add", text: "more", newLine: 9 }]);
  });

  it("falls back to an edit's arguments when the result has no details (an imported session)", () => {
    const diff = toolDiff({
      name: "edit",
      args: {
        file_path: "a.ts",
        old_string: "one\ntwo\nthree\nfour",
        new_string: "one\n2\nthree\nfour",
      },
    });
    expect(diff).toMatchObject({ path: "a.ts", added: 1, removed: 1, created: false });
    expect(diff?.hunks[0]?.lines.map((line) => `${line.kind} ${line.text}`)).toEqual([
      "context one",
      "remove two",
      "add 2",
      "context three",
      "context four",
    ]);
    const multi = toolDiff({
      name: "edit",
      args: {
        path: "b.ts",
        edits: [
          { oldText: "x", newText: "y" },
          { oldText: "p\nq", newText: "" },
        ],
      },
    });
    expect(multi).toMatchObject({ added: 1, removed: 3 });
    expect(multi?.hunks).toHaveLength(2);
  });

  it("shows a new file's content as added lines, bounded, and nothing for an overwrite without a diff", () => {
    const content = Array.from({ length: 30 }, (_, index) => `line ${index + 1}`).join("\n");
    const created = toolDiff(
      { name: "write", args: { path: "n.txt", content } },
      { details: { created: true } },
      10,
    );
    expect(created).toMatchObject({ created: true, added: 30, removed: 0, truncated: true });
    expect(created?.hunks[0]?.lines).toHaveLength(10);
    expect(diffRows(created!, 4)).toMatchObject({ more: 26 });
    expect(
      toolDiff(
        { name: "write", args: { path: "n.txt", content } },
        { details: { created: false, bytes: 3 } },
      ),
    ).toBeUndefined();
  });

  it("keeps the counts of a change too large to diff, and shows no diff for errors or other tools", () => {
    const large = toolDiff(
      { name: "edit" },
      { details: { path: "big.txt", diff: "", linesAdded: 9, linesRemoved: 4 } },
    );
    expect(large).toMatchObject({ hunks: [], added: 9, removed: 4, truncated: true });
    expect(diffRows(large!).more).toBe(13);
    // Too large to diff and no counts: an edit's arguments stand in, a write over a file shows none.
    const uncounted = { details: { path: "big.txt", diff: "", firstChangedLine: 1 } };
    expect(
      toolDiff({ name: "edit", args: { path: "big.txt", oldText: "a", newText: "b" } }, uncounted),
    ).toMatchObject({ path: "big.txt", added: 1, removed: 1 });
    const overwritten = { details: { ...uncounted.details, created: false } };
    expect(toolDiff({ name: "write", args: { path: "big.txt", content: "x" } }, overwritten)).toBeUndefined();
    expect(
      toolDiff({ name: "edit", args: { path: "a", oldText: "a", newText: "b" } }, { isError: true }),
    ).toBe(undefined);
    expect(
      toolDiff({ name: "bash", args: { command: "ls" } }, { details: { truncated: false } }),
    ).toBeUndefined();
    expect(toolDiff({ name: "edit", args: "not an object" })).toBeUndefined();
  });

  it("keeps at most maxLines lines but counts all of them", () => {
    const lines = ["@@ -1,0 +1,50 @@", ...Array.from({ length: 50 }, (_, index) => `+l${index}`)];
    const parsed = parseDiffText(lines.join("\n"), 20);
    expect(parsed.added).toBe(50);
    expect(parsed.truncated).toBe(true);
    expect(parsed.hunks[0]?.lines).toHaveLength(20);
  });
});

describe("diffs in entry views, the tree and the exports", () => {
  async function editSession(details: unknown): Promise<Session> {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/work" });
    session.appendMessage({ role: "user", content: "fix it", timestamp: 1 });
    session.appendMessage(
      assistantMessage([
        {
          type: "toolCall",
          id: "call-1",
          name: "edit",
          arguments: { path: "math.js", edits: [{ oldText: "const a = 1;", newText: "const a = 2;" }] },
        },
      ]),
    );
    session.appendMessage({
      role: "toolResult",
      toolCallId: "call-1",
      toolName: "edit",
      content: [{ type: "text", text: "Edited math.js: 1 replacement." }],
      isError: false,
      timestamp: 3,
      ...(details === undefined ? {} : { details }),
    });
    await session.flush();
    return session;
  }

  it("gives a file change's result a diff part, from its details or its call, and a short tree line", async () => {
    const recorded = await editSession({
      path: "math.js",
      diff: "--- math.js\n+++ math.js\n@@ -1,1 +1,1 @@\n-const a = 1; <b>\n+const a = 2; <b>\n",
      linesAdded: 1,
      linesRemoved: 1,
    });
    const [, call, result] = recorded.getPath();
    const view = viewEntry(result!.entry(), result!);
    const part = view.parts.find((entry) => entry.kind === "diff");
    expect(part?.kind === "diff" && part.diff.hunks[0]?.lines.map((line) => line.kind)).toEqual([
      "remove",
      "add",
    ]);
    expect(previewView(view)).toBe("tool edit: math.js +1 −1");
    expect(previewView(viewEntry(call!.entry(), call!))).toBe("assistant: → edit math.js +1 −1");
    expect(treeTextLines(recorded).join("\n")).toContain("→ edit math.js +1 −1");

    const html = exportHtml(recorded);
    expect(html).toContain('<table class="diff">');
    expect(html).toContain(
      '<tr class="remove"><td class="ln">1</td><td class="ln"></td><td><span class="sign">-</span>const a = 1; &lt;b&gt;</td></tr>',
    );
    expect(html).toContain(
      '<tr class="add"><td class="ln"></td><td class="ln">1</td><td><span class="sign">+</span>const a = 2; &lt;b&gt;</td></tr>',
    );
    expect(html).not.toContain("<b>\n");
    expect(entryTextLines(view, { full: false })).toEqual([
      expect.stringMatching(/^\[\w+\] tool edit/),
      "  Edited math.js: 1 replacement.",
      "  diff math.js (+1 −1)",
      "  1 - const a = 1; <b>",
      "  1 + const a = 2; <b>",
    ]);
    expect(exportMarkdown(recorded)).toContain("```diff\n- const a = 1; <b>\n+ const a = 2; <b>\n```");

    // A result without details (an imported session): the diff comes from the call's arguments.
    const imported = await editSession(undefined);
    const importedResult = imported.getPath()[2]!;
    expect(
      viewEntry(importedResult.entry(), importedResult).parts.some((entry) => entry.kind === "diff"),
    ).toBe(false);
    const found = viewEntry(
      importedResult.entry(),
      importedResult,
      toolCallFinder(imported, importedResult.parentId),
    );
    expect(previewView(found)).toBe("tool edit: math.js +1 −1");
    expect(exportHtml(imported)).toContain('<span class="sign">+</span>const a = 2;');
  });
});
