import { script } from "@arbor/ai-providers/testing";
import { isPrunedToolResult, type PruneEntry, type SessionMessage } from "@arbor/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { estimateTranscriptTokens } from "../src/context-usage.js";
import { createRecallTool, type HarnessSession } from "../src/index.js";
import { PrunedUsage, type PruneInput, pruneSession } from "../src/session-prune.js";
import {
  bulkTool,
  createStoreFixture,
  createTestHarness,
  recordEvents,
  STORE_KINDS,
  type StoreFixture,
  storedEntries,
} from "./helpers.js";

/** The session's context (internal to the harness; the compactor holds the same object). */
function contextOf(session: HarnessSession): PruneInput {
  return (session as unknown as { context: PruneInput }).context;
}

describe.each(STORE_KINDS)("pruneSession (%s store)", (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture(kind);
  });
  afterEach(async () => fixture.cleanup());

  /** A session whose run read six parts of 8,000 characters (about 2,000 tokens each). */
  async function sessionWithToolOutput() {
    const steps = Array.from({ length: 6 }, (_, part) => script.toolCall("bulk", { part }));
    const test = createTestHarness(fixture, {
      steps: [...steps, script.text("Read all six parts.")],
      harness: { tools: [bulkTool(8000)], settings: { compaction: { keepRecentTokens: 2500 } } },
    });
    const session = await test.harness.newSession();
    await session.prompt("Read the six parts");
    expect(test.errors).toEqual([]);
    return { ...test, session };
  }

  it("prunes the oldest tool results to the target, saves the entry and reloads the transcript", async () => {
    const { session, calls } = await sessionWithToolOutput();
    const events = recordEvents(session);
    const context = contextOf(session);
    expect(context.budget().keepRecentTokens).toBe(2500);
    const results = session.session
      .buildContext()
      .messages.flatMap((message, index) =>
        message.role === "toolResult" ? [session.session.buildContext().entryIds[index]!] : [],
      );
    expect(results).toHaveLength(6);

    const estimateBefore = estimateTranscriptTokens(session.state.messages);
    const outcome = await pruneSession(context, { targetTokens: 6000, reloadTranscript: true });
    expect(outcome).toMatchObject({ kind: "pruned", saved: true });
    if (outcome.kind !== "pruned") return;
    // Oldest first, the last results (the kept tail) untouched.
    expect(outcome.entryIds).toEqual(results.slice(0, outcome.count));
    expect(outcome.count).toBeGreaterThanOrEqual(3);
    expect(outcome.count).toBeLessThanOrEqual(5);
    expect(outcome.tokensAfter).toBeLessThanOrEqual(6000);
    expect(outcome.tokensAfter).toBe(outcome.tokensBefore - outcome.freedTokens);
    expect(calls.filter((call) => call === "summarizer")).toEqual([]);
    // Nothing of its own to report: the save point is the writer's.
    expect(events.map((event) => event.type)).toEqual(["save_point"]);

    // Stored at once, with what it did.
    expect(session.session.pendingCount).toBe(0);
    const stored = await storedEntries(fixture.store, session.id);
    const entry = stored.find((candidate): candidate is PruneEntry => candidate.type === "prune")!;
    expect(entry).toMatchObject({
      id: outcome.entryId,
      entryIds: outcome.entryIds,
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      details: { freedTokens: outcome.freedTokens, targetTokens: 6000, keepRecentTokens: 2500 },
    });

    // The agent's transcript is the session's context, stubs included.
    const transcript = session.state.messages as unknown as SessionMessage[];
    expect(JSON.stringify(transcript)).toBe(JSON.stringify(session.session.buildContext().messages));
    expect(transcript.filter(isPrunedToolResult)).toHaveLength(outcome.count);
    expect(outcome.messages).toEqual(session.state.messages);

    // The usage of the last reply still counts the pruned results whole; PrunedUsage corrects for it.
    expect(outcome.tokensBefore).toBe(estimateBefore.tokens);
    expect(outcome.usageAnchor).toBe(session.state.messages[estimateBefore.lastUsageIndex!]);
    const stale = estimateTranscriptTokens(session.state.messages);
    expect(stale.tokens).toBe(outcome.tokensBefore);
    const usage = new PrunedUsage();
    usage.record(outcome);
    expect(stale.tokens - usage.staleTokens(session.state.messages, stale)).toBe(outcome.tokensAfter);

    // A second prune with the same target has nothing left to do.
    const again = await pruneSession(context, { targetTokens: 6000 });
    expect(again.kind).toBe("nothing_to_prune");
    expect((await storedEntries(fixture.store, session.id)).length).toBe(stored.length);
  });

  it("lets recall return a pruned result by its entry id (the stub names it), and lists the prune", async () => {
    const { session } = await sessionWithToolOutput();
    const outcome = await pruneSession(contextOf(session), { targetTokens: 6000, reloadTranscript: true });
    if (outcome.kind !== "pruned") throw new Error("expected a prune");
    const recall = createRecallTool({ getSession: () => session.session, maxBytes: 100_000 });
    const byId = await recall.execute({ entryIds: [outcome.entryIds[0]!] }, { toolCallId: "r1" } as never);
    expect(byId.isError ?? false).toBe(false);
    expect(byId.details?.refusedIds).toEqual([]);
    expect(JSON.stringify(byId.content)).toContain("x".repeat(1000));
    const list = await recall.execute({}, { toolCallId: "r2" } as never);
    expect(JSON.stringify(list.content)).toContain(`Prune ${outcome.entryId}`);
    // A result still whole in the context stays refused.
    const built = session.session.buildContext();
    const whole = built.entryIds.filter((id, index) => {
      const message = built.messages[index]!;
      return id !== undefined && message.role === "toolResult" && !isPrunedToolResult(message);
    });
    const refused = await recall.execute({ entryIds: [whole.at(-1)!] }, { toolCallId: "r3" } as never);
    expect(refused.details?.refusedIds).toEqual([whole.at(-1)]);
  });

  it("leaves the transcript to the caller unless asked (agent-core refuses to replace it during a run)", async () => {
    const { session } = await sessionWithToolOutput();
    const transcript = session.state.messages;
    const outcome = await pruneSession(contextOf(session), { targetTokens: 6000 });
    expect(outcome.kind).toBe("pruned");
    expect(session.state.messages).toBe(transcript);
    if (outcome.kind === "pruned")
      expect(outcome.messages.filter(isPrunedToolResult)).toHaveLength(outcome.count);
  });

  it("PrunedUsage stops correcting once a newer reply anchors the estimate", async () => {
    const { session, provider } = await sessionWithToolOutput();
    const outcome = await pruneSession(contextOf(session), { targetTokens: 6000, reloadTranscript: true });
    const usage = new PrunedUsage();
    usage.record(outcome);
    usage.record({ kind: "nothing_to_prune", reason: "under_target", tokensBefore: 0 });
    const first = estimateTranscriptTokens(session.state.messages);
    expect(usage.staleTokens(session.state.messages, first)).toBe(
      outcome.kind === "pruned" ? outcome.freedTokens : 0,
    );
    provider.push(script.text("Next."));
    await session.prompt("And now?");
    const next = estimateTranscriptTokens(session.state.messages);
    expect(next.lastUsageIndex).toBe(session.state.messages.length - 1);
    expect(usage.staleTokens(session.state.messages, next)).toBe(0);
  });

  it("does nothing under the budget's target, and appends nothing", async () => {
    const { session } = await sessionWithToolOutput();
    const context = contextOf(session);
    const count = session.session.entryCount;
    const transcript = session.state.messages;
    const outcome = await pruneSession(context);
    expect(outcome).toEqual({
      kind: "nothing_to_prune",
      reason: "under_target",
      tokensBefore: expect.any(Number),
    });
    expect(outcome.tokensBefore).toBeLessThan(context.budget().targetTokens);
    expect(session.session.entryCount).toBe(count);
    expect(session.state.messages).toBe(transcript);
  });

  it("counts the messages about to be sent", async () => {
    const { session } = await sessionWithToolOutput();
    const context = contextOf(session);
    const plain = await pruneSession(context, { targetTokens: 1_000_000 });
    const pending = await pruneSession(context, { targetTokens: 1_000_000, pendingTokens: 700 });
    expect(pending.tokensBefore).toBe(plain.tokensBefore + 700);
  });
});
