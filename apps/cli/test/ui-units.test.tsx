import {
  browseHistory,
  createEditorBuffer,
  deleteBackward,
  deleteWordBackward,
  exportArguments,
  insertText,
  moveLine,
  type Picker,
  parseCommandLine,
  submitted,
  suggestCommands,
} from "@arbor/app-runtime/input";
import type { Key } from "ink";
import { Lexer, type Token } from "marked";
import { describe, expect, test } from "vitest";
import { editorKey } from "../src/ui/components/editor.js";
import { meterCells } from "../src/ui/components/footer.js";
import { initialPickerState, pickerKey } from "../src/ui/components/select-list.js";
import { plainKey } from "../src/ui/key-chunks.js";
import { IncrementalMarkdown } from "../src/ui/markdown/incremental-markdown.js";
import { decodeEntities } from "../src/ui/markdown/markdown-view.js";

/** A key as ink gives it, every flag off but `overrides`. */
const key = plainKey;

describe("the editor buffer", () => {
  test("inserts, deletes and normalizes pasted text", () => {
    let buffer = insertText(createEditorBuffer(), "hello world");
    buffer = deleteWordBackward(buffer);
    expect(buffer.text).toBe("hello ");
    buffer = insertText(buffer, "a\r\nb\u0007c");
    expect(buffer.text).toBe("hello a\nbc");
    buffer = deleteBackward(buffer);
    expect(buffer).toMatchObject({ text: "hello a\nb", cursor: 9 });
  });

  test("moves between lines keeping the column, and says when there is no line to go to", () => {
    const buffer = insertText(createEditorBuffer(), "first line\nab\nthird");
    expect(moveLine(buffer, 1)).toBeUndefined();
    const up = moveLine(buffer, -1)!;
    expect(up.cursor).toBe("first line\n".length + 2);
    const top = moveLine(up, -1)!;
    expect(top.cursor).toBe(2);
    expect(moveLine(top, -1)).toBeUndefined();
  });

  test("browses the history and restores the draft", () => {
    let buffer = createEditorBuffer(["one", "two"]);
    buffer = insertText(buffer, "draft");
    buffer = browseHistory(buffer, -1);
    expect(buffer.text).toBe("two");
    buffer = browseHistory(buffer, -1);
    expect(buffer.text).toBe("one");
    expect(browseHistory(buffer, -1).text).toBe("one");
    buffer = browseHistory(browseHistory(buffer, 1), 1);
    expect(buffer.text).toBe("draft");
    const after = submitted(buffer, "three");
    expect(after.text).toBe("");
    expect(after.history).toEqual(["one", "two", "three"]);
    expect(submitted(after, "three").history).toHaveLength(3);
  });

  test("keys: Enter sends, Alt+Enter sends a follow-up, a backslash before Enter makes a new line", () => {
    const buffer = insertText(createEditorBuffer(), "text");
    expect(editorKey(buffer, "\r", key({ return: true })).submit).toBe("enter");
    expect(editorKey(buffer, "\r", key({ return: true, meta: true })).submit).toBe("followUp");
    const continued = editorKey(insertText(buffer, "\\"), "\r", key({ return: true }));
    expect(continued.submit).toBeUndefined();
    expect(continued.buffer.text).toBe("text\n");
    expect(editorKey(buffer, "\n", key()).buffer.text).toBe("text\n");
    expect(editorKey(buffer, "u", key({ ctrl: true })).buffer.text).toBe("");
    // Esc and Ctrl-C belong to the app.
    expect(editorKey(buffer, "", key({ escape: true, meta: true })).buffer).toBe(buffer);
    expect(editorKey(buffer, "c", key({ ctrl: true })).buffer).toBe(buffer);
  });
});

const DOCUMENTS = [
  "# Title\n\nA paragraph with **bold** and `code`.\n\n- one\n- two\n  - nested\n\n```ts\nconst a = 1;\n\nconst b = 2;\n```\n\nAfter the code.\n",
  "Intro line\ncontinued.\n\n1. first\n2. second\n\n> quoted\n> text\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n---\n\nEnd *here*.",
  "Setext heading\n==============\n\nText &amp; more.\n\n    indented code\n\n- [x] done\n- [ ] todo\n",
];

function visible(tokens: readonly Token[]): string[] {
  return tokens
    .filter((token) => token.type !== "space")
    .map((token) => `${token.type}:${token.raw.trimEnd()}`);
}

describe("incremental Markdown", () => {
  test("every prefix lexes to the same blocks as lexing it whole", () => {
    for (const document of DOCUMENTS) {
      const lexer = new IncrementalMarkdown();
      for (let length = 1; length <= document.length; length++) {
        const text = document.slice(0, length);
        const blocks = lexer.update(text);
        const incremental = visible([...blocks.frozen.slice(0, blocks.frozenCount), ...blocks.tail]);
        expect(incremental, JSON.stringify(text)).toEqual(visible(Lexer.lex(text)));
      }
    }
  });

  test("complete blocks are frozen, so an update lexes only the last block", () => {
    const lexer = new IncrementalMarkdown();
    const text = `${Array.from({ length: 50 }, (_, index) => `Paragraph ${index}.`).join("\n\n")}\n\nLast`;
    const blocks = lexer.update(text);
    expect(blocks.frozenCount).toBe(50);
    expect(blocks.tail.filter((token) => token.type !== "space")).toHaveLength(1);
    const next = lexer.update(`${text} words`);
    expect(next.frozen).toBe(blocks.frozen);
    expect(next.frozenCount).toBe(50);
  });

  test("a text that does not extend the previous one is lexed from scratch", () => {
    const lexer = new IncrementalMarkdown();
    lexer.update("First.\n\nSecond.\n\nThird");
    const blocks = lexer.update("Other.\n\nText");
    expect(visible([...blocks.frozen.slice(0, blocks.frozenCount), ...blocks.tail])).toEqual(
      visible(Lexer.lex("Other.\n\nText")),
    );
  });

  test("entities are decoded for the terminal", () => {
    expect(decodeEntities("a &amp; b &lt;c&gt; &#39;d&#39; &#x2014; &unknown;")).toBe(
      "a & b <c> 'd' — &unknown;",
    );
  });
});

describe("the footer", () => {
  test("the context meter places the fill and the threshold mark", () => {
    const usage = {
      tokens: 50_000,
      contextWindow: 100_000,
      percent: 50,
      compactionThreshold: 80_000,
      reserveTokens: 20_000,
      anchored: true,
    };
    expect(meterCells(usage, 20)).toEqual({ filled: 10, threshold: 16 });
    expect(meterCells({ ...usage, tokens: 250_000 }, 20).filled).toBe(20);
  });
});

describe("commands", () => {
  test("command lines, paths and suggestions", () => {
    expect(parseCommandLine("/compact keep the API")).toEqual({
      name: "compact",
      argumentText: "keep the API",
    });
    expect(parseCommandLine("/usr/bin/env")).toBeUndefined();
    expect(parseCommandLine("not a command")).toBeUndefined();
    expect(suggestCommands("compcat", ["compact", "tree", "fork"])).toEqual(["compact"]);
    expect(suggestCommands("mod", ["model", "name"])).toEqual(["model"]);
    expect(suggestCommands("zzzzzz", ["model"])).toEqual([]);
  });

  test("/export arguments: a format, a file, or a file whose extension names the format", () => {
    expect(exportArguments("")).toEqual({ format: "html", file: undefined });
    expect(exportArguments("md")).toEqual({ format: "md", file: undefined });
    expect(exportArguments("jsonl out/s.jsonl")).toEqual({ format: "jsonl", file: "out/s.jsonl" });
    expect(exportArguments("notes.md")).toEqual({ format: "md", file: "notes.md" });
  });

  test("pickers move, filter, choose and cancel", () => {
    const picker: Picker = {
      title: "t",
      filterable: true,
      items: ["alpha", "beta", "gamma"].map((name) => ({ key: name, label: name })),
      onSelect: () => {},
    };
    let state = initialPickerState(picker);
    const step = (input: string, overrides: Partial<Key> = {}) => {
      const result = pickerKey(picker, state, input, key(overrides));
      if (result.kind === "state") state = result.state;
      return result;
    };
    step("", { downArrow: true });
    expect(step("", { return: true })).toEqual({ kind: "choose", key: "beta" });
    step("m");
    expect(state.visible.map((item) => item.key)).toEqual(["gamma"]);
    step("", { backspace: true });
    expect(state.visible).toHaveLength(3);
    expect(step("", { escape: true })).toEqual({ kind: "cancel" });
  });

  test("a filtered picker puts the exact name first, then prefixes, then text, then letters in order", () => {
    const commands = [
      { name: "compact", description: "summarize older history now to free context" },
      { name: "context", description: "what fills the context window" },
      { name: "cost", description: "tokens and cost of the session" },
    ];
    const picker: Picker = {
      title: "Commands",
      filterable: true,
      items: commands.map((command) => ({
        key: command.name,
        label: `/${command.name}`,
        detail: command.description,
      })),
      onSelect: () => {},
    };
    const typed = (text: string) => {
      let state = initialPickerState(picker);
      const result = pickerKey(picker, state, text, key());
      if (result.kind === "state") state = result.state;
      return state.visible.map((item) => item.key);
    };
    expect(typed("context")).toEqual(["context", "compact"]);
    expect(typed("co")).toEqual(["compact", "context", "cost"]);
    expect(typed("cont")).toEqual(["context", "compact"]);
    expect(typed("cmpct")).toEqual(["compact"]);
    expect(typed("/cost")).toEqual(["cost"]);
  });
});
