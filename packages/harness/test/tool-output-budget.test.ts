import type { AfterToolCallContext } from "@arbor/agent-core";
import type { ImageContent, TextContent } from "@arbor/ai-providers";
import { contextBudget, IMAGE_CHARS, resolveCompactionSettings } from "@arbor/compaction";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { limitToolOutput, toolOutputChars } from "../src/index.js";
import { budgetToolResult } from "../src/tool-output-budget.js";

const NOTE =
  /^\n\n\[Output cut to fit the context: showing the first ([\d,]+)(?: and last ([\d,]+))? of ([\d,]+) characters\. The whole output is kept in the session: call recall with (\{[^}]*\}) to read on\.\]\n\n$/;

const number = (value: string | undefined) => Number((value ?? "0").replaceAll(",", ""));

/** `size` characters repeating `unit` (which may hold line breaks and surrogate pairs). */
function textOf(unit: string, size: number): string {
  if (size === 0) return "";
  const base = unit === "" ? "x" : unit;
  return base.repeat(Math.ceil(size / base.length)).slice(0, size);
}

function image(bytes: number): ImageContent {
  return { type: "image", mimeType: "image/png", data: "A".repeat(Math.ceil((bytes * 4) / 3)) };
}

describe("limitToolOutput", () => {
  it("fits every output of 0 … 5 MB to the budget of every window of 4,000 … 1,000,000 tokens", () => {
    const settings = resolveCompactionSettings();
    fc.assert(
      fc.property(
        fc.integer({ min: 4_000, max: 1_000_000 }),
        fc.oneof(fc.integer({ min: 0, max: 5_000_000 }), fc.integer({ min: 0, max: 200_000 })),
        fc.string({ unit: fc.constantFrom("a", "b", "\n", "é", "😀", " "), maxLength: 120 }),
        (window, size, unit) => {
          const budget = contextBudget({ modelWindow: window, settings });
          const maxChars = toolOutputChars(budget.toolOutputTokens);
          expect(maxChars).toBe(Math.min(25_000, Math.max(200, Math.floor(window / 10))) * 4);
          const whole = textOf(unit, size);
          const content: TextContent[] = [{ type: "text", text: whole }];
          const limited = limitToolOutput(content, { maxChars, toolCallId: "call_1" });
          if (size <= maxChars) {
            expect(limited.content).toBe(content);
            expect(limited.cut).toBeUndefined();
            return;
          }
          expect(limited.content).toHaveLength(1);
          const seen = (limited.content[0] as TextContent).text;
          const note = limited.note!;
          expect(seen.length).toBeLessThanOrEqual(maxChars + note.length);
          const match = NOTE.exec(note);
          expect(match).not.toBeNull();
          const headChars = number(match![1]);
          const tailChars = number(match![2]);
          expect(number(match![3])).toBe(size);
          expect(JSON.parse(match![4]!)).toEqual({ toolCallId: "call_1", offset: headChars });
          // Head and tail are exact slices of the original, around the note.
          expect(seen).toBe(whole.slice(0, headChars) + note + whole.slice(size - tailChars));
          expect(headChars + tailChars).toBeLessThanOrEqual(maxChars);
          // At least half of each part is shown (line ends are taken only in the outer half).
          expect(headChars + tailChars).toBeGreaterThanOrEqual(Math.floor(maxChars / 2) - 2);
          expect(limited.cut).toEqual({
            totalChars: size,
            shownChars: headChars + tailChars,
            nextOffset: headChars,
          });
          expect(limited.text).toBe(whole);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("cuts at line ends and never inside a surrogate pair", () => {
    const lines = Array.from({ length: 100 }, (_, index) => `line ${index} ${"😀".repeat(index % 7)}`).join(
      "\n",
    );
    const limited = limitToolOutput([{ type: "text", text: lines }], { maxChars: 500, toolCallId: "c" });
    const seen = (limited.content[0] as TextContent).text;
    const head = seen.slice(0, limited.cut!.nextOffset);
    expect(head.endsWith("\n")).toBe(true);
    const tail = seen.slice(seen.length - (limited.cut!.shownChars - limited.cut!.nextOffset!));
    expect(tail.startsWith("line ")).toBe(true);
    expect(seen).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  it("keeps small images, leaves out what does not fit with a note, and joins text blocks", () => {
    const small = image(100);
    const fits = limitToolOutput([{ type: "text", text: "a" }, small, { type: "text", text: "b" }], {
      maxChars: IMAGE_CHARS + 10,
      toolCallId: "c",
    });
    expect(fits.cut).toBeUndefined();

    const twoImages = limitToolOutput([{ type: "text", text: "caption" }, image(100), image(200)], {
      maxChars: IMAGE_CHARS * 2 + 5,
      toolCallId: "c",
    });
    // The text keeps up to half of the budget: one image fits beside it, the second is left out.
    expect(twoImages.content.map((block) => block.type)).toEqual(["text", "image", "text"]);
    expect((twoImages.content[0] as TextContent).text).toBe("caption");
    expect((twoImages.content[2] as TextContent).text).toBe(
      "[Left out to fit the context: 1 image (image/png, 200 bytes). Kept in the session; recall returns text only.]",
    );
    expect(twoImages.cut).toEqual({ totalChars: 7, shownChars: 7, imagesLeftOut: 1 });
    expect(twoImages.leftOut).toHaveLength(1);

    const joined = limitToolOutput(
      [
        { type: "text", text: "x".repeat(300) },
        { type: "text", text: "y".repeat(300) },
      ],
      { maxChars: 100, toolCallId: "c" },
    );
    expect(joined.text).toBe(`${"x".repeat(300)}\n${"y".repeat(300)}`);
    expect(joined.cut?.totalChars).toBe(601);
  });
});

describe("budgetToolResult", () => {
  const call = (details: unknown) =>
    ({
      toolCall: { type: "toolCall", id: "call_9", name: "dump", arguments: {} },
      result: { content: [{ type: "text", text: "z".repeat(1_000) }], details },
      isError: false,
    }) as unknown as AfterToolCallContext;

  it("adds outputCut to object details, keeps other details, and applies to what the hooks left", () => {
    const withObject = budgetToolResult(call({ a: 1 }), undefined, 50);
    expect(withObject.patch?.details).toEqual({
      a: 1,
      outputCut: { totalChars: 1_000, shownChars: 200, nextOffset: 160 },
    });
    expect(withObject.record).toEqual({
      toolCallId: "call_9",
      toolName: "dump",
      text: "z".repeat(1_000),
      totalChars: 1_000,
    });
    expect(budgetToolResult(call("kept as is"), undefined, 50).patch?.details).toBeUndefined();
    expect(budgetToolResult(call(undefined), undefined, 50).patch?.details).toEqual({
      outputCut: { totalChars: 1_000, shownChars: 200, nextOffset: 160 },
    });
    // A hook that shortened the result already: nothing more to cut.
    const patched = budgetToolResult(call({ a: 1 }), { content: [{ type: "text", text: "short" }] }, 50);
    expect(patched).toEqual({ patch: { content: [{ type: "text", text: "short" }] } });
    // Under the budget: the hooks' patch as it was.
    expect(budgetToolResult(call({ a: 1 }), undefined, 1_000)).toEqual({ patch: undefined });
  });

  it("leaves out an MCP structuredContent larger than the budget (it repeats the output kept whole)", () => {
    const large = budgetToolResult(call({ structuredContent: { rows: "r".repeat(1_000) } }), undefined, 50);
    expect(large.patch?.details).toEqual({
      structuredContentLeftOut: 1_011,
      outputCut: { totalChars: 1_000, shownChars: 200, nextOffset: 160 },
    });
    const small = budgetToolResult(call({ structuredContent: { ok: true } }), undefined, 50);
    expect(small.patch?.details).toMatchObject({ structuredContent: { ok: true } });
  });
});
