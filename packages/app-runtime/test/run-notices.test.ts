import { createProviderStream, type StreamFn } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { createHarness } from "@arbor/harness";
import { MemorySessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { compactionProgressNotice, reportRunNotices, responseNotices } from "../src/index.js";

describe("reportRunNotices", () => {
  it("writes each part of a reply its provider could not read, as the reply ends", async () => {
    const { model } = createScriptedProvider(() => script.text("unused"));
    const streamFn: StreamFn = (streamModel, _context, options) =>
      createProviderStream(streamModel, options, ({ writer }) => {
        writer.text("4");
        writer.unreadable('content block "citations"');
      });
    const harness = createHarness({ streamFn, model, store: new MemorySessionStore(), cwd: "/tmp" });
    const session = await harness.newSession();
    const lines: string[] = [];
    const stop = reportRunNotices(session, (line) => lines.push(line));
    await session.prompt("2+2?");
    stop();
    await harness.close();
    expect(lines).toEqual(['Arbor could not read part of this response: content block "citations".']);
  });

  it("writes a line as a compaction starts and one with its outcome as it ends", async () => {
    const { model, stream } = createScriptedProvider(() => script.text("unused"));
    const harness = createHarness({ streamFn: stream, model, store: new MemorySessionStore(), cwd: "/tmp" });
    const session = await harness.newSession();
    const lines: string[] = [];
    const stop = reportRunNotices(session, (line) => lines.push(line));
    const outcome = await session.compact();
    stop();
    const usage = session.contextUsage();
    await harness.close();
    const window = usage.contextWindow.toLocaleString("en-US");
    const threshold = usage.compactionThreshold.toLocaleString("en-US");
    expect(lines).toEqual([
      `compacting the context (about 0 of ${window} tokens, threshold ${threshold})…`,
      outcome.message,
    ]);
    expect(outcome.kind).toBe("nothing_to_compact");
  });

  it("reads notices only from assistant messages", () => {
    expect(responseNotices({ role: "user", notices: ["x"] })).toEqual([]);
    expect(responseNotices({ role: "assistant", notices: ["a", 3, ""] })).toEqual(["a"]);
    expect(responseNotices(undefined)).toEqual([]);
  });
});

describe("compactionProgressNotice", () => {
  const meter = { contextWindow: 6000, compactionThreshold: 4800 };

  it("says the size, the window and the threshold as a compaction starts", () => {
    expect(
      compactionProgressNotice({ type: "compaction_start", reason: "threshold", tokensBefore: 5812 }, meter),
    ).toBe("compacting the context (about 5,812 of 6,000 tokens, threshold 4,800)…");
    expect(
      compactionProgressNotice({ type: "compaction_start", reason: "overflow", tokensBefore: 6400 }, meter),
    ).toBe(
      "compacting the context, which the model found too long (about 6,400 of 6,000 tokens, threshold 4,800)…",
    );
  });

  it("says the outcome's own words as it ends, and nothing for other events", () => {
    const message = "Compacted the conversation: context about 5,812 → 2,900 tokens.";
    const outcome = {
      kind: "compacted" as const,
      entryId: "c1",
      summary: "## Goal",
      firstKeptEntryId: "e5",
      tokensBefore: 5812,
      tokensAfter: 2900,
      fromHook: false,
      message,
    };
    const end = {
      type: "compaction_end" as const,
      reason: "threshold" as const,
      outcome,
      tokensBefore: 5812,
      tokensAfter: 2900,
    };
    expect(compactionProgressNotice(end, meter)).toBe(message);
    expect(compactionProgressNotice({ type: "turn_start" }, meter)).toBeUndefined();
  });
});
