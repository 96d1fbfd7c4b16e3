import { getEventListeners } from "node:events";
import type { StreamFn } from "@arbor/ai-providers";
import { type ScriptedProvider, type ScriptedStep, script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import {
  type CompactionResult,
  type CompactOutcome,
  compact,
  DEFAULT_COMPACTION_SETTINGS,
  DEFAULT_MAX_SUMMARIZER_CALLS,
  prepareCompaction,
  resolveCompactionSettings,
} from "../src/index.js";
import { appendTurn, filler, newSession, provider, requestText } from "./helpers.js";

function compacted(outcome: CompactOutcome): CompactionResult {
  if (outcome.kind !== "compacted") throw new Error("compaction was aborted");
  return outcome;
}

/** A summarizer that answers every call with a short summary naming the call; re-arms itself. */
function answering(): ScriptedProvider {
  let model!: ScriptedProvider;
  const step: ScriptedStep = script.dynamic((recorded) => {
    model.push(step);
    return script.text(`## Goal\n- summary of call ${recorded.index + 1} ${filler(200, "summary")}`);
  });
  model = provider([step], { contextWindow: 8000, maxTokens: 4096 });
  return model;
}

/** A session of `turns` coding turns whose history is many times an 8,000-token window. */
async function longPlan(
  turns: number,
  settings: NonNullable<Parameters<typeof resolveCompactionSettings>[0]>,
) {
  const { session, ...builders } = await newSession();
  for (let turn = 1; turn <= turns; turn++) appendTurn(session, builders, turn, { size: 3000 });
  const plan = prepareCompaction(
    session.getBranch(),
    resolveCompactionSettings({ reserveTokens: 2000, toolResultMaxChars: 4000, ...settings }),
    { contextWindow: 8000 },
  );
  if (plan.kind !== "ready") throw new Error(`nothing to compact: ${plan.reason}`);
  return plan;
}

describe("the cap on summarizer calls per compaction", () => {
  it("defaults to 3 calls", () => {
    expect(DEFAULT_MAX_SUMMARIZER_CALLS).toBe(3);
    expect(DEFAULT_COMPACTION_SETTINGS.maxSummarizerCalls).toBe(3);
    expect(resolveCompactionSettings().maxSummarizerCalls).toBe(3);
    expect(() => resolveCompactionSettings({ maxSummarizerCalls: 0 })).toThrow(/maxSummarizerCalls/);
  });

  it("makes at most the default 3 calls for a history that needs dozens, the oldest part digested", async () => {
    const plan = await longPlan(200, { keepRecentTokens: 3000 });
    const model = answering();
    const result = compacted(await compact(plan, { stream: model.stream, model: model.model }));
    expect(model.calls.length).toBeLessThanOrEqual(3);
    expect(result.details.calls).toBe(model.calls.length);
    expect(result.details.digestedMessages).toBeGreaterThan(plan.messagesToSummarize.length / 2);
    expect(result.details.fallback).toBeUndefined();
    // The oldest history reached the model only as the deterministic digest, which the first call updates.
    const newest = plan.messagesToSummarize.findLast((message) => message.role === "user");
    const request = /Request \d+:/.exec(JSON.stringify(newest))![0];
    expect(model.calls.map(requestText).filter((text) => text.includes(`[User]: ${request}`))).toHaveLength(
      1,
    );
    const first = model.calls.map(requestText).find((text) => text.includes("<previous-summary>"));
    expect(first).toContain("[Automatic digest");
    expect(first).toContain("call cap");
    expect(model.calls.map(requestText).some((text) => text.includes("[User]: Request 1: please"))).toBe(
      false,
    );
  });

  it("follows the setting: 1 call, and more calls for the same history carry more of it", async () => {
    const one = await longPlan(200, { keepRecentTokens: 3000, maxSummarizerCalls: 1 });
    const single = answering();
    const capped = compacted(await compact(one, { stream: single.stream, model: single.model }));
    // A split turn's beginning keeps one call of its own; the history gets at least one.
    expect(single.calls.length).toBeLessThanOrEqual(one.isSplitTurn ? 2 : 1);

    const six = await longPlan(200, { keepRecentTokens: 3000, maxSummarizerCalls: 6 });
    const wider = answering();
    const more = compacted(await compact(six, { stream: wider.stream, model: wider.model }));
    expect(wider.calls.length).toBeGreaterThan(single.calls.length);
    expect(wider.calls.length).toBeLessThanOrEqual(6);
    expect(more.details.digestedMessages!).toBeLessThan(capped.details.digestedMessages!);
  });

  it("digests nothing when the history fits the allowed calls", async () => {
    const plan = await longPlan(12, { keepRecentTokens: 3000, maxSummarizerCalls: 50 });
    const model = answering();
    const result = compacted(await compact(plan, { stream: model.stream, model: model.model }));
    expect(result.details.digestedMessages).toBeUndefined();
    expect(model.calls.some((call) => requestText(call).includes("[User]: Request 1: please"))).toBe(true);
  });

  it("leaves no abort listener on one signal over many capped compactions (no MaxListenersExceededWarning)", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on("warning", onWarning);
    try {
      const controller = new AbortController();
      const model = answering();
      // Like an HTTP provider, the stream listens to the signal it is given and never lets go of it.
      const listening: StreamFn = (callModel, context, options) => {
        options?.signal?.addEventListener("abort", () => undefined);
        return model.stream(callModel, context, options);
      };
      const plan = await longPlan(80, { keepRecentTokens: 3000 });
      for (let round = 0; round < 15; round++) {
        compacted(await compact(plan, { stream: listening, model: model.model, signal: controller.signal }));
      }
      expect(model.calls.length).toBeGreaterThan(15);
      expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.name === "MaxListenersExceededWarning")).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  });
});
