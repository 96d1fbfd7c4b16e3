/**
 * Print and json mode say on stderr when a compaction starts and how it ended (`reportRunNotices` of
 * `@arbor/app-runtime`), as they do for retries: the offline scripted model with a 6,000-token window
 * (`modelLimits`), three long answers in one session, so that the third prompt passes the threshold.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, runArbor, type Sandbox, sandbox, writeJson } from "./cli-helpers.js";

const START = /^arbor: compacting the context \(about ([\d,]+) of 6,000 tokens, threshold ([\d,]+)\)…$/;
const END = /^arbor: Compacted the conversation: context about ([\d,]+) → ([\d,]+) tokens\.$/;

function tokens(text: string | undefined): number {
  return Number((text ?? "").replaceAll(",", ""));
}

/** A sandbox whose scripted model has a 6,000-token window, and a session two long answers in. */
async function filledSession(): Promise<Sandbox> {
  const box = sandbox();
  writeJson(join(box.cwd, ".arbor", "settings.json"), {
    modelLimits: { "scripted/demo": { contextWindow: 6000 } },
  });
  for (const args of [
    ["-p", "words 1500"],
    ["-c", "-p", "words 1500"],
  ]) {
    const run = await runArbor(box, [...args, "--provider", "scripted"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toContain("compacting");
  }
  return box;
}

describe("compaction notices on stderr", { timeout: 120_000 }, () => {
  it("print mode: one line as the compaction starts, one with its outcome; stdout keeps only the answer", async () => {
    const box = await filledSession();
    const run = await runArbor(box, ["-c", "-p", "words 20", "--provider", "scripted"]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(2);
    const [, before, threshold] = START.exec(lines[0] ?? "") ?? [];
    const [, from, to] = END.exec(lines[1] ?? "") ?? [];
    expect(lines[0]).toMatch(START);
    expect(lines[1]).toMatch(END);
    expect(tokens(before)).toBeGreaterThan(tokens(threshold));
    expect(tokens(threshold)).toBeLessThan(6000);
    expect(from).toBe(before);
    expect(tokens(to)).toBeLessThan(tokens(from));
    // A compaction leaves at most 60% of the window (the budget's target).
    expect(tokens(to)).toBeLessThanOrEqual(6000 * 0.6);
    expect(run.stdout.trim().split(/\s+/)).toHaveLength(20);
  });

  it("json mode: the same lines on stderr, and compaction_start / compaction_end records with the outcome's words", async () => {
    const box = await filledSession();
    const run = await runArbor(box, ["--mode", "json", "-c", "-p", "words 20", "--provider", "scripted"]);
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stderr.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(START);
    expect(lines[1]).toMatch(END);
    const records = jsonLines(run.stdout);
    const start = records.find((record) => record.type === "compaction_start");
    const end = records.find((record) => record.type === "compaction_end");
    expect(start).toMatchObject({ reason: "threshold", tokensBefore: tokens(START.exec(lines[0]!)?.[1]) });
    expect(end).toMatchObject({
      reason: "threshold",
      outcome: "compacted",
      message: lines[1]!.slice("arbor: ".length),
    });
  });
});
