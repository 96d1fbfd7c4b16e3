import {
  comparePruning,
  createExtractiveSummarizer,
  formatPruneComparisonTable,
  generateLongSession,
} from "@arbor/compaction/eval";
import { describe, expect, it } from "vitest";

describe("comparePruning", () => {
  const session = { name: "generated-300-turns", entries: generateLongSession(300) };

  it("prunes a tool-heavy session under its threshold with no summarizer call, keeping every artifact", async () => {
    const result = await comparePruning(session, { summarizer: createExtractiveSummarizer() });
    const { without, withPruning } = result;
    expect(without).toMatchObject({ status: "compacted", prunedResults: 0 });
    expect(without.summarizerCalls).toBeGreaterThan(0);
    expect(without.freedPerCall).toBe(without.freedTokens / without.summarizerCalls);
    expect(withPruning).toMatchObject({ status: "pruned", summarizerCalls: 0, freedPerCall: undefined });
    expect(withPruning.prunedResults).toBeGreaterThan(100);
    expect(withPruning.tokensAfter).toBeLessThanOrEqual(result.threshold);
    expect(withPruning.tokensBefore).toBe(without.tokensBefore);
    expect(withPruning.retention!.score).toBeGreaterThanOrEqual(without.retention!.score);
    expect(formatPruneComparisonTable([result])).toMatch(
      /\| generated-300-turns \| eval\/extractive \| .* \| pruned \| \d+ \| 0 \| \d+ \| no call \| 100% \|/,
    );
  });

  it("runs the same compaction after the prune when pruning is not enough", async () => {
    const result = await comparePruning(session, { overThreshold: 3 });
    expect(result.withPruning.status).toBe("pruned + compacted");
    expect(result.withPruning.prunedResults).toBeGreaterThan(0);
    expect(result.withPruning.summarizerCalls).toBe(result.without.summarizerCalls);
    expect(result.withPruning.tokensAfter).toBe(result.without.tokensAfter);
  });
});
