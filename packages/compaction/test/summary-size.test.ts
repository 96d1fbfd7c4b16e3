import { script } from "@arbor/ai-providers/testing";
import type { Session } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import {
  type CompactionPreparation,
  type CompactionResult,
  type CompactOutcome,
  collectEntriesForBranchSummary,
  compact,
  fallbackDigest,
  formatFileOperations,
  generateBranchSummary,
  HISTORY_PROMPT,
  MIN_RESUMMARY_TOKENS,
  MINIMAL_DIGEST,
  prepareCompaction,
  resolveCompactionSettings,
  SHORT_DIGEST_HEADER,
  summaryLengthRequest,
  summaryOutputTokens,
  TURN_CONTEXT_HEADING,
  TURN_PREFIX_PROMPT,
} from "../src/index.js";
import { appendTurn, call, filler, newSession, provider, requestText, tokensFromTurn } from "./helpers.js";
import { cutMidText, summaryText } from "./summary-cases.js";

/**
 * A summary is never cut mid-text: one longer than its limit (the output cap, and for a compaction the
 * size of what it replaces) is replaced whole — by a shorter re-summary, else by the digest — and the
 * details say which.
 */

function compacted(outcome: CompactOutcome): CompactionResult {
  if (outcome.kind !== "compacted") throw new Error("compaction was aborted");
  return outcome;
}

/** A plan that keeps whole turns from `keepFromTurn` on (no split turn). */
function plan(session: Session, keepFromTurn: number): CompactionPreparation {
  const settings = resolveCompactionSettings({
    keepRecentTokens: tokensFromTurn(session.getBranch(), keepFromTurn),
  });
  const result = prepareCompaction(session.getBranch(), settings);
  if (result.kind !== "ready") throw new Error(`nothing to compact: ${result.reason}`);
  return result;
}

/** The limit of a compaction's summary, in tokens: the output cap, and smaller than what it replaces. */
function limitOf(preparation: CompactionPreparation, model = provider().model): number {
  return Math.min(
    summaryOutputTokens(model, preparation.settings.reserveTokens),
    preparation.summarizedTokens - 1,
  );
}

/** A session of three small turns; compacting keeps the third (about 250 tokens are summarized). */
async function smallHistory() {
  const { session, ...builders } = await newSession();
  for (let turn = 1; turn <= 3; turn++) appendTurn(session, builders, turn, { size: 400 });
  return { session, preparation: plan(session, 3) };
}

const LONG_SUMMARY = summaryText(3000, 7);
const SHORT_SUMMARY =
  "## Goal\n- Look at src/file-1.ts and src/file-2.ts (both done)\n\n## Next Steps\n1. Turn 3";

describe("a summary longer than what it replaces", () => {
  it("is summarized again within the limit, whole, and the details say so (today: cut mid-text)", async () => {
    const { preparation } = await smallHistory();
    const limit = limitOf(preparation);
    expect(limit).toBeLessThan(300); // the history is small
    const model = provider([script.text(LONG_SUMMARY), script.text(SHORT_SUMMARY)]);

    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    const fileLists = formatFileOperations(preparation.fileOperations);
    expect(result.summary).toBe(SHORT_SUMMARY + fileLists);
    model.assertDone();
    const room = Math.floor((limit * 4 - fileLists.length) / 4);
    expect(result.details).toMatchObject({
      summaryShrunk: "resummarized",
      summarySizes: {
        writtenTokens: Math.ceil(LONG_SUMMARY.length / 4),
        limitTokens: room,
        finalTokens: Math.ceil(SHORT_SUMMARY.length / 4),
        shrinkCalls: 1,
      },
      calls: 2,
      historyCalls: 1,
    });
    expect(result.details.summaryTruncated).toBeUndefined();
    expect(result.details.fileListsShortened).toBeUndefined();
    // The shortening call: the long summary as the text to summarize, asking for 75 % of the room.
    const shortening = model.calls[1]!;
    const request = requestText(shortening);
    expect(request).toContain(`[Summary of earlier conversation]: ${LONG_SUMMARY}`);
    expect(request.endsWith(`${HISTORY_PROMPT}\n\n${summaryLengthRequest(Math.floor(room * 0.75))}`)).toBe(
      true,
    );
    expect(shortening.options.maxTokens).toBe(room);
    expect(Math.ceil(result.summary.length / 4)).toBeLessThanOrEqual(limit);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it("is replaced by the digest, whole lines only, when the shorter summaries are still too long", async () => {
    const { preparation } = await smallHistory();
    const model = provider([script.text(LONG_SUMMARY), script.text(LONG_SUMMARY), script.text(LONG_SUMMARY)]);

    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    model.assertDone();
    const room = Math.floor(
      (limitOf(preparation) * 4 - formatFileOperations(preparation.fileOperations).length) / 4,
    );
    expect(requestText(model.calls[2]!)).toContain(summaryLengthRequest(Math.floor(room * 0.5)));
    expect(result.summary).toBe(
      [
        `[Automatic digest: the summarizer could not be used (its summary of ${Math.ceil(LONG_SUMMARY.length / 4)} ` +
          `tokens did not fit the ${room} tokens left for it, even when asked for a shorter one). This part of ` +
          "the history was condensed without a model; the original entries are still in the session log.]",
        "",
        "## User Requests",
        "- Request 1: please look at src/file-1.ts",
        "- Request 2: please look at src/file-2.ts",
        "",
        "## Last Assistant Message",
        "Answer 2: done with src/file-2.ts",
      ].join("\n") + formatFileOperations(preparation.fileOperations),
    );
    expect(result.details).toMatchObject({
      summaryShrunk: "digest",
      summarySizes: { shrinkCalls: 2, digestReason: "still_too_long" },
      calls: 3,
    });
    expect(result.details.summaryTruncated).toBeUndefined(); // nothing of the digest was left out
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it("is replaced by the digest when a shortening call fails", async () => {
    const { preparation } = await smallHistory();
    const model = provider([script.text(LONG_SUMMARY), script.error("529 overloaded")]);
    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));
    model.assertDone();
    expect(result.details).toMatchObject({
      summaryShrunk: "digest",
      summarySizes: { shrinkCalls: 1, digestReason: "summarizer_failed" },
    });
    expect(result.details.fallback).toBeUndefined(); // the first pass did not fail
    expect(result.summary).toContain("## User Requests\n- Request 1: please look at src/file-1.ts");
  });

  it("is not asked of a summarizer that already failed: the digest, at the smaller size, at once", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 2; turn++) appendTurn(session, builders, turn, { size: 10 });
    const preparation = plan(session, 2);
    expect(limitOf(preparation)).toBeLessThan(40); // less than the first digest's header alone
    const model = provider([script.error("503 unavailable")]);

    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    model.assertDone(); // no shortening call
    expect(result.details.fallback).toMatchObject({ reason: "model_error", message: "503 unavailable" });
    expect(result.details.summaryShrunk).toBe("digest");
    expect(result.details.summarySizes).toMatchObject({ shrinkCalls: 0, digestReason: "summarizer_failed" });
    expect(result.summary).toBe(`${MINIMAL_DIGEST}\n\nFiles read: src/file-1.ts`);
    expect(Math.ceil(result.summary.length / 4)).toBeLessThanOrEqual(limitOf(preparation));
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it("is not kept when the server stopped it at max_tokens, even when it is short enough", async () => {
    const { preparation } = await smallHistory();
    const stopped = LONG_SUMMARY.slice(0, 301); // mid-line: "(…" left open
    const model = provider([script.text(stopped, { stopReason: "length" }), script.text(SHORT_SUMMARY)]);
    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));
    model.assertDone();
    expect(result.summary.startsWith(SHORT_SUMMARY)).toBe(true);
    expect(result.details.summaryShrunk).toBe("resummarized");
    expect(result.details.summarySizes!.writtenTokens).toBeLessThan(result.details.summarySizes!.limitTokens);
  });

  it("uses the digest at once when the room is too small for a model summary", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 2; turn++) appendTurn(session, builders, turn, { size: 10 });
    const preparation = plan(session, 2);
    const model = provider([script.text(LONG_SUMMARY)]);

    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    model.assertDone(); // no shortening call
    expect(result.summary).toBe(`${MINIMAL_DIGEST}\n\nFiles read: src/file-1.ts`);
    expect(result.details).toMatchObject({
      summaryShrunk: "digest",
      summarySizes: { shrinkCalls: 0, digestReason: "limit_too_small" },
      calls: 1,
    });
    expect(result.details.summarySizes!.limitTokens).toBeLessThan(MIN_RESUMMARY_TOKENS);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });
});

describe("a split turn with no earlier history", () => {
  async function splitTurn(keepRecentTokens: number) {
    const { session, user, assistant, result } = await newSession();
    session.appendMessage(user("Refactor the parser"));
    for (let step = 1; step <= 4; step++) {
      session.appendMessage(assistant([call(`r${step}`, "read", { path: `src/p${step}.ts` })]));
      session.appendMessage(result(`r${step}`, filler(step === 1 ? 200 : 3000, `chunk${step}`)));
    }
    session.appendMessage(assistant("Done reading."));
    const preparation = prepareCompaction(
      session.getBranch(),
      resolveCompactionSettings({ keepRecentTokens }),
    );
    if (preparation.kind !== "ready") throw new Error(preparation.reason);
    expect(preparation.isSplitTurn).toBe(true);
    expect(preparation.messagesToSummarize).toEqual([]);
    return preparation;
  }

  it("never cuts '(No earlier history.)': a tiny turn prefix gets the digest, whole (today: cut)", async () => {
    const preparation = await splitTurn(2300);
    expect(preparation.summarizedTokens).toBeLessThan(100);
    const model = provider([script.text(LONG_SUMMARY)]);

    const outcome = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    expect(outcome.summary).toBe(
      `${SHORT_DIGEST_HEADER}\n\n## User Requests\n- Refactor the parser\n\nFiles read: src/p1.ts`,
    );
    model.assertDone();
    expect(outcome.details.summarySizes).toMatchObject({ shrinkCalls: 0, digestReason: "limit_too_small" });
    expect(Math.ceil(outcome.summary.length / 4)).toBeLessThanOrEqual(limitOf(preparation));
    expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
  });

  it("re-summarizes a turn context too long for the limit, '(No earlier history.)' and all", async () => {
    const preparation = await splitTurn(1000);
    const longTurn = summaryText(8000, 11);
    const answer = script.dynamic((recorded) =>
      script.text(requestText(recorded).endsWith(TURN_PREFIX_PROMPT) ? longTurn : SHORT_SUMMARY),
    );
    const model = provider([answer, answer]);

    const outcome = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    model.assertDone();
    expect(outcome.summary).toBe(SHORT_SUMMARY + formatFileOperations(preparation.fileOperations));
    expect(outcome.details.summaryShrunk).toBe("resummarized");
    expect(requestText(model.calls[1]!)).toContain(
      `[Summary of earlier conversation]: (No earlier history.)\n\n---\n\n${TURN_CONTEXT_HEADING}\n\n## Goal`,
    );
    expect(Math.ceil(outcome.summary.length / 4)).toBeLessThanOrEqual(limitOf(preparation));
  });
});

describe("file lists that do not fit", () => {
  it("become one count line, which the next UPDATE does not see", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 30; turn++) {
      appendTurn(session, builders, turn, {
        size: 40,
        read: `src/packages/module-${turn}/internal/implementation/index.ts`,
      });
    }
    const preparation = plan(session, 30);
    const limit = limitOf(preparation);
    const fileLists = formatFileOperations(preparation.fileOperations);
    const body = summaryText(limit * 4 - 200, 3);
    expect(body.length + fileLists.length).toBeGreaterThan(limit * 4);
    const model = provider([script.text(body), script.text("## Goal\n- updated")]);

    const first = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    expect(first.details.summaryShrunk).toBeUndefined(); // the summary itself fitted, whole
    expect(first.details.fileListsShortened).toBe("counted");
    expect(first.summary).toBe(`${body}\n\n29 files read, 0 modified — see details`);
    expect(first.details.readFiles).toHaveLength(29); // the lists stay whole in the details

    session.appendCompaction({ ...first, details: first.details });
    for (let turn = 31; turn <= 33; turn++) appendTurn(session, builders, turn, { size: 40 });
    compacted(await compact(plan(session, 33), { stream: model.stream, model: model.model }));
    model.assertDone();
    const update = requestText(model.calls[1]!);
    expect(update).toContain("<previous-summary>\n## Goal");
    expect(update).not.toContain("see details");
  });
});

describe("branch summaries", () => {
  it("are re-summarized whole when over the output cap", async () => {
    const { session, ...builders } = await newSession();
    const target = session.appendMessage(builders.user("Start"));
    for (let turn = 1; turn <= 3; turn++) appendTurn(session, builders, turn, { size: 400 });
    const { entries } = collectEntriesForBranchSummary(session, session.leafId, target.id);
    const model = provider([script.text(LONG_SUMMARY), script.text(SHORT_SUMMARY)]);

    const outcome = await generateBranchSummary(entries, {
      stream: model.stream,
      model: model.model,
      reserveTokens: 500,
    });

    model.assertDone();
    if (outcome.kind !== "summarized") throw new Error(outcome.kind);
    expect(outcome.summary.startsWith(`${SHORT_SUMMARY}\n\nFiles read: src/file-1.ts`)).toBe(true);
    expect(outcome.details).toMatchObject({ summaryShrunk: "resummarized", calls: 2 });
    expect(Math.ceil(outcome.summary.length / 4)).toBeLessThanOrEqual(400);
    expect(outcome.usage.input).toBeGreaterThan(model.calls[0]!.context.messages.length);
  });
});

describe("fallbackDigest", () => {
  it("leaves out whole lines and sections, never part of one, at every size", async () => {
    const { user, assistant } = await newSession();
    const previousSummary = `## Goal\n- the original goal (kept)\n${filler(5000, "history")}\n## Next Steps\n1. finish (soon)`;
    const answer = `Line one of the answer (first)\n${filler(900, "middle")}\nLast line (final)`;
    const messages = [
      user("Request one: fix the parser (src/parser.ts)"),
      assistant("Looking."),
      user(`Request two: ${filler(2000, "long")}`),
      assistant(answer),
    ];
    const sources = {
      written: [],
      quoted: [previousSummary, "Request one: fix the parser (src/parser.ts)", answer],
      fileLists: "",
    };
    for (let maxChars = 0; maxChars <= 4000; maxChars += 13) {
      const digest = fallbackDigest({
        kind: "history",
        reason: "503 unavailable",
        previousSummary,
        messages,
        maxChars,
      });
      expect(digest.text.length).toBeLessThanOrEqual(maxChars);
      if (maxChars >= MINIMAL_DIGEST.length) expect(digest.text).not.toBe("");
      // Every line is whole but the one long request, shortened at word boundaries around " … ".
      const shortened = /^- Request two: long( long)* … long( long)*$/;
      const lines = digest.text.split("\n").filter((line) => !shortened.test(line));
      expect(cutMidText(lines.join("\n"), sources), `at ${maxChars} characters`).toBeUndefined();
    }
    const roomy = fallbackDigest({
      kind: "history",
      reason: "503",
      previousSummary,
      messages,
      maxChars: 6000,
    });
    expect(roomy.shortened).toBe(true);
    expect(roomy.text).toContain(
      "## Summary so far\n## Goal\n- the original goal (kept)\n(… 1 line left out …)\n## Next Steps\n1. finish (soon)",
    );
    expect(roomy.text).toMatch(/\n- Request two: (long )+long … (long )+long\n/);
  });
});
