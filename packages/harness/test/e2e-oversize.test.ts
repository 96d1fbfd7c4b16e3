import { script } from "@arbor/ai-providers/testing";
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

/** A 6,000-token window against a tool result of about 50,000 tokens (one message larger than the window). */
const model = { contextWindow: 6000 };
const HUGE = 200_000;

function estimatedTokens(value: unknown): number {
  return Math.ceil(JSON.stringify(value).length / 4);
}

describe.each(STORE_KINDS)("a message larger than the window (%s store)", (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture(kind);
  });
  afterEach(async () => fixture.cleanup());

  it("elides the oversized tool result for the model call only, and the run ends with the answer", async () => {
    const { harness, provider, errors } = createTestHarness(fixture, {
      steps: [
        script.toolCall("bulk", { part: 1 }),
        script.text("The part is all x."),
        script.text("Still here."),
      ],
      model,
      // The tool opts out of the tool-output budget, so that its result stays larger than the window.
      harness: { tools: [{ ...bulkTool(HUGE), maxOutputTokens: 1_000_000 }] },
    });
    const session = await harness.newSession();
    await session.prompt("Read part 1");
    await session.prompt("And now?");

    expect(errors).toEqual([]);
    provider.assertDone();
    expect(provider.calls.length).toBe(3);
    for (const call of provider.calls) {
      expect(estimatedTokens(call.context)).toBeLessThan(model.contextWindow);
    }
    expect(textOf(session.state.messages.at(-1))).toBe("Still here.");

    // The entry on disk stays whole; the model saw a marker naming it and how to recall it.
    const stored = await storedEntries(fixture.store, session.id);
    const result = stored.find((entry) => entry.type === "message" && entry.message.role === "toolResult");
    expect(result).toBeDefined();
    expect(JSON.stringify(result).length).toBeGreaterThan(HUGE);
    const seen = JSON.stringify(provider.calls[1]!.context);
    expect(seen).toContain(`recall({\\"entryIds\\":[\\"${result!.id}\\"]})`);
  });

  it("clamps settings that cannot work for the window, warns once, and shows the reserve in effect", async () => {
    const { harness, errors } = createTestHarness(fixture, {
      steps: [script.text("ok")],
      model,
      harness: { settings: { compaction: { reserveTokens: 16_384, keepRecentTokens: 20_000 } } },
    });
    const session = await harness.newSession();
    await session.prompt("hi");
    expect(errors).toEqual([]);
    const usage = session.contextUsage();
    expect(usage.reserveTokens).toBe(1500);
    expect(usage.compactionThreshold).toBe(4500);
    const warnings = session.warnings.filter((warning) => warning.includes("compaction."));
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain("reserveTokens 16,384");
    expect(warnings[1]).toContain("keepRecentTokens");
    session.contextUsage();
    expect(session.warnings.filter((warning) => warning.includes("compaction."))).toHaveLength(2);
  });
});
