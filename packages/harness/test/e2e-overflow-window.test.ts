import type { Context } from "@arbor/ai-providers";
import { type ScriptedStep, script } from "@arbor/ai-providers/testing";
import type { CustomEntry } from "@arbor/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  bulkTool,
  createStoreFixture,
  createTestHarness,
  STORE_KINDS,
  type StoreFixture,
  storedEntries,
  textOf,
} from "./helpers.js";

/** The model claims 100,000 tokens; the server behind it accepts 6,000. */
const LIMIT = 6000;
const model = { contextWindow: 100_000 };

function tokensOf(context: Context): number {
  return Math.ceil(JSON.stringify(context).length / 4);
}

/**
 * A server with a 6,000-token limit answering a tool loop of `parts` reads: an overflow error (worded as
 * `wording` says) when the request is over the limit, the next read while parts remain, then the answer.
 */
function limitedServer(parts: number, wording: (tokens: number) => string): ScriptedStep[] {
  const step = script.dynamic((call) => {
    const tokens = tokensOf(call.context);
    if (tokens > LIMIT) return script.error(wording(tokens));
    const last = call.context.messages.at(-1);
    const read = last?.role === "toolResult" ? Number(/part (\d+):/.exec(textOf(last))?.[1] ?? 0) : 0;
    return read < parts
      ? script.toolCall("bulk", { part: read + 1 })
      : script.text(`All ${parts} parts read.`);
  });
  return Array.from({ length: 60 }, () => step);
}

describe.each(STORE_KINDS)("an overflow teaches the window (%s store)", (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture(kind);
  });
  afterEach(async () => fixture.cleanup());

  it("takes the limit an overflow error states as the session's window, records it, and finishes the run", async () => {
    const { harness, provider, errors } = createTestHarness(fixture, {
      steps: limitedServer(16, (tokens) => `prompt is too long: ${tokens} tokens > ${LIMIT} maximum`),
      model,
      harness: { tools: [bulkTool(2400)] },
    });
    const session = await harness.newSession();
    await session.prompt("Read the sixteen parts");

    expect(errors).toEqual([]);
    expect(session.state.errorMessage).toBeUndefined();
    expect(textOf(session.state.messages.at(-1))).toBe("All 16 parts read.");
    // One overflow taught the window; the threshold kept every later call within it.
    const over = provider.calls.filter((call) => tokensOf(call.context) > LIMIT);
    expect(over).toHaveLength(1);
    // This server counts more tokens than the local estimate (it counts the JSON of the request): the window
    // is the stated limit in the estimate's units, below it.
    const window = session.contextUsage().contextWindow;
    expect(window).toBeLessThanOrEqual(LIMIT);
    expect(window).toBeGreaterThan(LIMIT * 0.6);

    const stored = await storedEntries(fixture.store, session.id);
    const learned = stored.filter(
      (entry): entry is CustomEntry => entry.type === "custom" && entry.customType === "arbor.context_window",
    );
    expect(learned).toHaveLength(1);
    expect(learned[0]!.data).toMatchObject({
      contextWindow: window,
      stated: LIMIT,
      modelId: session.state.model.id,
    });

    await session.close();
    const reopened = await harness.openSession(session.id);
    expect(reopened.contextUsage().contextWindow).toBe(window);
  });

  it("takes 90% of the refused request as the window when an overflow states no limit, and finishes the run", async () => {
    const { harness, errors } = createTestHarness(fixture, {
      steps: limitedServer(11, () => "context_length_exceeded"),
      model,
      harness: { tools: [bulkTool(2400)] },
    });
    const session = await harness.newSession();
    const ends: string[] = [];
    session.subscribe((event) => {
      if (event.type === "compaction_end") ends.push(event.outcome.kind);
    });
    await session.prompt("Read the eleven parts");

    expect(errors).toEqual([]);
    expect(session.state.errorMessage).toBeUndefined();
    expect(textOf(session.state.messages.at(-1))).toBe("All 11 parts read.");
    // The refused request was just over 6,000 tokens: the window learned is below it, and the retry, fitted
    // to it, was accepted in the same run.
    expect(ends).toEqual(["compacted"]);
    const learned = session.contextUsage().contextWindow;
    expect(learned).toBeLessThan(LIMIT);
    expect(learned).toBeGreaterThan(LIMIT * 0.8);
  });

  it("answers a first read larger than the window: the learned window elides what compaction cannot free", async () => {
    const { harness, provider, errors } = createTestHarness(fixture, {
      steps: [
        script.toolCall("bulk", { part: 1 }),
        ...limitedServer(
          1,
          (tokens) =>
            `This model's maximum context length is ${LIMIT} tokens. However, you requested ${tokens} tokens.`,
        ),
      ],
      model,
      harness: { tools: [bulkTool(40_000)] },
    });
    const session = await harness.newSession();
    await session.prompt("Read part 1");

    expect(errors).toEqual([]);
    expect(session.state.errorMessage).toBeUndefined();
    expect(textOf(session.state.messages.at(-1))).toBe("All 1 parts read.");
    expect(provider.calls.filter((call) => tokensOf(call.context) > LIMIT)).toHaveLength(1);
    expect(tokensOf(provider.calls.at(-1)!.context)).toBeLessThanOrEqual(LIMIT);
    // The stated limit, in the local estimate's units (this server counts the JSON of the request).
    expect(session.contextUsage().contextWindow).toBeLessThanOrEqual(LIMIT);
  });
});
