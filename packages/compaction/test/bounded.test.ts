import {
  estimateContextChars,
  type ScriptedProvider,
  type ScriptedResponder,
  script,
} from "@arbor/ai-providers/testing";
import type { Session } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import {
  type CompactionPreparation,
  type CompactionResult,
  type CompactOutcome,
  compact,
  defaultCompactionStrategy,
  estimateContextTokens,
  HISTORY_PROMPT,
  HISTORY_UPDATE_PROMPT,
  prepareCompaction,
  resolveCompactionSettings,
  shouldCompact,
} from "../src/index.js";
import { appendTurn, filler, newSession, provider, requestText, tokensFromTurn } from "./helpers.js";

function compacted(outcome: CompactOutcome): CompactionResult {
  if (outcome.kind !== "compacted") throw new Error("compaction was aborted");
  return outcome;
}

/** A responder that answers every call with a numbered summary (kept by call index). */
function foldingResponder(outputs: string[]): ScriptedResponder {
  return (recorded) => {
    const text = `## Goal\n- running summary #${recorded.index + 1}`;
    outputs[recorded.index] = text;
    return script.text(text);
  };
}

/** Every call's input (chars / 4) plus its output cap fits the model's window. */
function expectCallsFit(model: ScriptedProvider): void {
  for (const recorded of model.calls) {
    const input = Math.ceil(estimateContextChars(recorded.context) / 4);
    expect(input + Number(recorded.options.maxTokens)).toBeLessThanOrEqual(recorded.model.contextWindow);
  }
}

/** A session of `turns` coding turns whose reads return `size` characters each. */
async function longSession(turns: number, size: number): Promise<Session> {
  const { session, ...builders } = await newSession();
  for (let turn = 1; turn <= turns; turn++)
    appendTurn(session, builders, turn, { size, read: `src/module-${turn}.ts` });
  return session;
}

function ready(
  session: Session,
  settings = resolveCompactionSettings(),
  contextWindow?: number,
): CompactionPreparation {
  const plan = prepareCompaction(session.getBranch(), settings, { contextWindow });
  if (plan.kind !== "ready") throw new Error(`nothing to compact: ${plan.reason}`);
  return plan;
}

describe("bounded summarization", () => {
  it("summarizes a history 5× the summarizer's window in chunks folded by UPDATE, every call within the window", async () => {
    // The session's model is the summarizer: an 8,000-token window, already far over its limit.
    const outputs: string[] = [];
    const model = provider(foldingResponder(outputs), { contextWindow: 8000, maxTokens: 4096 });
    // Uncapped calls: every chunk goes to the model.
    const settings = resolveCompactionSettings({ reserveTokens: 2000, maxSummarizerCalls: 100 });
    const session = await longSession(60, 3000);
    const before = estimateContextTokens(session.buildContext().messages).tokens;
    expect(before).toBeGreaterThan(5 * 8000);
    expect(shouldCompact(before, 8000, settings)).toBe(true);

    const preparation = ready(session, { ...settings, toolResultMaxChars: 4000 }, 8000);
    expect(preparation.keepRecentTokens).toBe(3000);
    expect(preparation.summarizedTokens).toBeGreaterThan(5 * 8000);
    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    expect(model.unexpectedCalls).toBe(0);
    expect(model.remaining).toBe(0);
    const calls = model.calls;
    expect(calls.length).toBeGreaterThanOrEqual(5);
    expectCallsFit(model);
    // The cap (0.8 × 2,000) is shared by the history, the split turn's beginning and the file lists.
    const caps = new Set(calls.map((recorded) => Number(recorded.options.maxTokens)));
    expect(caps.size).toBe(2);
    expect([...caps].reduce((sum, cap) => sum + cap, 0)).toBeLessThanOrEqual(1600);
    expect(Math.ceil(result.summary.length / 4)).toBeLessThanOrEqual(1600);
    // A split turn's beginning is summarized in parallel; the history calls fold one into the next.
    const history = calls
      .map((recorded) => ({ prompt: requestText(recorded), output: outputs[recorded.index]! }))
      .filter(({ prompt }) => prompt.endsWith(HISTORY_PROMPT) || prompt.endsWith(HISTORY_UPDATE_PROMPT));
    expect(history.length).toBeGreaterThanOrEqual(5);
    expect(history[0]!.prompt.endsWith(HISTORY_PROMPT)).toBe(true);
    expect(history[0]!.prompt).not.toContain("<previous-summary>");
    for (let index = 1; index < history.length; index++) {
      expect(history[index]!.prompt).toContain(
        `<previous-summary>\n${history[index - 1]!.output}\n</previous-summary>`,
      );
      expect(history[index]!.prompt.endsWith(HISTORY_UPDATE_PROMPT)).toBe(true);
    }
    const prompts = history.map(({ prompt }) => prompt);
    // Every summarized request reached exactly one call.
    const lastSummarizedTurn = Number(/Request (\d+):/.exec(prompts.at(-1)!.split("[User]: ").at(-1)!)?.[1]);
    for (let turn = 1; turn <= lastSummarizedTurn; turn++) {
      const marker = `[User]: Request ${turn}: please`;
      expect(prompts.filter((text) => text.includes(marker))).toHaveLength(1);
    }

    expect(preparation.isSplitTurn).toBe(true);
    expect(result.summary.startsWith(`${history.at(-1)!.output}\n\n---\n\n`)).toBe(true);
    expect(result.summary).toContain("\n\nFiles read: src/module-1.ts, ");
    expect(result.details.calls).toBe(calls.length);
    expect(result.details.fallback).toBeUndefined();
    session.appendCompaction({ ...result, details: result.details });
    const after = estimateContextTokens(session.buildContext().messages).tokens;
    expect(after).toBe(result.tokensAfter);
    expect(after).toBeLessThan(8000 - 2000);
  });

  it("falls back to a deterministic digest when the model errors, and still frees space", async () => {
    const session = await longSession(6, 2000);
    const model = provider([script.error('529 {"type":"overloaded_error"}')]);
    const preparation = ready(
      session,
      resolveCompactionSettings({ keepRecentTokens: tokensFromTurn(session.getBranch(), 5) }),
    );

    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    model.assertDone();
    expect(result.details.fallback).toEqual({
      reason: "model_error",
      message: '529 {"type":"overloaded_error"}',
      call: 1,
    });
    expect(result.summary.startsWith("[Automatic digest: the summarizer could not be used (529")).toBe(true);
    expect(result.summary).toContain(
      "## User Requests\n- Request 1: please look at src/module-1.ts\n- Request 2: please look at src/module-2.ts",
    );
    expect(result.summary).toContain(
      "- Request 4: please look at src/module-4.ts\n\n## Last Assistant Message\nAnswer 4: done",
    );
    expect(result.summary).not.toContain("Request 5");
    expect(
      result.summary.endsWith(
        "Files read: src/module-1.ts, src/module-2.ts, src/module-3.ts, src/module-4.ts",
      ),
    ).toBe(true);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it("falls back when the model returns empty text or ends aborted on its own", async () => {
    const session = await longSession(6, 2000);
    const preparation = ready(
      session,
      resolveCompactionSettings({ keepRecentTokens: tokensFromTurn(session.getBranch(), 5) }),
    );
    const empty = provider([script.text("  \n ")]);
    const emptyResult = compacted(await compact(preparation, { stream: empty.stream, model: empty.model }));
    expect(emptyResult.details.fallback).toMatchObject({ reason: "empty_summary", call: 1 });
    expect(emptyResult.summary).toContain("## User Requests");

    const cut = provider([
      { kind: "failure", reason: "aborted", errorMessage: "stream cancelled upstream", parts: [] },
    ]);
    const cutResult = compacted(await compact(preparation, { stream: cut.stream, model: cut.model }));
    expect(cutResult.details.fallback).toMatchObject({
      reason: "model_aborted",
      message: "stream cancelled upstream",
    });
  });

  it("keeps the summaries of the chunks done when a later chunk fails", async () => {
    const model = provider([script.text("## Goal\n- chunk one summary"), script.error("connection reset")], {
      contextWindow: 8000,
      maxTokens: 4096,
    });
    const session = await longSession(30, 3000);
    const keepRecentTokens = tokensFromTurn(session.getBranch(), 29); // whole turns: no split turn
    const preparation = ready(
      session,
      resolveCompactionSettings({ reserveTokens: 2000, toolResultMaxChars: 4000, keepRecentTokens }),
    );

    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    model.assertDone();
    expectCallsFit(model);
    expect(result.details.fallback).toEqual({ reason: "model_error", message: "connection reset", call: 2 });
    expect(result.summary).toContain("## Summary so far\n## Goal\n- chunk one summary");
    const firstChunk = requestText(model.calls[0]!);
    expect(firstChunk).toContain("Request 1:");
    expect(result.summary).not.toContain("Request 1:"); // summarized by chunk one, not in the digest
    expect(result.summary.length).toBeLessThanOrEqual(1600 * 4 + 2000);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it("retries a call the provider rejects as too long with half the conversation", async () => {
    const outputs: string[] = [];
    const model = provider(foldingResponder(outputs), { contextWindow: 8000, maxTokens: 4096 });
    model.push(script.overflow());
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 8; turn++) appendTurn(session, builders, turn, { size: 2000 });
    const preparation = ready(
      session,
      resolveCompactionSettings({
        reserveTokens: 2000,
        keepRecentTokens: tokensFromTurn(session.getBranch(), 8),
      }),
    );

    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    const conversations = model.calls.map((recorded) => requestText(recorded).split("</conversation>")[0]!);
    expect(conversations[0]).toContain("Request 7:"); // the whole history fitted the first attempt
    expect(conversations[1]!.length).toBeLessThan(conversations[0]!.length);
    expect(conversations[1]).not.toContain("Request 7:");
    expect(model.calls.length).toBeGreaterThanOrEqual(3);
    expect(requestText(model.calls[2]!)).toContain(`<previous-summary>\n${outputs[1]}\n</previous-summary>`);
    expect(result.details.fallback).toBeUndefined();
    expect(result.details.calls).toBe(model.calls.length);
  });

  it("uses the fallback without a call when the summarizer's window cannot hold a prompt", async () => {
    const session = await longSession(6, 2000);
    const preparation = ready(
      session,
      resolveCompactionSettings({ keepRecentTokens: tokensFromTurn(session.getBranch(), 5) }),
    );
    const tiny = provider([], { contextWindow: 600, maxTokens: 4096 });
    const result = compacted(await compact(preparation, { stream: tiny.stream, model: tiny.model }));
    expect(tiny.calls).toHaveLength(0);
    expect(result.details).toMatchObject({ calls: 0, fallback: { reason: "window_too_small" } });
    expect(result.summary.length).toBeLessThanOrEqual(150 * 4 + 200);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it("treats a stream function that throws as a failed call", async () => {
    const session = await longSession(6, 2000);
    const preparation = ready(
      session,
      resolveCompactionSettings({ keepRecentTokens: tokensFromTurn(session.getBranch(), 5) }),
    );
    const model = provider();
    const throwing: typeof model.stream = () => {
      throw new Error("socket closed");
    };
    const result = compacted(
      await defaultCompactionStrategy.compact(preparation, { stream: throwing, model: model.model }),
    );
    expect(result.details.fallback).toEqual({
      reason: "model_error",
      message: "the summarizer's stream function threw: socket closed",
      call: 1,
    });
    expect(defaultCompactionStrategy.prepare).toBe(prepareCompaction);
  });

  it("cuts a single message larger than a call's budget instead of failing", async () => {
    const { session, user, assistant } = await newSession();
    session.appendMessage(user(`Paste: ${filler(200_000, "paste")}`));
    session.appendMessage(assistant("Read it."));
    session.appendMessage(user("Now summarize it."));
    session.appendMessage(assistant("Done."));
    const model = provider([script.text("## Goal\n- a paste"), script.text("## Goal\n- a paste, read")], {
      contextWindow: 8000,
      maxTokens: 4096,
    });
    const preparation = ready(
      session,
      resolveCompactionSettings({ reserveTokens: 2000, keepRecentTokens: 5 }),
    );
    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));
    model.assertDone();
    expectCallsFit(model);
    expect(requestText(model.calls[0]!)).toMatch(/characters omitted/);
    expect(requestText(model.calls[1]!)).toContain(
      "<previous-summary>\n## Goal\n- a paste\n</previous-summary>",
    );
    expect(requestText(model.calls[1]!)).toContain("[Assistant]: Read it.");
    expect(result.details.fallback).toBeUndefined();
    expect(result.summary).toBe("## Goal\n- a paste, read");
  });
});
