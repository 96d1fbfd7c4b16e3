import { type ScriptedProvider, script } from "@arbor/ai-providers/testing";
import type { Session, SessionEntry } from "@arbor/session-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type CompactionPreparation,
  compact,
  estimateContextTokens,
  prepareCompaction,
  resolveCompactionSettings,
} from "../src/index.js";
import { call, newSession, provider } from "./helpers.js";

/** One model response of a turn: some text and up to three tool calls, each with its result. */
const stepArbitrary = fc.record({
  text: fc.integer({ min: 0, max: 300 }),
  /** A user message written between the calls and their results (steering that arrived mid-turn). */
  interjection: fc
    .integer({ min: 0, max: 600 })
    .chain((chars) => fc.constantFrom<number | undefined>(undefined, undefined, undefined, chars)),
  calls: fc.array(
    fc.record({
      tool: fc.constantFrom("read", "edit", "write", "bash"),
      resultChars: fc.integer({ min: 0, max: 4000 }),
      error: fc.boolean(),
    }),
    { maxLength: 3 },
  ),
});

/** One turn: opened by the user (a message, a custom message or a command), then model steps. */
const turnArbitrary = fc.record({
  opener: fc.constantFrom("user", "user", "user", "custom", "bash"),
  requestChars: fc.integer({ min: 0, max: 800 }),
  steps: fc.array(stepArbitrary, { minLength: 1, maxLength: 4 }),
});

const historyArbitrary = fc.array(turnArbitrary, { minLength: 1, maxLength: 10 });

type Turn = typeof turnArbitrary extends fc.Arbitrary<infer T> ? T : never;
type Builders = Awaited<ReturnType<typeof newSession>>;

let callCounter = 0;

function appendHistory(builders: Builders, turns: readonly Turn[]): void {
  const { session, user, assistant, result } = builders;
  for (const turn of turns) {
    const request = "r".repeat(turn.requestChars);
    if (turn.opener === "custom") session.appendCustomMessage({ customType: "note", content: request });
    else if (turn.opener === "bash") {
      session.appendMessage({
        role: "bashExecution",
        command: "make test",
        output: request,
        cancelled: false,
        truncated: false,
        timestamp: builders.clock.ms(),
      });
    } else session.appendMessage(user(request));
    for (const step of turn.steps) {
      const calls = step.calls.map((planned) => ({ ...planned, id: `call-${++callCounter}` }));
      const content = [
        ...(step.text > 0 ? [{ type: "text" as const, text: "a".repeat(step.text) }] : []),
        ...calls.map((planned) => call(planned.id, planned.tool, { path: `src/${planned.id}.ts` })),
      ];
      session.appendMessage(assistant(content.length > 0 ? content : "ok"));
      if (step.interjection !== undefined) session.appendMessage(user("i".repeat(step.interjection)));
      for (const planned of calls) {
        session.appendMessage(
          result(planned.id, "x".repeat(planned.resultChars), {
            toolName: planned.tool,
            isError: planned.error,
          }),
        );
      }
    }
  }
}

/** Index of each tool call's entry and each tool result's entry, by call id. */
function pairIndexes(branch: readonly SessionEntry[]) {
  const calls = new Map<string, number>();
  const results = new Map<string, number>();
  branch.forEach((entry, index) => {
    if (entry.type !== "message") return;
    const message = entry.message;
    if (message.role === "assistant") {
      for (const block of message.content) if (block.type === "toolCall") calls.set(block.id, index);
    } else if (message.role === "toolResult") results.set(message.toolCallId, index);
  });
  return { calls, results };
}

/** The cut invariants: the kept part never starts at a tool result, and no pair straddles the cut. */
function checkCut(branch: readonly SessionEntry[], plan: CompactionPreparation): void {
  const cut = plan.firstKeptEntryIndex;
  const first = branch[cut]!;
  expect(first.type === "message" && first.message.role === "toolResult").toBe(false);
  const { calls, results } = pairIndexes(branch);
  for (const [id, resultIndex] of results) {
    const callIndex = calls.get(id)!;
    expect(callIndex < cut === resultIndex < cut).toBe(true);
  }
}

/** A summarizer that answers each call with a summary of a random size (or a failure), forever. */
function randomSummarizer(sizes: readonly number[], fail: boolean): ScriptedProvider {
  let index = 0;
  return provider(() => {
    const size = sizes[index++ % sizes.length]!;
    return fail && index === 1
      ? script.error("summarizer unavailable")
      : script.text(`## Goal\n${"s".repeat(size)}`);
  });
}

/** Compacts when there is something to compact; returns whether it did. */
async function compactOnce(
  session: Session,
  keepRecentTokens: number,
  summarizer: ScriptedProvider,
): Promise<boolean> {
  const branch = session.getBranch();
  const plan = prepareCompaction(branch, resolveCompactionSettings({ keepRecentTokens }));
  if (plan.kind !== "ready") return false;
  checkCut(branch, plan);
  const outcome = await compact(plan, { stream: summarizer.stream, model: summarizer.model });
  if (outcome.kind !== "compacted") throw new Error("aborted without a signal");
  expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
  session.appendCompaction({ ...outcome, details: outcome.details });
  const context = session.buildContext();
  // Every tool call kept its result and every result its call (an interjection is only moved after them).
  expect(context.repairs.filter((repair) => repair.kind !== "moved_message")).toEqual([]);
  expect(estimateContextTokens(context.messages).tokens).toBe(outcome.tokensAfter);
  return true;
}

describe("properties over random histories", () => {
  it("cut points never start at a tool result nor separate a call from its result", async () => {
    let ready = 0;
    await fc.assert(
      fc.asyncProperty(
        historyArbitrary,
        fc.integer({ min: 0, max: 4000 }),
        async (turns, keepRecentTokens) => {
          const builders = await newSession();
          appendHistory(builders, turns);
          const branch = builders.session.getBranch();
          const plan = prepareCompaction(branch, resolveCompactionSettings({ keepRecentTokens }));
          if (plan.kind === "ready") {
            ready++;
            checkCut(branch, plan);
            const summarized = plan.messagesToSummarize.length + plan.turnPrefixMessages.length;
            expect(summarized + plan.keptMessages.length).toBe(
              builders.session.buildContext().messages.length,
            );
          }
        },
      ),
      { numRuns: 150 },
    );
    expect(ready).toBeGreaterThan(50); // the property is not vacuous
  });

  it("two compactions in a row keep every pair whole and always free space", async () => {
    let compactions = 0;
    let seconds = 0;
    await fc.assert(
      fc.asyncProperty(
        historyArbitrary,
        historyArbitrary,
        fc.integer({ min: 0, max: 3000 }),
        fc.array(fc.integer({ min: 0, max: 30_000 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        async (firstPart, secondPart, keepRecentTokens, summarySizes, fail) => {
          const builders = await newSession();
          const summarizer = randomSummarizer(summarySizes, fail);
          appendHistory(builders, firstPart);
          const first = await compactOnce(builders.session, keepRecentTokens, summarizer);
          appendHistory(builders, secondPart);
          const second = await compactOnce(builders.session, keepRecentTokens, summarizer);
          compactions += Number(first) + Number(second);
          if (first && second) seconds++;
        },
      ),
      { numRuns: 80 },
    );
    expect(compactions).toBeGreaterThan(60);
    expect(seconds).toBeGreaterThan(10);
  });
});
