import type { AssistantStream, Context, Model, StreamFn, StreamOptions } from "@arbor/ai-providers";
import { estimateContextChars, type ScriptedStep, script } from "@arbor/ai-providers/testing";
import type { Session } from "@arbor/session-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compact,
  effectiveCompactionSettings,
  elideOversizedMessages,
  estimateContextTokens,
  prepareCompaction,
  resolveCompactionSettings,
  shouldCompact,
  summaryOutputTokens,
} from "../src/index.js";
import { call, filler, newSession, provider } from "./helpers.js";

/**
 * Oversize sessions against windows of 4k to 1M tokens and summarizers that misbehave: every summarizer
 * request fits its window, every compaction that runs frees space and stays within the output cap, an
 * over-budget session always gets a compaction, and what the kept tail still holds over the window is
 * elided so that the next model call fits. Time is bounded by short `timeoutMs` values, never measured.
 */

type Shape = "single-huge-message" | "huge-previous-summary" | "thousands-of-turns" | "many-large-turns";
type Behaviour = "normal" | "too-long" | "empty" | "enormous" | "capped" | "ignores-max-tokens" | "hangs";

const WINDOWS = fc.oneof(
  fc.constantFrom(4096, 6000, 8192, 32_000, 128_000, 200_000, 1_000_000),
  fc.integer({ min: 4096, max: 1_000_000 }),
);

const caseArbitrary = fc.record({
  window: WINDOWS,
  shape: fc.constantFrom<Shape>(
    "single-huge-message",
    "huge-previous-summary",
    "thousands-of-turns",
    "many-large-turns",
  ),
  behaviour: fc.constantFrom<Behaviour>(
    "normal",
    "too-long",
    "empty",
    "enormous",
    "capped",
    "ignores-max-tokens",
    "hangs",
  ),
  maxTokens: fc.constantFrom(4096, 16_384, 64_000),
  overWindow: fc.double({ min: 1.05, max: 1.6, noNaN: true }),
});

type Case = typeof caseArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** Most characters one summarizer response carries (an "enormous" one is that long, whatever the window). */
const MAX_RESPONSE_CHARS = 3_000_000;

const never = () => new Promise<never>(() => undefined);
const hanging: StreamFn = () =>
  ({
    [Symbol.asyncIterator]: () => ({ next: never }),
    result: never,
  }) as unknown as AssistantStream;

interface Recorded {
  model: Model;
  context: Context;
  maxTokens: number;
}

/** The summarizer a behaviour names, recording every request it receives. */
function summarizerFor(behaviour: Behaviour, window: number, maxTokens: number) {
  const requests: Recorded[] = [];
  const scripted = provider([], { contextWindow: window, maxTokens });
  const respond = (asked: number): ScriptedStep => {
    switch (behaviour) {
      case "too-long":
        return script.overflow();
      case "empty":
        return script.text("");
      case "enormous":
        return script.text(`## Goal\n${filler(MAX_RESPONSE_CHARS, "enormous")}`);
      case "capped":
        return script.text(`## Goal\n${filler(asked * 4 - 8, "capped")}`);
      case "ignores-max-tokens":
        return script.text(`## Goal\n${filler(Math.min(MAX_RESPONSE_CHARS, asked * 12), "ignored")}`);
      default:
        return script.text(`## Goal\n- carry on\n${filler(Math.min(asked * 2, 2000), "normal")}`);
    }
  };
  const stream: StreamFn = (model: Model, context: Context, options?: StreamOptions) => {
    const asked = Number(options?.maxTokens);
    requests.push({ model, context, maxTokens: asked });
    if (behaviour === "hangs") return hanging(model, context, options);
    scripted.push(respond(asked));
    return scripted.stream(model, context, options);
  };
  return { model: scripted.model, stream, requests };
}

/** A session over `window × overWindow` tokens of the given shape; the newest entry is a short prompt's answer. */
async function oversizeSession(test: Case): Promise<Session> {
  const { session, user, assistant, result } = await newSession();
  const targetChars = Math.ceil(test.window * test.overWindow * 4);
  switch (test.shape) {
    case "single-huge-message": {
      session.appendMessage(user("Read the log"));
      session.appendMessage(assistant("Reading."));
      session.appendMessage(user("Now read the dump"));
      session.appendMessage(assistant([call("huge", "read", { path: "dump.log" })]));
      session.appendMessage(result("huge", filler(targetChars, "dump")));
      break;
    }
    case "huge-previous-summary": {
      session.appendMessage(user("Start"));
      const kept = session.appendMessage(user("Continue the work"));
      session.appendMessage(assistant("Working."));
      session.appendCompaction({
        summary: `## Goal\n- finish the port\n${filler(Math.min(targetChars, 4_800_000), "summary")}`,
        firstKeptEntryId: kept.id,
        tokensBefore: test.window,
        details: { readFiles: ["src/port.ts"], modifiedFiles: [] },
      });
      session.appendMessage(user("One more step"));
      session.appendMessage(assistant("Done."));
      break;
    }
    case "thousands-of-turns": {
      const turns = 2000;
      const size = Math.ceil(targetChars / turns);
      for (let turn = 0; turn < turns; turn++) {
        session.appendMessage(user(`Step ${turn}`));
        session.appendMessage(assistant(filler(size, `answer${turn % 10}`)));
      }
      break;
    }
    case "many-large-turns": {
      const turns = 12;
      const size = Math.ceil(targetChars / turns);
      for (let turn = 0; turn < turns; turn++) {
        session.appendMessage(user(`Request ${turn}`));
        session.appendMessage(assistant([call(`r${turn}`, "read", { path: `src/f${turn}.ts` })]));
        session.appendMessage(result(`r${turn}`, filler(size, `file${turn}`)));
      }
      session.appendMessage(assistant("All read."));
      break;
    }
  }
  session.appendMessage(user("What next?"));
  return session;
}

describe("compaction always frees space (oversize sessions, misbehaving summarizers)", () => {
  it("every request fits, every compaction frees space within the cap, and the next call fits", async () => {
    const seen = new Set<string>();
    await fc.assert(
      fc.asyncProperty(caseArbitrary, async (test) => {
        const session = await oversizeSession(test);
        const { settings } = effectiveCompactionSettings(
          resolveCompactionSettings({ timeoutMs: 20 }),
          test.window,
        );
        const before = estimateContextTokens(session.buildContext().messages).tokens;
        expect(shouldCompact(before, test.window, settings)).toBe(true);

        const summarizer = summarizerFor(test.behaviour, test.window, test.maxTokens);
        const plan = prepareCompaction(session.getBranch(), settings, { contextWindow: test.window });
        // An over-budget session always has something to compact.
        expect(plan.kind).toBe("ready");
        if (plan.kind !== "ready") return;
        const outcome = await compact(plan, { stream: summarizer.stream, model: summarizer.model });
        if (outcome.kind !== "compacted") throw new Error("aborted without a signal");
        seen.add(`${test.shape}/${test.behaviour}`);

        for (const request of summarizer.requests) {
          const input = Math.ceil(estimateContextChars(request.context) / 4);
          expect(input + request.maxTokens).toBeLessThanOrEqual(request.model.contextWindow);
        }
        expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
        const cap = summaryOutputTokens(summarizer.model, settings.reserveTokens);
        expect(Math.ceil(outcome.summary.length / 4)).toBeLessThanOrEqual(cap);

        session.appendCompaction({ ...outcome, details: outcome.details });
        const context = session.buildContext();
        expect(estimateContextTokens(context.messages).tokens).toBe(outcome.tokensAfter);
        // What the kept tail still holds over the window is elided for the next call.
        const budget = test.window - settings.reserveTokens;
        const next = elideOversizedMessages(context, budget);
        expect(next.fits).toBe(true);
        expect(next.tokens).toBeLessThanOrEqual(budget);
      }),
      { numRuns: 60, endOnFailure: true },
    );
    expect(seen.size).toBeGreaterThan(12); // the property covered many shape × behaviour pairs
  }, 120_000);
});
