import type { SessionMessage } from "@arbor/session-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { estimateContextTokens, estimateTokens, type PrunePlanOptions, planPrune } from "../src/index.js";
import { call, newSession } from "./helpers.js";

/**
 * Pruning against windows of 4k to 1M tokens (the budget's kept tail and target derived from the window as
 * `contextBudget` does): the kept tail and the newest turn (the latest assistant message on) are never pruned, nor results pruned already or
 * summarized; the plan frees what it says; its estimate is the one of the context `buildContext()` builds
 * with the stubs; and a second plan prunes nothing new.
 */

const caseArbitrary = fc.record({
  window: fc.oneof(
    fc.constantFrom(4000, 4096, 8192, 32_000, 128_000, 200_000, 1_000_000),
    fc.integer({ min: 4000, max: 1_000_000 }),
  ),
  /** Each turn's tool result, as a share of the window (0 to 30%; about 30 turns fill it many times). */
  turns: fc.array(
    fc.integer({ min: 0, max: 300 }).map((permille) => permille / 1000),
    { minLength: 1, maxLength: 30, size: "max" },
  ),
  /** Replies carry a provider's usage (the estimate is then anchored on it). */
  usage: fc.boolean(),
  /** A compaction after this share of the turns (none when ≥ 1: two cases in three). */
  compactAt: fc.integer({ min: 0, max: 300 }).map((percent) => percent / 100),
  /** An earlier prune (to 90% of the window) after this share of the turns (none when ≥ 1). */
  pruneAt: fc.integer({ min: 0, max: 200 }).map((percent) => percent / 100),
  /** The turn ends with a tool call whose result is the newest message (an open turn). */
  openTurn: fc.boolean(),
});

type Case = typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never;

function heuristic(messages: readonly SessionMessage[]): number {
  let tokens = 0;
  for (const message of messages) tokens += estimateTokens(message);
  return tokens;
}

async function build(sample: Case) {
  const built = await newSession();
  const { session, user, assistant, result } = built;
  const options: PrunePlanOptions = {
    keepRecentTokens: Math.min(20_000, Math.floor(sample.window * 0.15)),
    targetTokens: Math.floor(sample.window * 0.6),
  };
  const compactTurn = Math.floor(sample.compactAt * sample.turns.length);
  const pruneTurn = Math.floor(sample.pruneAt * sample.turns.length);
  let running = 0;
  for (const [number, share] of sample.turns.entries()) {
    const request = user(`turn ${number}`);
    const kept = session.appendMessage(request).id;
    const calling = assistant([call(`call-${number}`, "read", { path: `f${number}.ts` })]);
    session.appendMessage(calling);
    const output = result(`call-${number}`, "r".repeat(Math.floor(share * sample.window * 4)));
    session.appendMessage(output);
    running += estimateTokens(request) + estimateTokens(calling) + estimateTokens(output);
    const last = sample.openTurn && number === sample.turns.length - 1;
    if (!last) {
      const reply = assistant(`done ${number}`, sample.usage ? { usage: running + 500 } : {});
      session.appendMessage(reply);
      running += estimateTokens(reply);
    }
    if (number === compactTurn) {
      session.appendCompaction({
        summary: `turns up to ${number}`,
        firstKeptEntryId: kept,
        tokensBefore: running,
      });
      running = heuristic(session.buildContext().messages);
    }
    if (number === pruneTurn) {
      const early = planPrune(session.getBranch(), {
        ...options,
        targetTokens: Math.floor(sample.window * 0.9),
      });
      if (early.kind === "ready") session.appendPrune(early);
      running = heuristic(session.buildContext().messages);
    }
  }
  return { session, options };
}

describe("planPrune (property)", () => {
  it("protects the kept tail and the newest turn, frees what it says, agrees with buildContext, is idempotent", async () => {
    await fc.assert(
      fc.asyncProperty(caseArbitrary, async (sample) => {
        const { session, options } = await build(sample);
        const before = session.buildContext();
        const plan = planPrune(session.getBranch(), options);
        expect(plan.freedTokens).toBeGreaterThanOrEqual(0);
        if (plan.kind !== "ready") {
          expect(planPrune(session.getBranch(), options)).toEqual(plan);
          return;
        }
        expect(plan.tokensAfter).toBeLessThanOrEqual(plan.tokensBefore);
        expect(plan.tokensAfter).toBe(plan.tokensBefore - plan.freedTokens);
        expect(plan.freedTokens).toBeGreaterThanOrEqual(Math.max(200, 0.05 * options.targetTokens));

        // The protected part, found from the built context: the kept tail and the newest turn.
        const protectedIds = new Set<string>();
        let accumulated = 0;
        for (let position = before.messages.length - 1; position >= 0; position--) {
          const message = before.messages[position]!;
          if (message.role === "compactionSummary") break;
          protectedIds.add(before.entryIds[position]!);
          accumulated += estimateTokens(message);
          if (accumulated >= options.keepRecentTokens) break;
        }
        let newestTurn = before.messages.length - 1;
        while (newestTurn > 0 && before.messages[newestTurn]!.role !== "assistant") newestTurn--;
        for (let position = newestTurn; position < before.messages.length; position++) {
          protectedIds.add(before.entryIds[position]!);
        }
        const inContext = new Set(before.entryIds);
        for (const id of plan.entryIds) {
          expect(protectedIds.has(id)).toBe(false);
          expect(inContext.has(id)).toBe(true);
          expect(before.prunedEntryIds).not.toContain(id);
        }

        session.appendPrune(plan);
        const after = session.buildContext();
        expect(after.prunedEntryIds).toEqual(
          [...before.prunedEntryIds, ...plan.entryIds].sort(byContextOrder(after.entryIds)),
        );
        expect(heuristic(after.messages)).toBe(heuristic(before.messages) - plan.freedTokens);
        if (!sample.usage) expect(estimateContextTokens(after.messages).tokens).toBe(plan.tokensAfter);

        const again = planPrune(session.getBranch(), options);
        expect(again.kind).toBe("nothing_to_prune");
        expect(again.tokensBefore).toBe(plan.tokensAfter);
      }),
      { numRuns: 150 },
    );
  });
});

/** Sorts entry ids by their position in a context. */
function byContextOrder(entryIds: readonly string[]): (a: string, b: string) => number {
  const position = new Map(entryIds.map((id, index) => [id, index]));
  return (a, b) => (position.get(a) ?? 0) - (position.get(b) ?? 0);
}
