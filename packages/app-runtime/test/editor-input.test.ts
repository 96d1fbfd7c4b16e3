import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, test, vi } from "vitest";
import {
  completeMention,
  createEditorBuffer,
  createFileMentions,
  expandPastes,
  exportArguments,
  fileMentions,
  insertText,
  runUserShellCommand,
} from "../src/input.js";

const directories: string[] = [];
afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

function project(): string {
  const directory = mkdtempSync(join(tmpdir(), "arbor-input-"));
  directories.push(directory);
  return directory;
}

describe("@path mentions", () => {
  test("mentions are found after whitespace only, without trailing punctuation", () => {
    expect(fileMentions("see @src/a.ts, and @b.md. mail me@example.com")).toEqual(["src/a.ts", "b.md"]);
  });

  test("completion: one match ends with a space, several complete their common prefix", () => {
    const files = ["src/parser.ts", "src/printer.ts", "docs/readme.md"];
    expect(completeMention("look at @do", files)).toEqual({
      text: "look at @docs/readme.md ",
      matches: ["docs/readme.md"],
    });
    expect(completeMention("@src/p", files)?.text).toBe("@src/p");
    expect(completeMention("@src/pa", files)?.text).toBe("@src/parser.ts ");
    expect(completeMention("@readme", files)?.text).toBe("@docs/readme.md ");
    expect(completeMention("no mention", files)).toBeUndefined();
  });

  test("attach appends text files and reports mentions of no file", async () => {
    const cwd = project();
    writeFileSync(join(cwd, "notes.txt"), "remember the milk\n");
    const mentions = createFileMentions(cwd);
    // The file list is read on the first completion, in the background.
    expect(mentions.complete("@no")).toBeUndefined();
    await vi.waitFor(() => expect(mentions.complete("@no")?.text).toBe("@notes.txt "));
    const prompt = await mentions.attach("read @notes.txt and @gone.txt");
    expect(prompt.attached).toEqual(["notes.txt"]);
    expect(prompt.text).toContain('<file path="notes.txt">');
    expect(prompt.text).toContain("remember the milk");
    expect(prompt.missing.map((item) => item.path)).toEqual(["gone.txt"]);
  });
});

describe("!command", () => {
  test("runs in the directory with the coding tools' bash; the exit code and output are kept apart", async () => {
    const cwd = project();
    const done = await runUserShellCommand(cwd, "echo out; echo err >&2; exit 3");
    expect(done).toMatchObject({ command: "echo out; echo err >&2; exit 3", exitCode: 3, truncated: false });
    expect(done.output).toBe("out\nerr");
    const quiet = await runUserShellCommand(cwd, "true");
    expect(quiet).toMatchObject({ output: "", exitCode: 0 });
    const controller = new AbortController();
    const stopped = runUserShellCommand(cwd, "sleep 30", controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await stopped).toMatchObject({ cancelled: true });
  });
});

describe("editor input", () => {
  test("a large paste collapses to a marker and expands to what was pasted", () => {
    const small = insertText(createEditorBuffer(), "short text");
    expect(small.text).toBe("short text");
    const lines = Array.from({ length: 12 }, (_, index) => `line ${index}`).join("\n");
    let buffer = insertText(createEditorBuffer(), "see ");
    buffer = insertText(buffer, lines);
    buffer = insertText(buffer, " and ");
    buffer = insertText(buffer, "x".repeat(1500));
    expect(buffer.text).toBe("see [paste #1 +12 lines] and [paste #2 +1 lines]");
    expect(expandPastes(buffer)).toBe(`see ${lines} and ${"x".repeat(1500)}`);
    // A marker typed by hand, with no paste behind it, stays.
    expect(expandPastes(insertText(buffer, " [paste #9 +3 lines]"))).toContain("[paste #9 +3 lines]");
  });

  test("/export refuses a format it does not know, listing the formats", () => {
    expect(exportArguments("notes.md")).toEqual({ format: "md", file: "notes.md" });
    expect(() => exportArguments("pdf")).toThrow(/unknown export format "pdf": choose html, md, jsonl/);
    expect(() => exportArguments("notes.txt")).toThrow(/or a file ending in \.html, \.md or \.jsonl/);
  });
});
