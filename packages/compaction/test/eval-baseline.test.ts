import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { script } from "@arbor/ai-providers/testing";
import {
  branchOfEntries,
  createExtractiveSummarizer,
  evaluateCompaction,
  extractArtifacts,
  formatEvalTable,
  generateLongSession,
  type SessionEvalResult,
  scoreRetention,
} from "@arbor/compaction/eval";
import type { SessionEntry } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { provider } from "./helpers.js";

/**
 * The CI gate of the compaction evaluation: the deterministic metrics on the pi fixtures and a generated
 * long session, with the extractive (scripted) summarizer and with the fallback, must not fall below
 * `eval-baseline.json`. After an intended change: `ARBOR_UPDATE_EVAL_BASELINE=1 pnpm exec vitest run
 * packages/compaction/test/eval-baseline.test.ts`, then commit the file.
 */

const FIXTURES = join(import.meta.dirname, "../../../fixtures/pi-sessions");
const BASELINE = join(import.meta.dirname, "eval-baseline.json");

function fixtureSessions(): { name: string; entries: SessionEntry[] }[] {
  return readdirSync(FIXTURES)
    .filter((file) => file.endsWith(".jsonl"))
    .sort()
    .map((file) => {
      const lines = readFileSync(join(FIXTURES, file), "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "");
      const entries = lines.slice(1).map((line) => JSON.parse(line) as SessionEntry);
      return { name: file, entries: branchOfEntries(entries) };
    });
}

interface Metrics {
  status: string;
  retention: number;
  continuation: number;
  ratio: number;
}

function metricsOf(result: SessionEvalResult): Metrics {
  return {
    status: result.status,
    retention: Number((result.retention?.score ?? 0).toFixed(4)),
    continuation: Number((result.continuation?.score ?? 0).toFixed(4)),
    ratio: Number((result.compression?.ratio ?? 1).toFixed(4)),
  };
}

describe("the compaction evaluation", () => {
  it("does not regress against the checked-in baseline (fixtures and a generated session)", async () => {
    const sessions = [
      ...fixtureSessions(),
      { name: "generated-300-turns", entries: generateLongSession(300) },
    ];
    const current: Record<string, Metrics> = {};
    const results: SessionEvalResult[] = [];
    for (const session of sessions) {
      for (const [mode, summarizer] of [
        ["extractive", createExtractiveSummarizer()],
        ["fallback", undefined],
      ] as const) {
        const result = await evaluateCompaction(session, summarizer === undefined ? {} : { summarizer });
        results.push(result);
        current[`${session.name} ${mode}`] = metricsOf(result);
      }
    }
    expect(formatEvalTable(results)).toContain("| generated-300-turns | eval/extractive | compacted |");
    if (process.env.ARBOR_UPDATE_EVAL_BASELINE === "1") {
      writeFileSync(BASELINE, `${JSON.stringify(current, null, 2)}\n`);
      return;
    }
    const baseline = JSON.parse(readFileSync(BASELINE, "utf8")) as Record<string, Metrics>;
    expect(Object.keys(current).sort()).toEqual(Object.keys(baseline).sort());
    for (const [key, expected] of Object.entries(baseline)) {
      const actual = current[key]!;
      expect(actual.status, key).toBe(expected.status);
      expect(actual.retention, `${key}: artifact retention`).toBeGreaterThanOrEqual(
        expected.retention - 1e-4,
      );
      expect(actual.continuation, `${key}: continuation`).toBeGreaterThanOrEqual(
        expected.continuation - 1e-4,
      );
      expect(actual.ratio, `${key}: compression ratio`).toBeLessThanOrEqual(expected.ratio + 1e-4);
    }
    // The compacted ones free space and keep most artifacts with the extractive summarizer.
    const generated = current["generated-300-turns extractive"]!;
    expect(generated.ratio).toBeLessThan(0.5);
    expect(generated.retention).toBeGreaterThan(0.3);
  }, 60_000);

  it("scores artifact retention exactly, and lists what was lost", () => {
    const entries = generateLongSession(3);
    const messages = entries.map((entry) => (entry as unknown as { message: never }).message);
    const artifacts = extractArtifacts(messages);
    expect(artifacts.modifiedFiles).toEqual(["src/feature-1.ts", "src/feature-2.ts", "src/feature-3.ts"]);
    expect(artifacts.readFiles).toEqual([
      "src/module-1/part-1.ts",
      "src/module-2/part-2.ts",
      "src/module-3/part-3.ts",
    ]);
    expect(artifacts.identifiers).toContain("handleRequest2");
    expect(artifacts.numbers).toContain("384");
    const partial = scoreRetention(artifacts, "Edited src/feature-1.ts and src/feature-2.ts; handleRequest1");
    expect(partial.modifiedFiles).toEqual({ kept: 2, total: 3 });
    expect(partial.missing.modifiedFiles).toEqual(["src/feature-3.ts"]);
    expect(partial.readFiles.kept).toBe(0);
    expect(scoreRetention(artifacts, JSON.stringify(artifacts)).score).toBe(1);
  });

  it("asks recall probes of a model that sees only the compacted context, judged by exact match", async () => {
    const answerer = provider([
      script.text("Modified: src/feature-1.ts, src/feature-2.ts"),
      script.text("I do not know."),
      script.text("Error: oldText not found in src/feature-7.ts (turn 7)"),
    ]);
    const result = await evaluateCompaction(
      { name: "generated", entries: generateLongSession(20) },
      {
        summarizer: createExtractiveSummarizer(),
        recall: { answerer: { model: answerer.model, stream: answerer.stream } },
      },
    );
    expect(result.recall?.probes).toBe(3);
    const [modified, read, errors] = result.recall!.answers;
    expect(modified!.found).toBe(2);
    expect(read!.found).toBe(0);
    expect(errors!.found).toBe(1);
    const request = answerer.calls[0]!.context.messages[0]!;
    const text = JSON.stringify(request);
    expect(text).toContain("[Summary of earlier conversation]:");
    expect(text).not.toContain("// src/module-1/part-1.ts"); // the compacted turns are not shown verbatim
    expect(text).toContain("// src/module-20/part-20.ts"); // the kept ones are
  });
});
