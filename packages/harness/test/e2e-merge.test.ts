import { script } from "@arbor/ai-providers/testing";
import { type BranchSummaryEntry, SessionEntryNotFoundError } from "@arbor/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  HarnessBusyError,
  type HarnessPhase,
  type HarnessSession,
  InvalidMergeError,
  type MergeDetails,
  type SessionBeforeTreeEvent,
} from "../src/index.js";
import {
  createStoreFixture,
  createTestHarness,
  messageEntryId,
  recordEvents,
  STORE_KINDS,
  type StoreFixture,
  storedEntries,
  textOf,
} from "./helpers.js";

/** A session with two branches: a, A, b, B (left) and a, A, d, D (current). Returns the two leaves. */
async function twoBranches(
  session: HarnessSession,
): Promise<{ left: string; current: string; fork: string }> {
  await session.prompt("a");
  await session.prompt("b");
  const left = messageEntryId(session, "B");
  const fork = messageEntryId(session, "A");
  await session.navigateTree(fork, { summarize: false });
  await session.prompt("d");
  return { left, current: messageEntryId(session, "D"), fork };
}

describe.each(STORE_KINDS)("mergeBranch and usage (%s store)", (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture(kind);
  });
  afterEach(async () => fixture.cleanup());

  it("summarizes the branch through session_before_tree, appends the summary after the target and emits", async () => {
    const { harness, provider, summarizer } = createTestHarness(fixture, {
      steps: [script.text("A"), script.text("B"), script.text("D"), script.text("E")],
    });
    const session = await harness.newSession();
    const { left, current, fork } = await twoBranches(session);
    const seen: { event: SessionBeforeTreeEvent; phase: HarnessPhase; operation: unknown }[] = [];
    session.on("session_before_tree", (event) => {
      seen.push({ event, phase: session.phase, operation: session.state.operation });
    });
    const events = recordEvents(session);

    const result = await session.mergeBranch(left, { into: current, message: "Notes checked" });
    expect(result.kind).toBe("merged");
    if (result.kind !== "merged") return;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.phase).toBe("branch_summary");
    expect(seen[0]!.operation).toBe("mergeBranch");
    expect(seen[0]!.event).toMatchObject({
      operation: "mergeBranch",
      targetId: current,
      oldLeafId: current,
      sourceLeafId: left,
      commonAncestorId: fork,
      summarize: true,
    });
    const prompt = session.session.getEntry(left)!.parentId;
    expect(seen[0]!.event.entriesToSummarize.map((entry) => entry.id)).toEqual([prompt, left]);
    expect(summarizer.count()).toBe(1);

    const entry = session.session.getEntry(result.entryId) as BranchSummaryEntry;
    expect(entry).toMatchObject({ type: "branch_summary", parentId: current, fromId: left });
    expect(entry.summary.split("\n\n").slice(0, 2)).toEqual([
      `Merged from branch ${left}, which left this conversation after ${fork}.`,
      "Notes checked",
    ]);
    expect(entry.summary).toContain("Summary number 1");
    const merge = (entry.details as { merge: MergeDetails }).merge;
    expect(merge).toEqual({
      sourceLeafId: left,
      targetLeafId: current,
      commonAncestorId: fork,
      entries: 2,
      summarizedBy: "model",
    });
    expect(session.session.leafId).toBe(result.entryId);
    expect(session.phase).toBe("idle");

    const types = events.map((event) => event.type);
    expect(types).toContain("branch_summary");
    expect(events.find((event) => event.type === "branch_summary")).toMatchObject({
      entryId: result.entryId,
      fromId: left,
      oldLeafId: current,
      fromHook: false,
    });
    expect(events.at(-1)).toEqual({ type: "settled", operation: "mergeBranch" });
    const saved = events.find((event) => event.type === "save_point");
    expect(saved).toMatchObject({ entryIds: expect.arrayContaining([result.entryId]) });
    expect((await storedEntries(fixture.store, session.id)).map((stored) => stored.id)).toContain(
      result.entryId,
    );

    // The next prompt continues from the merge: the model sees the merged branch's summary.
    await session.prompt("e");
    const context = provider.calls.at(-1)!.context.messages;
    expect(context.map(textOf).slice(-2)).toEqual([expect.stringContaining("Merged from branch"), "e"]);
    await harness.close();
  });

  it("a hook cancels or supplies the summary; summarize: false needs no model", async () => {
    const { harness, summarizer } = createTestHarness(fixture, {
      steps: [script.text("A"), script.text("B"), script.text("D")],
    });
    const session = await harness.newSession();
    const { left, current } = await twoBranches(session);
    const count = session.session.entryCount;
    let mode: "cancel" | "supply" | "none" = "cancel";
    session.on("session_before_tree", () =>
      mode === "cancel"
        ? { cancel: true }
        : mode === "supply"
          ? { summary: { summary: "From the hook." } }
          : undefined,
    );
    expect(await session.mergeBranch(left, { into: current })).toEqual({ kind: "cancelled" });
    expect(session.session.entryCount).toBe(count);

    mode = "supply";
    const supplied = await session.mergeBranch(left, { into: current });
    if (supplied.kind !== "merged") throw new Error(supplied.kind);
    expect(supplied.merge.summarizedBy).toBe("hook");
    const hookEntry = session.session.getEntry(supplied.entryId) as BranchSummaryEntry;
    expect(hookEntry.fromHook).toBe(true);
    expect(hookEntry.summary.endsWith("From the hook.")).toBe(true);

    mode = "none";
    const digest = await session.mergeBranch(left, { into: current, summarize: false });
    if (digest.kind !== "merged") throw new Error(digest.kind);
    expect(digest.merge.summarizedBy).toBe("deterministic");
    expect(digest.summary).toContain(`[Merged without a model: the last assistant message of branch ${left}`);
    expect(digest.summary).toContain("## Last assistant message\nB");
    // The leaf was on the hook's summary: it moved back to the target first (a `leaf` entry).
    expect(digest.entries.map((entry) => entry.type)).toEqual(["leaf", "branch_summary"]);
    expect(summarizer.count()).toBe(0);
    await harness.close();
  });

  it("refuses unknown entries, merges of nothing and a busy session, changing nothing", async () => {
    const { harness } = createTestHarness(fixture, {
      steps: [script.text("A"), script.text("B"), script.text("D"), script.text("F")],
    });
    const session = await harness.newSession();
    const { left, current, fork } = await twoBranches(session);
    const count = session.session.entryCount;
    await expect(session.mergeBranch("nope", { into: current })).rejects.toBeInstanceOf(
      SessionEntryNotFoundError,
    );
    await expect(session.mergeBranch(left, { into: left })).rejects.toBeInstanceOf(InvalidMergeError);
    const onPath = await session.mergeBranch(fork, { into: current }).catch((error: unknown) => error);
    expect(onPath).toBeInstanceOf(InvalidMergeError);
    expect((onPath as InvalidMergeError).code).toBe("invalid_merge");
    expect((onPath as Error).message).toContain(`Nothing to merge: ${fork} is on the branch to ${current}`);

    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const unhook = session.on("session_before_tree", () => held.then(() => ({ cancel: true })));
    const merging = session.mergeBranch(left, { into: current });
    await expect(session.prompt("f")).rejects.toBeInstanceOf(HarnessBusyError);
    await expect(session.mergeBranch(left, { into: current })).rejects.toBeInstanceOf(HarnessBusyError);
    release();
    expect(await merging).toEqual({ kind: "cancelled" });
    unhook();
    expect(session.session.entryCount).toBe(count);
    await harness.close();
  });

  it("usage() totals every response and summary of every branch, per model", async () => {
    const { harness } = createTestHarness(fixture, {
      steps: [script.text("A"), script.text("B"), script.text("D")],
    });
    const session = await harness.newSession();
    const { left, current } = await twoBranches(session);
    await session.mergeBranch(left, { into: current });
    const usage = session.usage();

    // The oracle: a plain sum over the stored entries.
    const entries = await storedEntries(fixture.store, session.id);
    let input = 0;
    let output = 0;
    let cost = 0;
    let responses = 0;
    let summaries = 0;
    for (const entry of entries) {
      const counted =
        entry.type === "message" && entry.message.role === "assistant"
          ? entry.message.usage
          : entry.type === "branch_summary"
            ? (entry.details as { usage?: typeof usage } | undefined)?.usage
            : undefined;
      if (counted === undefined) continue;
      if (entry.type === "message") responses++;
      else summaries++;
      input += counted.input;
      output += counted.output;
      cost += counted.cost.total;
    }
    expect(responses).toBe(3); // A and B on the left branch, D on the current one.
    expect(summaries).toBe(1);
    expect(usage.calls).toBe(4);
    expect(usage.input).toBe(input);
    expect(usage.output).toBe(output);
    expect(usage.cost.total).toBeCloseTo(cost, 10);
    expect(usage.output).toBeGreaterThan(0);
    expect(Object.keys(usage.byModel).sort()).toEqual([
      "scripted/scripted-model",
      "summarizer/summarizer-model",
    ]);
    expect(usage.byModel["scripted/scripted-model"]!.calls).toBe(3);
    expect(usage.byModel["summarizer/summarizer-model"]!.calls).toBe(1);
    await harness.close();
  });
});
