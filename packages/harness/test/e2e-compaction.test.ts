import type { AgentMessage } from "@arbor/agent-core";
import type { Context } from "@arbor/ai-providers";
import { script } from "@arbor/ai-providers/testing";
import { COMPACTION_SUMMARY_PREFIX, type CompactionEntry } from "@arbor/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HarnessEvent } from "../src/index.js";
import {
  bulkTool,
  createStoreFixture,
  createTestHarness,
  recordEvents,
  STORE_KINDS,
  type StoreFixture,
  storedEntries,
  textOf,
} from "./helpers.js";

/** A small window so that a tool loop crosses the threshold: compaction above 6,000 - 1,000 = 5,000 tokens. */
const model = { contextWindow: 6000 };
/** Pruning off: these tests are about the summary (the window sweep and session-prune tests cover pruning). */
const compaction = { reserveTokens: 1000, keepRecentTokens: 1500, prune: false };

function startsWithSummary(context: Context): boolean {
  return textOf(context.messages[0]).startsWith(COMPACTION_SUMMARY_PREFIX);
}

function ofType<T extends HarnessEvent["type"]>(events: HarnessEvent[], type: T) {
  return events.filter((event): event is Extract<HarnessEvent, { type: T }> => event.type === type);
}

describe.each(STORE_KINDS)("compaction end to end (%s store)", (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture(kind);
  });
  afterEach(async () => fixture.cleanup());

  it("compacts before the next model call when a tool loop crosses the threshold, and finishes the run", async () => {
    const steps = Array.from({ length: 12 }, (_, part) => script.toolCall("bulk", { part }));
    const { harness, provider, summarizer, calls, errors } = createTestHarness(fixture, {
      steps: [...steps, script.text("All twelve parts read.")],
      model,
      harness: { tools: [bulkTool(2400)], settings: { compaction } },
    });
    const session = await harness.newSession();
    const events = recordEvents(session);
    await session.prompt("Read the twelve parts");

    expect(errors).toEqual([]);
    provider.assertDone();
    // The summarizer ran in the middle of the run, between two model calls of the tool loop.
    const firstSummary = calls.indexOf("summarizer");
    expect(firstSummary).toBeGreaterThan(0);
    expect(calls.lastIndexOf("main")).toBeGreaterThan(firstSummary);
    const mainBefore = calls.slice(0, firstSummary).filter((call) => call === "main").length;
    const afterCompaction = provider.calls[mainBefore]!;
    expect(startsWithSummary(afterCompaction.context)).toBe(true);
    expect(startsWithSummary(provider.calls[mainBefore - 1]!.context)).toBe(false);
    // Every call fitted the window: the check ran before each of them.
    for (const call of provider.calls) {
      const input = Math.ceil(JSON.stringify(call.context).length / 4);
      expect(input).toBeLessThan(model.contextWindow * 1.5);
    }
    expect(textOf(session.state.messages.at(-1))).toBe("All twelve parts read.");
    expect(session.phase).toBe("idle");

    const starts = ofType(events, "compaction_start");
    const ends = ofType(events, "compaction_end");
    expect(starts.length).toBeGreaterThanOrEqual(1);
    expect(starts.every((event) => event.reason === "threshold")).toBe(true);
    const end = ends[0]!;
    expect(end.outcome.kind).toBe("compacted");
    expect(end.tokensBefore).toBeGreaterThan(model.contextWindow - compaction.reserveTokens);
    expect(end.tokensAfter).toBeLessThan(end.tokensBefore);
    expect(summarizer.count()).toBeGreaterThanOrEqual(1);

    // The compaction entry carries what the issue asks for.
    const stored = await storedEntries(fixture.store, session.id);
    const entry = stored.find((candidate): candidate is CompactionEntry => candidate.type === "compaction")!;
    expect(entry.tokensBefore).toBe(end.tokensBefore);
    const details = entry.details as Record<string, unknown>;
    expect(details.tokensAfter).toBe(end.tokensAfter);
    expect(details.reason).toBe("threshold");
    expect(details.covered).toMatchObject({ entryCount: expect.any(Number) });
    expect((details.usage as { totalTokens: number }).totalTokens).toBeGreaterThan(0);
    expect(details.summarizerModel).toBe("summarizer/summarizer-model");

    // The transcript is the session's context.
    const rebuilt = session.session.buildContext().messages;
    expect(JSON.stringify(session.state.messages)).toBe(JSON.stringify(rebuilt));
  });

  it("compacts and retries once after a context overflow", async () => {
    const { harness, provider, calls } = createTestHarness(fixture, {
      steps: [
        script.toolCall("bulk", { part: 1 }),
        script.toolCall("bulk", { part: 2 }),
        script.toolCall("bulk", { part: 3 }),
        script.text("Three parts read."),
        script.overflow(),
        script.text("Recovered after compaction."),
      ],
      model: { contextWindow: 100_000 },
      harness: {
        tools: [bulkTool(2400)],
        settings: { compaction: { reserveTokens: 1000, keepRecentTokens: 800 } },
      },
    });
    const session = await harness.newSession();
    await session.prompt("Read three parts");
    const events = recordEvents(session);
    await session.prompt("Now summarize them");

    provider.assertDone();
    expect(calls.slice(-3)).toEqual(["main", "summarizer", "main"]);
    const [compactionStart] = ofType(events, "compaction_start");
    expect(compactionStart?.reason).toBe("overflow");
    expect(ofType(events, "compaction_end")[0]?.outcome.kind).toBe("compacted");
    expect(ofType(events, "retry_scheduled")).toEqual([]);
    const retried = provider.calls.at(-1)!.context;
    expect(startsWithSummary(retried)).toBe(true);
    expect(textOf(retried.messages.at(-1))).toBe("Now summarize them");
    expect(textOf(session.state.messages.at(-1))).toBe("Recovered after compaction.");
    expect(session.state.errorMessage).toBeUndefined();

    // The failed response is in the store, but not on the path the model sees.
    const stored = await storedEntries(fixture.store, session.id);
    const failed = stored.find(
      (entry) =>
        entry.type === "message" && (entry.message as { stopReason?: string }).stopReason === "error",
    );
    expect(failed).toBeDefined();
    const pathIds = session.session.getPath().map((ref) => ref.id);
    expect(pathIds).not.toContain(failed!.id);
    expect(
      (session.state.messages as AgentMessage[]).some(
        (message) => message.role === "assistant" && message.stopReason === "error",
      ),
    ).toBe(false);
  });

  it("gives up after one overflow recovery: a second overflow stays an error", async () => {
    const { harness, provider } = createTestHarness(fixture, {
      steps: [
        script.toolCall("bulk", { part: 1 }),
        script.toolCall("bulk", { part: 2 }),
        script.text("Two parts read."),
        script.overflow(),
        script.overflow(),
      ],
      harness: {
        tools: [bulkTool(2400)],
        settings: { compaction: { reserveTokens: 1000, keepRecentTokens: 600 } },
      },
    });
    const session = await harness.newSession();
    await session.prompt("Read two parts");
    const events = recordEvents(session);
    await session.prompt("And again");
    provider.assertDone();
    expect(ofType(events, "compaction_end").map((event) => event.outcome.kind)).toEqual(["compacted"]);
    expect(session.state.errorMessage).toMatch(/prompt is too long/);
    expect(session.phase).toBe("idle");
  });

  it("compact() runs on demand and reports tokens before and after", async () => {
    const { harness } = createTestHarness(fixture, {
      steps: [script.toolCall("bulk", { part: 1 }), script.toolCall("bulk", { part: 2 }), script.text("ok")],
      harness: { tools: [bulkTool(2400)], settings: { compaction: { keepRecentTokens: 700 } } },
    });
    const session = await harness.newSession();
    await session.prompt("go");
    const before = session.contextUsage();
    const outcome = await session.compact("Keep the part numbers");
    expect(outcome.kind).toBe("compacted");
    if (outcome.kind !== "compacted") return;
    expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
    const after = session.contextUsage();
    expect(after.tokens).toBeLessThan(before.tokens);
    expect((session.state.messages[0] as { role: string }).role).toBe("compactionSummary");
    const nothing = await session.compact();
    expect(nothing.kind).toBe("nothing_to_compact");
  });

  it("the recall tool brings back the exact entries a compaction replaced", async () => {
    const { harness, provider } = createTestHarness(fixture, {
      steps: [
        script.toolCall("bulk", { part: 1 }),
        script.toolCall("bulk", { part: 2 }),
        script.toolCall("bulk", { part: 3 }),
        script.text("three parts"),
        script.toolCall("recall", { query: "part 1" }),
        script.text("Part 1 was all x."),
      ],
      harness: { tools: [bulkTool(2400)], settings: { compaction: { keepRecentTokens: 700 } } },
    });
    const session = await harness.newSession();
    await session.prompt("read three parts");
    expect((await session.compact()).kind).toBe("compacted");
    const inContext = session.state.messages.some((message) => textOf(message).startsWith("part 1:"));
    expect(inContext).toBe(false);
    await session.prompt("What exactly was in part 1?");
    provider.assertDone();
    const recalled = provider.calls.at(-1)!.context.messages.at(-1)!;
    expect(recalled.role).toBe("toolResult");
    expect(textOf(recalled)).toContain(`part 1: ${"x".repeat(100)}`);
  });
});
