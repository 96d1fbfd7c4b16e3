import { type ScriptedStep, script } from "@arbor/ai-providers/testing";
import type { CompactionEntry } from "@arbor/session-store";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HarnessCompactionOutcome, HarnessEvent } from "../src/index.js";
import {
  createStoreFixture,
  createTestHarness,
  echoTool,
  messageEntryId,
  recordEvents,
  type StoreFixture,
  textOf,
} from "./helpers.js";

function compactionEnds(events: HarnessEvent[]) {
  return events.filter(
    (event): event is Extract<HarnessEvent, { type: "compaction_end" }> => event.type === "compaction_end",
  );
}

/** The outcome's plain text never shows a reason code. */
function expectPlainWords(outcome: HarnessCompactionOutcome): void {
  expect(outcome.message.length).toBeGreaterThan(10);
  expect(outcome.message).not.toMatch(/fits_in_kept_tail|nothing_to_free|empty_branch|no_cut_point/);
}

describe("compact() asked for by the user", () => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture("memory");
  });
  afterEach(async () => fixture.cleanup());

  it("compacts a short session whose history fits in the kept tail: everything before the last turn", async () => {
    const { harness, summarizer } = createTestHarness(fixture, {
      steps: [script.text("First answer."), script.text("Second answer.")],
    });
    const session = await harness.newSession();
    await session.prompt("First question");
    await session.prompt("Second question");
    const events = recordEvents(session);

    const outcome = await session.compact();

    expect(outcome.kind).toBe("compacted");
    if (outcome.kind !== "compacted") return;
    expect(outcome.firstKeptEntryId).toBe(messageEntryId(session, "Second question"));
    expect(outcome.message).toMatch(/^Compacted the conversation: context about [\d,]+ → [\d,]+ tokens\.$/);
    expect(summarizer.count()).toBe(1);
    // One compaction, announced once: the shrinking happens before compaction_start.
    expect(events.filter((event) => event.type === "compaction_start")).toHaveLength(1);
    expect(compactionEnds(events).map((event) => event.outcome)).toEqual([outcome]);
    const roles = session.state.messages.map((message) => (message as { role: string }).role);
    expect(roles).toEqual(["compactionSummary", "user", "assistant"]);
    expect(textOf(session.state.messages[1])).toBe("Second question");
  });

  it("keeps the last turn whole, its tool calls with their results", async () => {
    const { harness } = createTestHarness(fixture, {
      steps: [
        script.text("First answer."),
        script.toolCall("echo", { text: "one" }),
        script.toolCall("echo", { text: "two" }),
        script.text("Both echoed."),
      ],
      harness: { tools: [echoTool()] },
    });
    const session = await harness.newSession();
    await session.prompt("First question");
    await session.prompt("Echo twice");

    const outcome = await session.compact();

    expect(outcome.kind).toBe("compacted");
    if (outcome.kind !== "compacted") return;
    expect(outcome.firstKeptEntryId).toBe(messageEntryId(session, "Echo twice"));
    const entry = session.session.getEntry(outcome.entryId) as CompactionEntry;
    expect(entry.type).toBe("compaction");
    const roles = session.state.messages.map((message) => (message as { role: string }).role);
    expect(roles).toEqual([
      "compactionSummary",
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "toolResult",
      "assistant",
    ]);
  });

  it("says in plain words why there is nothing to compact: no message, one turn, one turn since the last compaction", async () => {
    const { harness } = createTestHarness(fixture, {
      steps: [script.text("First answer."), script.text("Second answer.")],
    });
    const session = await harness.newSession();

    const empty = await session.compact();
    expect(empty.kind).toBe("nothing_to_compact");
    expect(empty.message).toBe("Nothing to compact yet: the session has no messages.");

    await session.prompt("First question");
    const events = recordEvents(session);
    const one = await session.compact();
    expect(one.kind).toBe("nothing_to_compact");
    expect(one.message).toBe("Nothing to compact yet: the session has only one turn.");
    expect(compactionEnds(events).map((event) => event.outcome.message)).toEqual([one.message]);

    await session.prompt("Second question");
    expect((await session.compact()).kind).toBe("compacted");
    const again = await session.compact();
    expect(again.kind).toBe("nothing_to_compact");
    expect(again.message).toBe("Nothing to compact yet: only the current turn follows the last compaction.");
    for (const outcome of [empty, one, again]) expectPlainWords(outcome);
  });

  it("says when a hook cancelled it or it was aborted", async () => {
    const { harness } = createTestHarness(fixture, {
      steps: [script.text("First answer."), script.text("Second answer.")],
    });
    const session = await harness.newSession();
    await session.prompt("First question");
    await session.prompt("Second question");

    const off = session.on("session_before_compact", () => ({ cancel: true }));
    const cancelled = await session.compact();
    expect(cancelled.kind).toBe("cancelled");
    expect(cancelled.message).toBe(
      "Compaction cancelled by a session_before_compact hook; the session is unchanged.",
    );
    off();

    session.on("session_before_compact", () => {
      session.abort();
      return undefined;
    });
    const aborted = await session.compact();
    expect(aborted.kind).toBe("aborted");
    expect(aborted.message).toBe("Compaction aborted; the session is unchanged.");
    expect(session.session.getPath().some((ref) => ref.type === "compaction")).toBe(false);
  });

  it("an automatic compaction does not shrink the kept tail", async () => {
    // Threshold 4,000 - 1,000 = 3,000 tokens: the third prompt (3,500 tokens) crosses it, while the two
    // short turns before it fit in the kept tail.
    const { harness } = createTestHarness(fixture, {
      steps: [script.text("First answer."), script.text("Second answer."), script.text("Third answer.")],
      model: { contextWindow: 4000 },
      harness: { settings: { compaction: { reserveTokens: 1000, keepRecentTokens: 1500 } } },
    });
    const session = await harness.newSession();
    await session.prompt("First question");
    await session.prompt("Second question");
    const events = recordEvents(session);
    await session.prompt("x".repeat(14_000));
    const ends = compactionEnds(events);
    expect(ends.map((event) => [event.reason, event.outcome.kind])).toEqual([
      ["threshold", "nothing_to_compact"],
    ]);
    expect(ends[0]!.outcome.message).toBe(
      "Nothing to compact: the conversation fits in the recent part that compaction keeps verbatim (compaction.keepRecentTokens).",
    );
    expect(session.session.getPath().some((ref) => ref.type === "compaction")).toBe(false);
  });

  it("property: any session of short turns compacts everything before its last turn, which stays whole", async () => {
    // Each turn: a prompt, up to two tool calls (each answered by its result), a closing reply.
    const turns = fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 5 });
    await fc.assert(
      fc.asyncProperty(turns, async (toolCalls) => {
        const steps: ScriptedStep[] = [];
        toolCalls.forEach((calls, turn) => {
          for (let call = 0; call < calls; call++)
            steps.push(script.toolCall("echo", { text: `${turn}.${call}` }));
          steps.push(script.text(`Answer ${turn}.`));
        });
        const store = await createStoreFixture("memory");
        try {
          const { harness, provider } = createTestHarness(store, { steps, harness: { tools: [echoTool()] } });
          const session = await harness.newSession();
          for (let turn = 0; turn < toolCalls.length; turn++) await session.prompt(`Question ${turn}`);
          provider.assertDone();
          const outcome = await session.compact();
          const last = toolCalls.length - 1;
          if (toolCalls.length === 1) {
            expect(outcome.kind).toBe("nothing_to_compact");
            expect(outcome.message).toBe("Nothing to compact yet: the session has only one turn.");
            return;
          }
          expect(outcome.kind).toBe("compacted");
          if (outcome.kind !== "compacted") return;
          expect(outcome.firstKeptEntryId).toBe(messageEntryId(session, `Question ${last}`));
          const [summary, ...kept] = session.state.messages as unknown as {
            role: string;
            toolCallId?: string;
          }[];
          expect(summary!.role).toBe("compactionSummary");
          // The last turn whole: its prompt, each call with its result, the reply.
          expect(kept.map((message) => message.role)).toEqual([
            "user",
            ...Array.from({ length: toolCalls[last]! }, () => ["assistant", "toolResult"]).flat(),
            "assistant",
          ]);
          expect(textOf(kept[0])).toBe(`Question ${last}`);
        } finally {
          await store.cleanup();
        }
      }),
      { numRuns: 20 },
    );
  });
});
