import { isPrunedToolResult } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { estimateContextTokens, estimateTokens, planPrune } from "../src/index.js";
import { call, newSession } from "./helpers.js";

type Built = Awaited<ReturnType<typeof newSession>>;

/** One turn: user → read call → result of `size` characters → reply (with `usage` tokens when given). */
function turn(built: Built, number: number, size: number, usage?: number): string {
  const { session, user, assistant, result } = built;
  session.appendMessage(user(`turn ${number}`));
  session.appendMessage(assistant([call(`call-${number}`, "read", { path: `f${number}.ts` })]));
  const id = session.appendMessage(result(`call-${number}`, "r".repeat(size))).id;
  session.appendMessage(assistant(`done ${number}`, usage === undefined ? {} : { usage }));
  return id;
}

const generous = { keepRecentTokens: 0, targetTokens: 0, minFreedTokens: 0, minFreedShare: 0 };

describe("planPrune", () => {
  it("prunes old tool results oldest first until the context is under the target", async () => {
    const built = await newSession();
    const results = [0, 1, 2, 3, 4].map((number) => turn(built, number, 8000));
    const before = estimateContextTokens(built.session.buildContext().messages).tokens;
    const plan = planPrune(built.session.getBranch(), {
      keepRecentTokens: 100,
      targetTokens: before - 3000,
    });
    expect(plan.kind).toBe("ready");
    if (plan.kind !== "ready") return;
    expect(plan.entryIds).toEqual(results.slice(0, 2));
    expect(plan.tokensBefore).toBe(before);
    expect(plan.tokensAfter).toBe(before - plan.freedTokens);
    expect(plan.tokensAfter).toBeLessThanOrEqual(before - 3000);

    built.session.appendPrune(plan);
    const after = built.session.buildContext();
    expect(estimateContextTokens(after.messages).tokens).toBe(plan.tokensAfter);
    expect(after.prunedEntryIds).toEqual(plan.entryIds);
  });

  it("never prunes the kept tail or the newest turn", async () => {
    const built = await newSession();
    const results = [0, 1, 2, 3].map((number) => turn(built, number, 4000));
    // An open turn: the newest assistant message asked for a result the model has not seen yet.
    built.session.appendMessage(built.user("turn 4"));
    built.session.appendMessage(built.assistant([call("call-4", "read", { path: "f4.ts" })]));
    results.push(built.session.appendMessage(built.result("call-4", "r".repeat(4000))).id);
    // The kept tail (about 1,500 tokens) protects the last two results.
    const tail = planPrune(built.session.getBranch(), { ...generous, keepRecentTokens: 1500 });
    expect(tail.kind === "ready" && tail.entryIds).toEqual(results.slice(0, 3));
    // With no kept tail the newest turn is still protected; the results the model answered are not.
    const turnOnly = planPrune(built.session.getBranch(), generous);
    expect(turnOnly.kind === "ready" && turnOnly.entryIds).toEqual(results.slice(0, 4));
  });

  it("skips results that save too little, results pruned already and results a compaction summarized", async () => {
    const built = await newSession();
    const { session, user } = built;
    const summarized = turn(built, 0, 4000);
    const firstKept = session.appendMessage(user("kept from here")).id;
    session.appendCompaction({ summary: "turn 0", firstKeptEntryId: firstKept, tokensBefore: 1000 });
    const small = turn(built, 1, 300);
    const pruned = turn(built, 2, 4000);
    session.appendPrune({ entryIds: [pruned], tokensBefore: 1, tokensAfter: 0 });
    const big = turn(built, 3, 4000);
    const last = turn(built, 4, 4000);
    const plan = planPrune(session.getBranch(), generous);
    expect(plan.kind === "ready" && plan.entryIds).toEqual([big, last]);
    expect(plan.kind === "ready" && plan.entryIds).not.toContain(summarized);
    expect(plan.kind === "ready" && plan.entryIds).not.toContain(small);
  });

  it("returns nothing under the target, without candidates, or when the prune is not worth an entry", async () => {
    const built = await newSession();
    turn(built, 0, 2000);
    turn(built, 1, 2000);
    const branch = built.session.getBranch();
    expect(planPrune(branch, { keepRecentTokens: 0, targetTokens: 1_000_000 })).toMatchObject({
      kind: "nothing_to_prune",
      reason: "under_target",
    });
    expect(planPrune(branch, { keepRecentTokens: 100_000, targetTokens: 0 })).toMatchObject({
      kind: "nothing_to_prune",
      reason: "no_candidates",
    });
    // The two results free about 930 tokens: worth an entry by default, not when a share of the target is more.
    expect(planPrune(branch, { keepRecentTokens: 0, targetTokens: 20 }).kind).toBe("ready");
    const share = planPrune(branch, { keepRecentTokens: 0, targetTokens: 20, minFreedShare: 100 });
    expect(share).toMatchObject({ kind: "nothing_to_prune", reason: "too_little" });
    expect(share.freedTokens).toBeGreaterThan(900);
    // A result of 700 characters frees about 140 tokens: less than 200.
    const small = await newSession();
    turn(small, 0, 700);
    turn(small, 1, 10);
    expect(planPrune(small.session.getBranch(), { keepRecentTokens: 0, targetTokens: 0 })).toMatchObject({
      kind: "nothing_to_prune",
      reason: "too_little",
    });
    expect(planPrune([], generous)).toMatchObject({ kind: "nothing_to_prune", reason: "empty_branch" });
  });

  it("counts pending messages, and corrects a usage reported before a prune", async () => {
    const built = await newSession();
    const results = [0, 1, 2, 3].map((number) => turn(built, number, 8000, number === 3 ? 9000 : undefined));
    const branch = built.session.getBranch();
    const plain = planPrune(branch, { keepRecentTokens: 0, targetTokens: 7100 });
    expect(plain.tokensBefore).toBe(9000);
    expect(
      planPrune(branch, { keepRecentTokens: 0, targetTokens: 7100, pendingTokens: 50 }).tokensBefore,
    ).toBe(9050);
    expect(plain.kind === "ready" && plain.entryIds).toEqual(results.slice(0, 1));
    if (plain.kind !== "ready") return;
    built.session.appendPrune(plain);
    // The usage of turn 3 still counts the pruned result whole; the plan does not.
    expect(estimateContextTokens(built.session.buildContext().messages).tokens).toBe(9000);
    const again = planPrune(built.session.getBranch(), { keepRecentTokens: 0, targetTokens: 7100 });
    expect(again).toMatchObject({ kind: "nothing_to_prune", reason: "under_target" });
    expect(again.tokensBefore).toBe(plain.tokensAfter);
  });

  it("stubs are what Session.buildContext shows", async () => {
    const built = await newSession();
    const id = turn(built, 0, 3000);
    turn(built, 1, 10);
    const plan = planPrune(built.session.getBranch(), generous);
    expect(plan.kind === "ready" && plan.entryIds).toEqual([id]);
    built.session.appendPrune(plan as Extract<typeof plan, { kind: "ready" }>);
    const context = built.session.buildContext();
    const stub = context.messages[context.entryIds.indexOf(id)]!;
    expect(isPrunedToolResult(stub)).toBe(true);
    expect(estimateTokens(stub)).toBeLessThan(60);
  });
});
