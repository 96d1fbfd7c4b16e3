import { type AgentTool, defineTool, Type } from "@arbor/agent-core";
import type { Context, ToolResultMessage } from "@arbor/ai-providers";
import { script } from "@arbor/ai-providers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  RECALL_TOOL_NAME,
  type RecallToolDetails,
  TOOL_OUTPUT_ENTRY,
  type ToolOutputRecord,
} from "../src/index.js";
import {
  createStoreFixture,
  createTestHarness,
  STORE_KINDS,
  type StoreFixture,
  storedEntries,
  textOf,
} from "./helpers.js";

/** About 2 MB of numbered lines: every slice of it is recognizable. */
function bigOutput(chars: number): string {
  const lines: string[] = [];
  let length = 0;
  for (let index = 0; length < chars; index++) {
    const line = `${String(index).padStart(7, "0")} ${"abcdefghijklmnopqrstuvwxyz".repeat(1 + (index % 3))}`;
    lines.push(line);
    length += line.length + 1;
  }
  return lines.join("\n").slice(0, chars);
}

const TWO_MB = 2_090_880;
const WHOLE = bigOutput(TWO_MB);

/** A tool that returns `text` (and optionally says how much of it the model may see). */
function outputTool(text: string, options: { name?: string; maxOutputTokens?: number } = {}): AgentTool {
  const tool = defineTool({
    name: options.name ?? "dump",
    description: "Returns a large output",
    parameters: Type.Object({}),
    execute: () => ({ content: [{ type: "text", text }], details: { source: "test" } }),
  }) as unknown as AgentTool;
  if (options.maxOutputTokens !== undefined) tool.maxOutputTokens = options.maxOutputTokens;
  return tool;
}

/** The tool result with `toolCallId` in a model request. */
function resultIn(context: Context, toolCallId: string): ToolResultMessage {
  const found = context.messages.find(
    (message): message is ToolResultMessage =>
      message.role === "toolResult" && message.toolCallId === toolCallId,
  );
  if (found === undefined) throw new Error(`no result of ${toolCallId} in the request`);
  return found;
}

const NOTE =
  /\n\n\[Output cut to fit the context: showing the first ([\d,]+) and last ([\d,]+) of ([\d,]+) characters\. The whole output is kept in the session: call recall with (\{[^}]*\}) to read on\.\]\n\n/;

/** Splits what the model saw into head, note numbers and tail. */
function parseCut(seen: string) {
  const match = NOTE.exec(seen);
  if (match === null) throw new Error(`no cut note in: ${seen.slice(0, 200)}`);
  const number = (value: string) => Number(value.replaceAll(",", ""));
  return {
    head: seen.slice(0, match.index),
    tail: seen.slice(match.index + match[0].length),
    headChars: number(match[1]!),
    tailChars: number(match[2]!),
    totalChars: number(match[3]!),
    recallArguments: JSON.parse(match[4]!) as { toolCallId: string; offset: number },
    noteLength: match[0].length,
  };
}

describe.each(STORE_KINDS)("the tool-output budget (%s store)", (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture(kind);
  });
  afterEach(async () => fixture.cleanup());

  it("cuts a 2 MB result to the budget, keeps it whole in the session, and recall reads the rest exactly", async () => {
    // A 1M-token window: without the budget the whole 2 MB would be accepted and carried in every turn.
    const { harness, provider, errors } = createTestHarness(fixture, {
      steps: [
        script.toolCall("dump", {}, { id: "call_big" }),
        script.dynamic((call) => {
          const { recallArguments } = parseCut(textOf(resultIn(call.context, "call_big")));
          return script.toolCall(RECALL_TOOL_NAME, recallArguments, { id: "call_recall" });
        }),
        script.text("Read it."),
      ],
      model: { contextWindow: 1_000_000 },
      harness: { tools: [outputTool(WHOLE)] },
    });
    const session = await harness.newSession();
    await session.prompt("Dump it");
    expect(errors).toEqual([]);
    provider.assertDone();

    // The model saw 25,000 tokens' worth (100,000 characters) of the output, and a note.
    const budgetChars = 25_000 * 4;
    const seen = textOf(resultIn(provider.calls[1]!.context, "call_big"));
    const cut = parseCut(seen);
    expect(seen.length).toBeLessThanOrEqual(budgetChars + cut.noteLength);
    expect(seen.length).toBeGreaterThan(budgetChars * 0.9);
    expect(cut.totalChars).toBe(TWO_MB);
    expect(cut.head).toBe(WHOLE.slice(0, cut.headChars));
    expect(cut.tail).toBe(WHOLE.slice(TWO_MB - cut.tailChars));
    expect(cut.head.endsWith("\n")).toBe(true);
    expect(cut.recallArguments).toEqual({ toolCallId: "call_big", offset: cut.headChars });

    // The result message carries small metadata beside the tool's own details; the whole output is an entry.
    const stored = await storedEntries(fixture.store, session.id);
    const resultEntry = stored.find(
      (entry) => entry.type === "message" && entry.message.role === "toolResult",
    )!;
    expect(JSON.stringify(resultEntry).length).toBeLessThan(budgetChars * 1.1);
    const message = (resultEntry as { message: ToolResultMessage }).message;
    expect(message.details).toEqual({
      source: "test",
      outputCut: { totalChars: TWO_MB, shownChars: cut.headChars + cut.tailChars, nextOffset: cut.headChars },
    });
    const kept = stored.filter((entry) => entry.type === "custom" && entry.customType === TOOL_OUTPUT_ENTRY);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.parentId).toBe(resultEntry.id);
    const record = (kept[0] as { data: ToolOutputRecord }).data;
    expect(record).toEqual({ toolCallId: "call_big", toolName: "dump", text: WHOLE, totalChars: TWO_MB });

    // recall, called by the model while the cut result is in its context, returned the next page exactly.
    const recalled = resultIn(provider.calls[2]!.context, "call_recall");
    expect(recalled.isError).toBe(false);
    const firstPage = pageText(textOf(recalled), recalled.details as RecallToolDetails);
    expect(firstPage.length).toBeGreaterThan(10_000);
    expect(WHOLE.slice(cut.headChars, cut.headChars + firstPage.length)).toBe(firstPage);

    // Paging on from there, after a reopen, gives back the whole output.
    const store = await fixture.reopen();
    const { harness: reopened } = createTestHarness({ ...fixture, store }, {});
    const again = await reopened.openSession(session.id);
    expect(await readAll(again.activeTools, "call_big", 0)).toBe(WHOLE);
    expect(textOf(again.state.messages.at(-1))).toBe("Read it.");
  });

  it("leaves a result under the budget untouched and writes no entry", async () => {
    const text = bigOutput(50_000);
    const { harness, provider, errors } = createTestHarness(fixture, {
      steps: [script.toolCall("dump", {}, { id: "call_small" }), script.text("ok")],
      model: { contextWindow: 200_000 },
      harness: { tools: [outputTool(text)] },
    });
    const session = await harness.newSession();
    await session.prompt("Dump it");
    expect(errors).toEqual([]);
    const seen = resultIn(provider.calls[1]!.context, "call_small");
    expect(textOf(seen)).toBe(text);
    expect(seen.content).toHaveLength(1);
    const stored = await storedEntries(fixture.store, session.id);
    expect(stored.some((entry) => entry.type === "custom" && entry.customType === TOOL_OUTPUT_ENTRY)).toBe(
      false,
    );
    const message = stored.find((entry) => entry.type === "message" && entry.message.role === "toolResult");
    expect((message as { message: ToolResultMessage }).message.details).toEqual({ source: "test" });
    // recall reads an uncut result from the message itself.
    expect(await readAll(session.activeTools, "call_small", 0)).toBe(text);
  });

  it("gives a small window a proportionally small budget", async () => {
    const { harness, provider, errors } = createTestHarness(fixture, {
      steps: [script.toolCall("dump", {}, { id: "call_6k" }), script.text("ok")],
      model: { contextWindow: 6_000 },
      harness: { tools: [outputTool(WHOLE)] },
    });
    const session = await harness.newSession();
    await session.prompt("Dump it");
    expect(errors).toEqual([]);
    // 10% of 6,000 tokens: 600 tokens, 2,400 characters.
    const seen = textOf(resultIn(provider.calls[1]!.context, "call_6k"));
    const cut = parseCut(seen);
    expect(cut.headChars + cut.tailChars).toBeLessThanOrEqual(2_400);
    expect(cut.headChars + cut.tailChars).toBeGreaterThan(1_800);
    expect(seen.length).toBe(cut.headChars + cut.tailChars + cut.noteLength);
    expect(JSON.stringify(provider.calls[1]!.context).length / 4).toBeLessThan(6_000);
    // A page of recall fits the same budget.
    const page = await recallToolOf(session.activeTools).execute(
      { toolCallId: "call_6k", offset: cut.headChars } as never,
      { toolCallId: "paging", signal: new AbortController().signal, onUpdate: () => {} },
    );
    expect(textOf(page).length).toBeLessThanOrEqual(2_400);
    expect((page.details as RecallToolDetails).nextOffset).toBeGreaterThan(cut.headChars + 1_000);
  });

  it("uses the tool's own maxOutputTokens over the session's budget", async () => {
    const { harness, provider, errors } = createTestHarness(fixture, {
      steps: [
        script.toolCalls([
          { name: "dump", arguments: {}, id: "call_own" },
          { name: "plain", arguments: {}, id: "call_plain" },
        ]),
        script.text("ok"),
      ],
      model: { contextWindow: 200_000 },
      harness: {
        tools: [outputTool(WHOLE, { maxOutputTokens: 1_000 }), outputTool(WHOLE, { name: "plain" })],
      },
    });
    const session = await harness.newSession();
    await session.prompt("Dump both");
    expect(errors).toEqual([]);
    const own = parseCut(textOf(resultIn(provider.calls[1]!.context, "call_own")));
    expect(own.headChars + own.tailChars).toBeLessThanOrEqual(4_000);
    expect(own.headChars + own.tailChars).toBeGreaterThan(3_000);
    // The session's budget: 10% of 200,000 tokens = 20,000 tokens, 80,000 characters.
    const plain = parseCut(textOf(resultIn(provider.calls[1]!.context, "call_plain")));
    expect(plain.headChars + plain.tailChars).toBeLessThanOrEqual(80_000);
    expect(plain.headChars + plain.tailChars).toBeGreaterThan(70_000);
    // Each call keeps its own whole output, right after its own result.
    const stored = await storedEntries(fixture.store, session.id);
    const kinds = stored
      .filter((entry) => entry.type === "message" || entry.type === "custom")
      .map((entry) =>
        entry.type === "custom" ? (entry.data as ToolOutputRecord).toolCallId : entry.message.role,
      );
    expect(kinds).toEqual([
      "user",
      "assistant",
      "toolResult",
      "call_own",
      "toolResult",
      "call_plain",
      "assistant",
    ]);
    expect(await readAll(session.activeTools, "call_plain", plain.headChars)).toBe(
      WHOLE.slice(plain.headChars),
    );
  });

  it("answers recall for an unknown call, an offset past the end, and mixed arguments with errors", async () => {
    const { harness, errors } = createTestHarness(fixture, {
      steps: [script.toolCall("dump", {}, { id: "call_x" }), script.text("ok")],
      harness: { tools: [outputTool("short")] },
    });
    const session = await harness.newSession();
    await session.prompt("Dump it");
    expect(errors).toEqual([]);
    const recall = recallToolOf(session.activeTools);
    const run = async (args: Record<string, unknown>) => {
      const result = await recall.execute(args as never, {
        toolCallId: "t",
        signal: new AbortController().signal,
        onUpdate: () => {},
      });
      return { text: textOf(result), isError: result.isError === true };
    };
    expect(await run({ toolCallId: "call_nope" })).toMatchObject({ isError: true });
    expect((await run({ toolCallId: "call_nope" })).text).toContain('No result of a tool call "call_nope"');
    expect((await run({ toolCallId: "call_x", offset: 5 })).text).toContain("past the end");
    expect((await run({ toolCallId: "call_x", query: "x" })).text).toContain("toolCallId alone");
    expect(await run({ toolCallId: "call_x" })).toEqual({
      text: "Output of dump (call call_x), characters 0–5 of 5:\nshort",
      isError: false,
    });
  });
});

function recallToolOf(tools: readonly AgentTool[]): AgentTool {
  const tool = tools.find((candidate) => candidate.name === RECALL_TOOL_NAME);
  if (tool === undefined) throw new Error("no recall tool");
  return tool;
}

/** The page of the output a recall result shows (after its header line). */
function pageText(text: string, details: RecallToolDetails): string {
  const start = text.indexOf("\n") + 1;
  const end = details.nextOffset ?? details.totalChars;
  return text.slice(start, start + end - (details.offset ?? 0));
}

/** Pages through a call's whole output with recall, from `offset`. */
async function readAll(tools: readonly AgentTool[], toolCallId: string, offset: number): Promise<string> {
  const recall = recallToolOf(tools);
  let text = "";
  let next: number | undefined = offset;
  while (next !== undefined) {
    const result = await recall.execute({ toolCallId, offset: next } as never, {
      toolCallId: "paging",
      signal: new AbortController().signal,
      onUpdate: () => {},
    });
    expect(result.isError).not.toBe(true);
    const details = result.details as RecallToolDetails;
    expect(details.offset).toBe(next);
    text += pageText(textOf(result), details);
    next = details.nextOffset;
  }
  return text;
}
