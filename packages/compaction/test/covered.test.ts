import { script } from "@arbor/ai-providers/testing";
import type { Session, SessionEntry } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import {
  type CompactionResult,
  compact,
  coveredEntryIds,
  prepareCompaction,
  readCoveredSpan,
  resolveCompactionSettings,
} from "../src/index.js";
import { appendTurn, newSession, provider, tokensFromTurn } from "./helpers.js";

async function compactAt(session: Session, keepFromTurn: number): Promise<CompactionResult> {
  const settings = resolveCompactionSettings({
    keepRecentTokens: tokensFromTurn(session.getBranch(), keepFromTurn),
  });
  const plan = prepareCompaction(session.getBranch(), settings);
  if (plan.kind !== "ready") throw new Error(plan.reason);
  const model = provider([script.text(`summary up to turn ${keepFromTurn - 1}`)]);
  const outcome = await compact(plan, { stream: model.stream, model: model.model });
  if (outcome.kind !== "compacted") throw new Error("aborted");
  session.appendCompaction({ ...outcome, details: outcome.details });
  return outcome;
}

function contextIdsBetween(branch: readonly SessionEntry[], fromId: string, beforeId: string): string[] {
  const start = branch.findIndex((entry) => entry.id === fromId);
  const end = branch.findIndex((entry) => entry.id === beforeId);
  return branch
    .slice(start, end)
    .filter((entry) => entry.type === "message")
    .map((entry) => entry.id);
}

describe("coveredEntryIds (recoverable compaction)", () => {
  it("resolves the entries each compaction summarized, and everything before with includeEarlier", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 4; turn++) appendTurn(session, builders, turn);
    const first = await compactAt(session, 3);
    for (let turn = 5; turn <= 8; turn++) appendTurn(session, builders, turn);
    const second = await compactAt(session, 7);
    const branch = session.getBranch();

    const firstIds = coveredEntryIds(first.details, branch);
    expect(firstIds).toEqual(contextIdsBetween(branch, branch[0]!.id, first.firstKeptEntryId));
    expect(firstIds).toHaveLength(first.details.covered!.entryCount);
    const secondIds = coveredEntryIds(second.details, branch);
    expect(secondIds[0]).toBe(first.firstKeptEntryId);
    expect(secondIds).toEqual(contextIdsBetween(branch, first.firstKeptEntryId, second.firstKeptEntryId));
    expect(secondIds).toHaveLength(second.details.covered!.entryCount);
    expect(coveredEntryIds(second.details, branch, { includeEarlier: true })).toEqual([
      ...firstIds,
      ...secondIds,
    ]);

    // The originals are still in the log, word for word.
    const original = session.getEntry(firstIds[0]!);
    expect(original?.type === "message" && original.message).toMatchObject({
      role: "user",
      content: [{ type: "text", text: "Request 1: please look at src/file-1.ts" }],
    });
  });

  it("stays three fields whatever the history's length", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 400; turn++) appendTurn(session, builders, turn, { size: 100 });
    const result = await compactAt(session, 399);
    expect(result.details.covered!.entryCount).toBeGreaterThan(1500);
    expect(JSON.stringify(result.details.covered).length).toBeLessThan(100);
    expect(coveredEntryIds(result.details, session.getBranch())).toHaveLength(
      result.details.covered!.entryCount,
    );
  });

  it("returns nothing for details without a span or a branch without it", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 3; turn++) appendTurn(session, builders, turn);
    expect(readCoveredSpan({ readFiles: [], modifiedFiles: [] })).toBeUndefined();
    expect(coveredEntryIds({ readFiles: ["a"] }, session.getBranch())).toEqual([]);
    expect(coveredEntryIds(undefined, session.getBranch())).toEqual([]);
    expect(
      coveredEntryIds(
        { covered: { firstEntryId: "x", lastEntryId: "y", entryCount: 2 } },
        session.getBranch(),
      ),
    ).toEqual([]);
  });
});
