import { getEventListeners } from "node:events";
import type { AssistantStream, StreamFn } from "@arbor/ai-providers";
import { type ScriptedProvider, type ScriptedStep, script } from "@arbor/ai-providers/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  type CompactionPreparation,
  type CompactionResult,
  type CompactOutcome,
  collectEntriesForBranchSummary,
  compact,
  effectiveCompactionSettings,
  elideOversizedMessages,
  estimateContextTokens,
  formatFileOperations,
  generateBranchSummary,
  prepareCompaction,
  resolveCompactionSettings,
  summaryOutputTokens,
} from "../src/index.js";
import { appendTurn, call, filler, newSession, provider, requestText } from "./helpers.js";

function compacted(outcome: CompactOutcome): CompactionResult {
  if (outcome.kind !== "compacted") throw new Error("compaction was aborted");
  return outcome;
}

function ready(plan: ReturnType<typeof prepareCompaction>): CompactionPreparation {
  if (plan.kind !== "ready") throw new Error(`nothing to compact: ${plan.reason}`);
  return plan;
}

/** A summarizer that answers every call with `chars(call)` characters, ignoring `maxTokens`; re-arms itself. */
function sizedSummarizer(chars: (maxTokens: number) => number): ScriptedProvider {
  let model!: ScriptedProvider;
  const step: ScriptedStep = script.dynamic((recorded) => {
    model.push(step);
    const size = chars(Number(recorded.options.maxTokens));
    return script.text(`## Goal\n${filler(Math.max(0, size - 8), "summary")}`);
  });
  model = provider([step]);
  return model;
}

/** A stream function that never answers and ignores its signal. */
const hanging: StreamFn = () =>
  ({
    [Symbol.asyncIterator]: () => ({ next: () => new Promise(() => undefined) }),
    result: () => new Promise(() => undefined),
  }) as unknown as AssistantStream;

afterEach(() => {
  vi.useRealTimers();
});

describe("the output cap", () => {
  it("holds a summarizer that ignores max_tokens to the cap: its summary is replaced whole, file lists kept", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 40; turn++)
      appendTurn(session, builders, turn, { size: 8000, edit: `src/edit-${turn}.ts` });
    const settings = resolveCompactionSettings({ keepRecentTokens: 4000 });
    const plan = ready(prepareCompaction(session.getBranch(), settings));
    const enormous = sizedSummarizer(() => 2_000_000);

    const result = compacted(await compact(plan, { stream: enormous.stream, model: enormous.model }));

    const cap = summaryOutputTokens(enormous.model, settings.reserveTokens);
    expect(Math.ceil(result.summary.length / 4)).toBeLessThanOrEqual(cap);
    // Asked twice for a shorter summary, it answered 2,000,000 characters again: the digest replaced it.
    expect(result.details.summaryShrunk).toBe("digest");
    expect(result.details.summarySizes).toMatchObject({ shrinkCalls: 2, digestReason: "still_too_long" });
    expect(result.details.summarySizes!.writtenTokens).toBeGreaterThanOrEqual(500_000);
    expect(result.details.summarySizes!.finalTokens).toBeLessThanOrEqual(
      result.details.summarySizes!.limitTokens,
    );
    expect(result.summary).not.toContain("characters omitted");
    expect(
      result.summary.startsWith("[Automatic digest: the summarizer could not be used (its summary"),
    ).toBe(true);
    expect(result.summary.endsWith(formatFileOperations(plan.fileOperations))).toBe(true);
    expect(result.summary).toContain("Files modified: src/edit-1.ts, src/edit-10.ts");
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it("keeps both parts of a split turn together within the cap (each part at its max_tokens)", async () => {
    const { session, user, assistant, result } = await newSession();
    session.appendMessage(user("Refactor the parser"));
    for (let step = 1; step <= 30; step++) {
      session.appendMessage(assistant([call(`r${step}`, "read", { path: `src/p${step}.ts` })]));
      session.appendMessage(result(`r${step}`, filler(6000, `chunk${step}`)));
    }
    session.appendMessage(assistant("Done reading."));
    const settings = resolveCompactionSettings({ reserveTokens: 7500, keepRecentTokens: 6000 });
    const plan = ready(prepareCompaction(session.getBranch(), settings));
    expect(plan.isSplitTurn).toBe(true);
    const exact = sizedSummarizer((maxTokens) => maxTokens * 4);

    const outcome = compacted(await compact(plan, { stream: exact.stream, model: exact.model }));

    expect(summaryOutputTokens(exact.model, 7500)).toBe(6000);
    expect(Math.ceil(outcome.summary.length / 4)).toBeLessThanOrEqual(6000);
    const asked = exact.calls.map((recorded) => Number(recorded.options.maxTokens));
    expect(asked.reduce((sum, value) => sum + value, 0)).toBeLessThanOrEqual(6000);
  });
});

describe("an over-budget previous summary with a short tail", () => {
  async function hugeSummarySession() {
    const { session, ...builders } = await newSession();
    appendTurn(session, builders, 1, { read: "src/old.ts" });
    const kept = session.appendMessage(builders.user("Request 2: continue"));
    session.appendMessage(builders.assistant("Continuing."));
    session.appendCompaction({
      summary: `## Goal\n- the original goal\n${filler(1_200_000, "history")}\n## Next Steps\n1. finish`,
      firstKeptEntryId: kept.id,
      tokensBefore: 400_000,
      details: { readFiles: ["src/old.ts"], modifiedFiles: [] },
    });
    session.appendMessage(builders.user("Request 3: one more thing"));
    session.appendMessage(builders.assistant("Sure."));
    return session;
  }

  it("is summarized again, bounded, and frees space", async () => {
    const session = await hugeSummarySession();
    const settings = resolveCompactionSettings();
    const plan = ready(prepareCompaction(session.getBranch(), settings, { contextWindow: 200_000 }));
    expect(plan.resummarizesPrevious).toBe(true);
    expect(plan.messagesToSummarize).toEqual([]);
    let model!: ScriptedProvider;
    const step: ScriptedStep = script.dynamic(() => {
      model.push(step);
      return script.text("## Goal\n- the original goal, condensed");
    });
    model = provider([step], { contextWindow: 200_000 });

    const result = compacted(await compact(plan, { stream: model.stream, model: model.model }));

    expect(model.calls.length).toBeGreaterThan(0);
    expect(model.calls.length).toBeLessThanOrEqual(4);
    for (const recorded of model.calls) {
      expect(Math.ceil(requestText(recorded).length / 4)).toBeLessThan(200_000);
    }
    expect(result.summary.startsWith("## Goal\n- the original goal, condensed")).toBe(true);
    expect(result.summary).toContain("Files read: src/old.ts");
    expect(Math.ceil(result.summary.length / 4)).toBeLessThanOrEqual(
      summaryOutputTokens(model.model, settings.reserveTokens),
    );
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore / 10);
    session.appendCompaction({ ...result, details: result.details });
    expect(estimateContextTokens(session.buildContext().messages).tokens).toBe(result.tokensAfter);
    expect(prepareCompaction(session.getBranch(), settings).kind).toBe("nothing_to_compact");
  });

  it("is over budget above summaryCapTokens (default 0.8 × reserveTokens)", async () => {
    const { session, ...builders } = await newSession();
    const kept = session.appendMessage(builders.user("Continue"));
    session.appendCompaction({
      summary: filler(20_000, "summary"),
      firstKeptEntryId: kept.id,
      tokensBefore: 9000,
    });
    session.appendMessage(builders.user("Next"));
    const settings = resolveCompactionSettings();
    expect(prepareCompaction(session.getBranch(), settings).kind).toBe("nothing_to_compact");
    const plan = prepareCompaction(session.getBranch(), settings, { summaryCapTokens: 4000 });
    expect(plan.kind === "ready" && plan.resummarizesPrevious).toBe(true);
    if (plan.kind === "ready") expect(plan.firstKeptEntryId).toBe(kept.id);
  });

  it("falls back to the deterministic digest of the summary when the model fails", async () => {
    const session = await hugeSummarySession();
    const plan = ready(prepareCompaction(session.getBranch(), resolveCompactionSettings()));
    const failing = provider([script.error("503 unavailable")]);
    const result = compacted(await compact(plan, { stream: failing.stream, model: failing.model }));
    expect(result.details.fallback?.reason).toBe("model_error");
    expect(result.summary).toContain("the original goal");
    expect(Math.ceil(result.summary.length / 4)).toBeLessThanOrEqual(Math.floor(0.8 * 16_384));
  });
});

describe("a summarizer call that never answers", () => {
  it("is abandoned after timeoutMs and the fallback applies", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 6; turn++) appendTurn(session, builders, turn);
    const settings = resolveCompactionSettings({ keepRecentTokens: 1000, timeoutMs: 60_000 });
    const plan = ready(prepareCompaction(session.getBranch(), settings));
    const model = provider().model;
    const running = compact(plan, { stream: hanging, model });
    await vi.advanceTimersByTimeAsync(60_000);
    const result = compacted(await running);
    expect(result.details.fallback?.reason).toBe("timeout");
    expect(result.details.fallback?.message).toContain("60000 ms");
    expect(result.summary).toContain("Request 1: please look at src/file-1.ts");
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it("stops at the caller's abort even when the stream ignores its signal (no timeout)", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 6; turn++) appendTurn(session, builders, turn);
    const settings = resolveCompactionSettings({ keepRecentTokens: 1000, timeoutMs: 0 });
    const plan = ready(prepareCompaction(session.getBranch(), settings));
    const controller = new AbortController();
    const running = compact(plan, { stream: hanging, model: provider().model, signal: controller.signal });
    controller.abort();
    expect((await running).kind).toBe("aborted");
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  it("leaves no abort listener on the caller's signal after many calls", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 60; turn++) appendTurn(session, builders, turn, { size: 3000 });
    const settings = resolveCompactionSettings({
      reserveTokens: 2000,
      toolResultMaxChars: 4000,
      maxSummarizerCalls: 100,
    });
    const plan = ready(prepareCompaction(session.getBranch(), settings, { contextWindow: 8000 }));
    const model = sizedSummarizer(() => 200);
    model.model.contextWindow = 8000;
    // Like an HTTP provider, the stream listens to the signal it is given and never lets go of it.
    const listening: StreamFn = (callModel, context, options) => {
      options?.signal?.addEventListener("abort", () => undefined);
      return model.stream(callModel, context, options);
    };
    const controller = new AbortController();
    const result = compacted(
      await compact(plan, { stream: listening, model: model.model, signal: controller.signal }),
    );
    expect(result.details.calls).toBeGreaterThan(5);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("branch summaries", () => {
  it("leave out a compaction whose summary covers entries still on the new path", async () => {
    const { session, user, assistant, result } = await newSession();
    session.appendMessage(user("Common work"));
    session.appendMessage(assistant([call("c1", "read", { path: "src/common.ts" })]));
    session.appendMessage(result("c1", "common"));
    const target = session.appendMessage(assistant("Common work done."));
    session.appendMessage(user("Abandoned attempt"));
    const kept = session.appendMessage(assistant([call("a1", "edit", { path: "src/abandoned.ts" })]));
    session.appendMessage(result("a1", "edited", { toolName: "edit" }));
    session.appendCompaction({
      summary: "COMMON-PATH-SUMMARY: the common work on src/common.ts",
      firstKeptEntryId: kept.id,
      tokensBefore: 1000,
      details: { readFiles: ["src/common.ts", "src/only-in-summary.ts"], modifiedFiles: [] },
    });
    const leaf = session.appendMessage(assistant("Abandoned."));
    const { entries } = collectEntriesForBranchSummary(session, leaf.id, target.id);
    const model = provider([script.text("## Goal\n- the abandoned attempt")]);

    const outcome = await generateBranchSummary(entries, { stream: model.stream, model: model.model });

    if (outcome.kind !== "summarized") throw new Error(outcome.kind);
    const request = requestText(model.calls[0]!);
    expect(request).not.toContain("COMMON-PATH-SUMMARY");
    expect(request).toContain("Abandoned attempt");
    expect(outcome.details.readFiles).toEqual([]);
    expect(outcome.details.modifiedFiles).toEqual(["src/abandoned.ts"]);
    expect(outcome.summary).not.toContain("src/common.ts");
  });
});

describe("effectiveCompactionSettings", () => {
  it("clamps a reserve and a kept tail that cannot work for the window, saying what changed", () => {
    const settings = resolveCompactionSettings();
    const small = effectiveCompactionSettings(settings, 6000);
    expect(small.settings.reserveTokens).toBe(1500);
    expect(small.settings.keepRecentTokens).toBe(2250);
    expect(small.adjustments.map((change) => [change.setting, change.configured, change.effective])).toEqual([
      ["reserveTokens", 16_384, 1500],
      ["keepRecentTokens", 20_000, 2250],
    ]);
    expect(small.adjustments[0]!.message).toContain("6,000-token window");
    expect(6000 - small.settings.reserveTokens).toBeGreaterThan(0);
    expect(settings.reserveTokens).toBe(16_384); // the input is not changed

    const large = effectiveCompactionSettings(settings, 200_000);
    expect(large.settings).toBe(settings);
    expect(large.adjustments).toEqual([]);
    expect(effectiveCompactionSettings(settings, Number.NaN).adjustments).toEqual([]);

    const keepOnly = effectiveCompactionSettings(
      resolveCompactionSettings({ keepRecentTokens: 90_000 }),
      128_000,
    );
    expect(keepOnly.adjustments.map((change) => change.setting)).toEqual(["keepRecentTokens"]);
    expect(keepOnly.settings.keepRecentTokens).toBe(Math.floor((128_000 - 16_384) / 2));
  });
});

describe("elideOversizedMessages", () => {
  it("cuts the largest messages to fit, naming the entry and recall, never the newest prompt", async () => {
    const { session, user, assistant, result } = await newSession();
    session.appendMessage(user("Read the dump"));
    session.appendMessage(assistant([call("d1", "read", { path: "dump.json" })]));
    const big = session.appendMessage(result("d1", `HEAD${filler(2_000_000, "data")}TAIL`));
    session.appendMessage(assistant("It is large."));
    session.appendMessage(user(`What does it say? ${filler(3000, "question")}`));
    const context = session.buildContext();
    const before = estimateContextTokens(context.messages).tokens;
    expect(before).toBeGreaterThan(500_000);

    const elision = elideOversizedMessages(context, 6000);

    expect(elision.fits).toBe(true);
    expect(elision.tokens).toBeLessThanOrEqual(6000);
    expect(elision.elided).toHaveLength(1);
    expect(elision.elided[0]!.entryId).toBe(big.id);
    const cut = elision.messages[2]!;
    if (cut.role !== "toolResult") throw new Error("expected the tool result");
    const text = cut.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    expect(text.startsWith("HEAD")).toBe(true);
    expect(text.endsWith("TAIL")).toBe(true);
    expect(text).toContain(`recall({"entryIds":["${big.id}"]})`);
    expect(elision.messages[4]).toBe(context.messages[4]); // the newest prompt is untouched
    expect(session.getEntry(big.id)!.type === "message").toBe(true);
    expect(JSON.stringify(session.getEntry(big.id)).length).toBeGreaterThan(2_000_000); // the entry stays whole

    const unchanged = elideOversizedMessages(context, 10_000_000);
    expect(unchanged.elided).toEqual([]);
    expect(unchanged.messages).toEqual(context.messages);

    const hopeless = elideOversizedMessages({ messages: [context.messages[4]!] }, 10);
    expect(hopeless.fits).toBe(false);
    expect(hopeless.elided).toEqual([]);
  });
});
