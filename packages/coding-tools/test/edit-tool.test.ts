import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createEditTool, type EditToolDetails, normalizeEditArguments } from "../src/index.js";
import { callTool, numberedLines, tempDirectory } from "./helpers.js";

async function setup(content: string | Buffer) {
  const cwd = await tempDirectory({ "f.txt": content });
  const tool = createEditTool(cwd);
  const read = () => readFile(join(cwd, "f.txt"), "utf8");
  return { cwd, tool, read };
}

describe("edit: applying", () => {
  it("replaces one exact match, with a unified diff and the first changed line", async () => {
    const { tool, read } = await setup(numberedLines(10));
    const result = await callTool<EditToolDetails>(tool, {
      path: "f.txt",
      edits: [{ oldText: "line 5\n", newText: "line five\nline 5b\n" }],
    });
    expect(result.isError).toBeUndefined();
    expect(result.text).toBe("Edited f.txt: 1 replacement, +2 -1 lines, first change at line 5.");
    expect(await read()).toBe(numberedLines(10).replace("line 5\n", "line five\nline 5b\n"));
    expect(result.details).toMatchObject({
      path: "f.txt",
      firstChangedLine: 5,
      replacements: 1,
      linesAdded: 2,
      linesRemoved: 1,
    });
    expect(result.details?.diff).toBe(
      [
        "--- f.txt",
        "+++ f.txt",
        "@@ -2,7 +2,8 @@",
        " line 2",
        " line 3",
        " line 4",
        "-line 5",
        "+line five",
        "+line 5b",
        " line 6",
        " line 7",
        " line 8",
        "",
      ].join("\n"),
    );
  });

  it("applies several edits, each matched against the original file", async () => {
    const { tool, read } = await setup("a = 1\nb = 2\nc = 3\n");
    const result = await callTool<EditToolDetails>(tool, {
      path: "f.txt",
      edits: [
        { oldText: "c = 3", newText: "c = 30" },
        { oldText: "a = 1", newText: "b = 2" }, // creates a second "b = 2"; still fine: matching uses the original
      ],
    });
    expect(result.text).toBe("Edited f.txt: 2 replacements, +2 -2 lines, first change at line 1.");
    expect(await read()).toBe("b = 2\nb = 2\nc = 30\n");
  });

  it("accepts the single oldText/newText form and Claude Code's names", async () => {
    const { tool, read } = await setup("hello world\n");
    await callTool(tool, { path: "f.txt", oldText: "hello", newText: "goodbye" });
    expect(await read()).toBe("goodbye world\n");
    await callTool(tool, { file_path: "f.txt", old_string: "world", new_string: "moon" });
    expect(await read()).toBe("goodbye moon\n");
    await callTool(tool, { path: "f.txt", edits: JSON.stringify([{ oldText: "moon", newText: "sun" }]) });
    expect(await read()).toBe("goodbye sun\n");
    expect(normalizeEditArguments({ path: "x", oldText: "a", newText: "b" })).toEqual({
      path: "x",
      edits: [{ oldText: "a", newText: "b" }],
    });
  });

  it("preserves CRLF line endings and a byte order mark", async () => {
    const { tool, read } = await setup("\uFEFFfirst\r\nsecond\r\nthird\r\n");
    const result = await callTool<EditToolDetails>(tool, {
      path: "f.txt",
      edits: [{ oldText: "first\nsecond", newText: "one\ntwo\nthree" }],
    });
    expect(result.isError).toBeUndefined();
    expect(await read()).toBe("\uFEFFone\r\ntwo\r\nthree\r\nthird\r\n");
    expect(result.details?.diff).not.toContain("\r");
    // oldText sent with CRLF matches too.
    await callTool(tool, { path: "f.txt", edits: [{ oldText: "two\r\nthree", newText: "2\r\n3" }] });
    expect(await read()).toBe("\uFEFFone\r\n2\r\n3\r\nthird\r\n");
  });

  it("keeps LF files LF when the model sends CRLF", async () => {
    const { tool, read } = await setup("a\nb\n");
    await callTool(tool, { path: "f.txt", edits: [{ oldText: "a\r\nb", newText: "x\r\ny" }] });
    expect(await read()).toBe("x\ny\n");
  });

  it("handles an edit at the start and a deletion at the end", async () => {
    const { tool, read } = await setup("head\nmiddle\ntail");
    const result = await callTool<EditToolDetails>(tool, {
      path: "f.txt",
      edits: [
        { oldText: "head\n", newText: "" },
        { oldText: "\ntail", newText: "" },
      ],
    });
    expect(await read()).toBe("middle");
    expect(result.details?.firstChangedLine).toBe(1);
  });
});

describe("edit: refusing", () => {
  it("reports zero matches with a whitespace near-miss and changes nothing", async () => {
    const original = "function f() {\n    return 1;\n}\n";
    const { tool, read } = await setup(original);
    const result = await callTool(tool, {
      path: "f.txt",
      edits: [{ oldText: "function f() {\n  return 1;\n}", newText: "x" }],
    });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      "oldText was not found in f.txt. A match that differs only in whitespace, indentation or quote " +
        "characters is at line 1-3; the file has there:\nfunction f() {\n    return 1;\n}\nCopy that text " +
        "exactly into oldText. No change was made.",
    );
    expect(await read()).toBe(original);
  });

  it("points at the first line when only the following lines differ", async () => {
    const { tool } = await setup("start\nalpha\nend\n");
    const result = await callTool(tool, { path: "f.txt", edits: [{ oldText: "start\nbeta", newText: "x" }] });
    expect(result.text).toContain(
      "Its first line occurs at line 1, but the lines after it differ; the file has there:\nstart\nalpha",
    );
  });

  it("says when nothing close exists", async () => {
    const { tool } = await setup("abc\n");
    const result = await callTool(tool, { path: "f.txt", edits: [{ oldText: "zzz", newText: "x" }] });
    expect(result.text).toBe(
      "oldText was not found in f.txt. Re-read the file to copy its exact current text. oldText must match " +
        "exactly, including whitespace and line breaks. No change was made.",
    );
  });

  it("reports several matches with their lines", async () => {
    const original = "x = 1\ny = 2\nx = 1\nz\nx = 1\n";
    const { tool, read } = await setup(original);
    const result = await callTool(tool, { path: "f.txt", edits: [{ oldText: "x = 1", newText: "x = 2" }] });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      "oldText matches 3 times in f.txt (at lines 1, 3, 5); it must match exactly once. Include more of " +
        "the surrounding lines to make it unique. No change was made.",
    );
    expect(await read()).toBe(original);
  });

  it("is all or nothing: one bad edit among several changes nothing and all problems are listed", async () => {
    const original = "one\ntwo\nthree\n";
    const { tool, read } = await setup(original);
    const result = await callTool(tool, {
      path: "f.txt",
      edits: [
        { oldText: "one", newText: "1" },
        { oldText: "four", newText: "4" },
        { oldText: "", newText: "5" },
      ],
    });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(
      /^2 of 3 edits cannot be applied:\n- edits\[1\]\.oldText was not found in f\.txt\./,
    );
    expect(result.text).toContain("- edits[2].oldText is empty.");
    expect(result.text.endsWith("No change was made.")).toBe(true);
    expect(await read()).toBe(original);
  });

  it("refuses overlapping edits", async () => {
    const original = "abcdef\n";
    const { tool, read } = await setup(original);
    const result = await callTool(tool, {
      path: "f.txt",
      edits: [
        { oldText: "abcd", newText: "X" },
        { oldText: "cdef", newText: "Y" },
      ],
    });
    expect(result.isError).toBe(true);
    expect(result.text).toBe(
      "edits[0] and edits[1] overlap in f.txt (lines 1 and 1); each oldText must cover a separate part of " +
        "the file. Merge them into one edit. No change was made.",
    );
    expect(await read()).toBe(original);
  });

  it("refuses no-op edits, missing files, binary files", async () => {
    const { cwd, tool } = await setup("same\n");
    const noop = await callTool(tool, { path: "f.txt", edits: [{ oldText: "same", newText: "same" }] });
    expect(noop).toMatchObject({
      isError: true,
      text: "The edits leave f.txt unchanged (each newText equals its oldText).",
    });
    const missing = await callTool(tool, { path: "g.txt", edits: [{ oldText: "a", newText: "b" }] });
    expect(missing.isError).toBe(true);
    expect(missing.text).toBe("File not found: g.txt. Did you mean f.txt? To create a file, use write.");
    const binaryCwd = await tempDirectory({ "b.bin": Buffer.from([0, 1, 2]) });
    const binary = await callTool(createEditTool(binaryCwd), {
      path: "b.bin",
      edits: [{ oldText: "a", newText: "b" }],
    });
    expect(binary).toMatchObject({
      isError: true,
      text: "b.bin is a binary file; edit changes text files only.",
    });
    expect(cwd).not.toBe(binaryCwd);
  });
});
