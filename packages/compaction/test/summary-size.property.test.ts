import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  collectEntriesForBranchSummary,
  compact,
  generateBranchSummary,
  MAX_SHRINK_CALLS,
  MINIMAL_DIGEST,
  summaryOutputTokens,
} from "../src/index.js";
import { caseArbitrary, caseFileLists, caseSession, caseSummarizer, cutMidText } from "./summary-cases.js";

/**
 * Over windows of 4,000 to 1,000,000 tokens, random histories and summarizers whose summaries are of
 * random lengths (ignoring `max_tokens`, stopped at it mid-text, following a length request or not,
 * failing): a summary is never longer than its limit, is not empty when the limit holds the smallest
 * digest, is made of whole lines (no truncation marker, no unbalanced parenthesis, no line that is not a
 * whole line of a source), and a compaction always frees space. Fast: about 2 s.
 */

describe("a summary is never cut mid-text (random windows, histories and summary lengths)", () => {
  it("compaction: within the limit, not empty, whole lines, frees space, details say how", async () => {
    let compacted = 0;
    const shrunk = new Set<string>();
    await fc.assert(
      fc.asyncProperty(caseArbitrary, async (test) => {
        const { preparation, quoted } = await caseSession(test);
        if (preparation === undefined) return;
        const summarizer = caseSummarizer(test);
        const outcome = await compact(preparation, { stream: summarizer.stream, model: summarizer.model });
        if (outcome.kind !== "compacted") throw new Error("aborted without a signal");
        compacted++;
        const { summary, details } = outcome;

        const limitTokens = Math.min(
          summaryOutputTokens(summarizer.model, preparation.settings.reserveTokens),
          preparation.summarizedTokens - 1,
        );
        expect(Math.ceil(summary.length / 4)).toBeLessThanOrEqual(limitTokens);
        if (limitTokens * 4 >= MINIMAL_DIGEST.length) expect(summary).not.toBe("");
        const sources = { written: summarizer.written, quoted, fileLists: caseFileLists(preparation) };
        expect(cutMidText(summary, sources)).toBeUndefined();
        expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);

        expect(details.calls).toBe(summarizer.calls());
        if (details.summaryShrunk !== undefined) {
          shrunk.add(`${details.summaryShrunk}/${details.summarySizes?.digestReason ?? ""}`);
          const sizes = details.summarySizes!;
          expect(sizes.finalTokens).toBeLessThanOrEqual(sizes.limitTokens);
          expect(sizes.shrinkCalls).toBeLessThanOrEqual(MAX_SHRINK_CALLS);
          expect(sizes.digestReason === undefined).toBe(details.summaryShrunk === "resummarized");
          if (details.summaryShrunk === "resummarized") {
            // The re-summary is one of the summarizer's answers, whole.
            expect(summarizer.written.some((text) => summary.startsWith(text))).toBe(true);
          }
        }
      }),
      { numRuns: 120, endOnFailure: true },
    );
    expect(compacted).toBeGreaterThan(60);
    // The property reached each way of shrinking.
    expect([...shrunk].sort()).toEqual(
      expect.arrayContaining([
        "digest/limit_too_small",
        "digest/still_too_long",
        "digest/summarizer_failed",
        "resummarized/",
      ]),
    );
  }, 30_000);

  it("branch summaries: within the output cap, whole lines", async () => {
    await fc.assert(
      fc.asyncProperty(caseArbitrary, fc.integer({ min: 100, max: 20_000 }), async (test, reserveTokens) => {
        const { session, quoted } = await caseSession(test);
        const branch = session.getBranch();
        const { entries } = collectEntriesForBranchSummary(session, session.leafId, branch[0]!.id);
        const summarizer = caseSummarizer(test);
        const outcome = await generateBranchSummary(entries, {
          stream: summarizer.stream,
          model: summarizer.model,
          reserveTokens,
          timeoutMs: 2000,
        });
        if (outcome.kind !== "summarized") return;
        const cap = summaryOutputTokens(summarizer.model, reserveTokens);
        expect(Math.ceil(outcome.summary.length / 4)).toBeLessThanOrEqual(cap);
        const cut = cutMidText(outcome.summary, {
          written: summarizer.written,
          quoted,
          fileLists: [
            `Files read: ${outcome.details.readFiles.join(", ")}`,
            `Files modified: ${outcome.details.modifiedFiles.join(", ")}`,
          ].join("\n"),
        });
        expect(cut).toBeUndefined();
      }),
      { numRuns: 40, endOnFailure: true },
    );
  }, 30_000);
});
