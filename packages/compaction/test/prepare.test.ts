import { describe, expect, it } from "vitest";
import {
  type CompactionPlan,
  type CompactionPreparation,
  estimateContextTokens,
  estimateTokens,
  prepareCompaction,
  resolveCompactionSettings,
} from "../src/index.js";
import { appendTurn, newSession, tokensFromTurn } from "./helpers.js";

const settings = resolveCompactionSettings({ keepRecentTokens: 1200 });

function ready(plan: CompactionPlan): CompactionPreparation {
  if (plan.kind !== "ready") throw new Error(`expected a plan, got ${plan.reason}`);
  return plan;
}

describe("prepareCompaction", () => {
  it("has nothing to compact for an empty branch or a history that fits in the kept tail", async () => {
    const { session, ...builders } = await newSession();
    expect(prepareCompaction(session.getBranch(), settings)).toEqual({
      kind: "nothing_to_compact",
      reason: "empty_branch",
      tokensBefore: 0,
    });
    appendTurn(session, builders, 1, { size: 400 });
    expect(prepareCompaction(session.getBranch(), settings)).toMatchObject({
      kind: "nothing_to_compact",
      reason: "fits_in_kept_tail",
    });
  });

  it("splits the branch into history to summarize and a kept tail, and estimates tokensBefore", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 6; turn++) appendTurn(session, builders, turn);
    const branch = session.getBranch();
    // The budget is crossed exactly at the request of turn 5: whole turns are kept.
    const keep = tokensFromTurn(branch, 5);
    const plan = ready(prepareCompaction(branch, { ...settings, keepRecentTokens: keep }));

    expect(plan.isSplitTurn).toBe(false);
    const cutEntry = branch[plan.firstKeptEntryIndex]!;
    expect(cutEntry.id).toBe(plan.firstKeptEntryId);
    expect(cutEntry.type === "message" && cutEntry.message.role).toBe("user");
    expect(plan.messagesToSummarize.length + plan.keptMessages.length).toBe(branch.length);
    expect(plan.keptTokens).toBe(keep);
    expect(plan.keptTokens).toBe(
      plan.keptMessages.reduce((sum, message) => sum + estimateTokens(message), 0),
    );
    expect(plan.tokensBefore).toBe(estimateContextTokens(session.buildContext().messages).tokens);
    expect(plan.summarizedTokens + plan.keptTokens).toBe(plan.tokensBefore);
    expect(plan.covered).toEqual({
      firstEntryId: branch[0]!.id,
      lastEntryId: branch[plan.firstKeptEntryIndex - 1]!.id,
      entryCount: plan.firstKeptEntryIndex,
    });
    expect(plan.previousSummary).toBeUndefined();
  });

  it("collects files read and modified from the summarized tool calls, skipping failed edits", async () => {
    const { session, ...builders } = await newSession();
    appendTurn(session, builders, 1, { read: "src/a.ts", edit: "src/a.ts" });
    appendTurn(session, builders, 2, { read: "README.md", edit: "src/broken.ts", editFails: true });
    appendTurn(session, builders, 3, { read: "package.json", edit: "src/b.ts" });
    for (let turn = 4; turn <= 6; turn++) appendTurn(session, builders, turn, { read: `kept-${turn}.ts` });
    const keepRecentTokens = tokensFromTurn(session.getBranch(), 4);
    const plan = ready(prepareCompaction(session.getBranch(), { ...settings, keepRecentTokens }));
    expect(plan.isSplitTurn).toBe(false);
    expect(plan.fileOperations).toEqual({
      readFiles: ["README.md", "package.json"],
      modifiedFiles: ["src/a.ts", "src/b.ts"],
    });
  });

  it("starts a second compaction at the previous one's kept part and carries its summary and files", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 4; turn++) appendTurn(session, builders, turn, { read: `first-${turn}.ts` });
    const first = ready(prepareCompaction(session.getBranch(), settings));
    const compaction = session.appendCompaction({
      summary: "## Goal\n- first summary\n\nFiles read: first-1.ts, first-2.ts",
      firstKeptEntryId: first.firstKeptEntryId,
      tokensBefore: first.tokensBefore,
      details: { readFiles: ["first-1.ts", "first-2.ts"], modifiedFiles: ["old.ts"] },
    });
    for (let turn = 5; turn <= 8; turn++) appendTurn(session, builders, turn, { read: `second-${turn}.ts` });

    const branch = session.getBranch();
    const second = ready(prepareCompaction(branch, settings));
    expect(second.previousSummary).toContain("first summary");
    expect(second.previousCompactionId).toBe(compaction.id);
    expect(second.covered.firstEntryId).toBe(first.firstKeptEntryId);
    const firstKept = session.getEntry(first.firstKeptEntryId);
    expect(second.messagesToSummarize[0]).toBe(firstKept?.type === "message" ? firstKept.message : undefined);
    expect(second.fileOperations.readFiles).toEqual(
      expect.arrayContaining(["first-1.ts", "first-2.ts", "first-3.ts", "second-5.ts"]),
    );
    expect(second.fileOperations.modifiedFiles).toEqual(["old.ts"]);
    expect(second.tokensBefore).toBe(estimateContextTokens(session.buildContext().messages).tokens);
    const kept = branch.findIndex((entry) => entry.id === second.firstKeptEntryId);
    expect(kept).toBeGreaterThan(branch.findIndex((entry) => entry.id === compaction.id));
  });

  it("limits the kept tail to half of the usable window when the model's window is known", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 30; turn++) appendTurn(session, builders, turn, { size: 4000 });
    const defaults = resolveCompactionSettings();
    const plan = ready(prepareCompaction(session.getBranch(), defaults, { contextWindow: 32_000 }));
    expect(plan.keepRecentTokens).toBe(7808);
    expect(plan.keptTokens).toBeLessThanOrEqual(7808);
    const unbounded = ready(prepareCompaction(session.getBranch(), defaults));
    expect(unbounded.keepRecentTokens).toBe(20_000);
    expect(unbounded.keptTokens).toBeGreaterThan(7808);
  });

  it("has nothing to free when what would be summarized weighs nothing", async () => {
    const { session, user, assistant } = await newSession();
    session.appendMessage(user(""));
    session.appendMessage(assistant([]));
    session.appendMessage(user("x".repeat(8000)));
    expect(prepareCompaction(session.getBranch(), settings)).toMatchObject({
      kind: "nothing_to_compact",
      reason: "nothing_to_free",
    });
  });
});
