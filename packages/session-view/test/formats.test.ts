import { describe, expect, test } from "vitest";
import {
  addToTotals,
  contentText,
  countOf,
  EMPTY_TOTALS,
  formatCost,
  formatCount,
  formatTimestamp,
  formatTokens,
  headLines,
  messageText,
  toolCallLine,
} from "../src/index.js";
import { toolArgumentsText } from "../src/tool-call-line.js";
import { userDisplayText } from "../src/transcript-items.js";

describe("formats", () => {
  test("tokens, costs, counts, timestamps and head lines", () => {
    expect(formatTokens(950)).toBe("950");
    expect(formatTokens(12_345)).toBe("12k");
    expect(formatTokens(1_500)).toBe("1.5k");
    expect(formatTokens(182_000)).toBe("182k");
    expect(formatTokens(1_200_000)).toBe("1.2M");
    expect(formatCost(0.0421)).toBe("$0.042");
    expect(formatCost(12.5)).toBe("$12.50");
    expect(headLines("a\nb\nc\nd\n\n", 2)).toEqual({ lines: ["a", "b"], more: 2 });
    expect(headLines("only", 3)).toEqual({ lines: ["only"], more: 0 });
    expect(formatCount(1578.4)).toBe("1,578");
    expect(countOf(1, "entry", "entries")).toBe("1 entry");
    expect(countOf(2000, "entry", "entries")).toBe("2,000 entries");
    expect(formatTimestamp("2026-11-30T12:27:26.123Z")).toBe("2026-11-30 12:27:26Z");
    expect(formatTimestamp("yesterday")).toBe("yesterday");
  });

  test("usage totals add prompt tokens with the cached ones and ignore malformed usage", () => {
    const totals = addToTotals(
      addToTotals(EMPTY_TOTALS, {
        input: 100,
        output: 20,
        cacheRead: 50,
        cacheWrite: 10,
        totalTokens: 180,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0.5 },
      }),
      { input: Number.NaN } as never,
    );
    expect(totals).toEqual({ input: 160, output: 20, cacheRead: 50, cost: 0.5 });
  });

  test("an expanded skill shows as the command the user typed", () => {
    const expanded = '<skill name="review" location="/x/SKILL.md">\nbody\n</skill>\n\nsrc/api.ts';
    expect(userDisplayText(expanded)).toBe("/skill:review src/api.ts");
    expect(userDisplayText(Array.from({ length: 20 }, (_, index) => `l${index}`).join("\n"))).toContain(
      "… 8 more lines",
    );
  });
});

describe("the tool-call one-liner", () => {
  test("fields: strings as they are, other values as JSON, cut at max", () => {
    expect(toolArgumentsText({ path: "a.ts", limit: 20, text: "x\ny" })).toBe(
      'path: a.ts, limit: 20, text: "x\\ny"',
    );
    expect(toolArgumentsText({ command: "x".repeat(300) }, { max: 40 })).toHaveLength(40);
    expect(toolCallLine("read", { path: "a.ts", limit: 20 })).toBe("read path: a.ts, limit: 20");
    expect(toolCallLine("ls", {})).toBe("ls");
    expect(toolCallLine("edit", { path: "a.ts", edits: [{ oldText: "x", newText: "y" }] })).toBe("edit a.ts");
  });

  test("json: exact arguments, empty ones as ()", () => {
    expect(toolCallLine("read", { path: "notes.txt" }, { style: "json" })).toBe('read({"path":"notes.txt"})');
    expect(toolCallLine("ls", {}, { style: "json" })).toBe("ls()");
    expect(toolCallLine("x", { long: "y".repeat(100) }, { style: "json", max: 20 })).toHaveLength(20);
  });

  test("main: the argument that names the work", () => {
    expect(toolCallLine("write", { path: "greet.mjs", content: "..." }, { style: "main" })).toBe(
      "write greet.mjs",
    );
    expect(toolCallLine("bash", { command: "node  greet.mjs\nArbor" }, { style: "main" })).toBe(
      "bash node greet.mjs Arbor",
    );
    expect(toolCallLine("grep", { pattern: "warning", path: "src" }, { style: "main" })).toBe(
      "grep warning in src",
    );
    expect(toolCallLine("recall", { ids: ["a", "b"] }, { style: "main" })).toBe('recall ["a","b"]');
    expect(toolCallLine("think", { note: "x" }, { style: "main" })).toBe("think");
    expect(toolCallLine("bash", { command: "z".repeat(300) }, { style: "main" })).toHaveLength(100);
  });

  test("never throws on values JSON cannot hold", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => toolCallLine("t", cyclic)).not.toThrow();
    expect(toolCallLine("t", cyclic, { style: "json" })).toBe("t((not JSON data))");
    expect(() => toolCallLine("t", { path: cyclic }, { style: "main" })).not.toThrow();
  });
});

describe("message text", () => {
  test("strings, text blocks one per line, images marked or omitted, anything else ignored", () => {
    const content = [
      { type: "text", text: "one" },
      { type: "image", mimeType: "image/png", data: "" },
      { type: "toolCall", name: "x" },
      null,
      { type: "text", text: "two" },
    ];
    expect(contentText("plain")).toBe("plain");
    expect(contentText(content)).toBe("one\n[image image/png]\ntwo");
    expect(contentText(content, { images: "omit" })).toBe("one\ntwo");
    expect(contentText(42)).toBe("");
    expect(messageText({ role: "user", content })).toBe("one\n[image image/png]\ntwo");
    expect(messageText(undefined)).toBe("");
  });
});
