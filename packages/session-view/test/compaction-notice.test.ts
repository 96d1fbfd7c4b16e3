import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { createHarness } from "@arbor/harness";
import { MemorySessionStore } from "@arbor/session-store";
import { describe, expect, test } from "vitest";
import { compactionNotice } from "../src/index.js";

const over = { tokens: 5812, contextWindow: 6000, compactionThreshold: 4800 };
const nothing = {
  kind: "nothing_to_compact" as const,
  message:
    "Nothing to compact: the conversation fits in the recent part that compaction keeps verbatim (compaction.keepRecentTokens).",
};

describe("compactionNotice", () => {
  test("over the threshold after a compaction that freed nothing: a warning with its words and the meter's", () => {
    expect(compactionNotice(nothing, over)).toEqual({
      level: "warning",
      text: `${nothing.message} The context stays above the compaction threshold: about 5,812 of 6,000 tokens (threshold 4,800).`,
      outcome: "nothing_to_compact",
      message: nothing.message,
      tokens: 5812,
      contextWindow: 6000,
      compactionThreshold: 4800,
    });
    const cancelled = { kind: "cancelled" as const, message: "Compaction cancelled by a hook" };
    expect(compactionNotice(cancelled, over)?.text).toBe(
      "Compaction cancelled by a hook. The context stays above the compaction threshold: about 5,812 of 6,000 tokens (threshold 4,800).",
    );
    expect(compactionNotice({ kind: "failed", message: "The summarizer failed." }, over)?.outcome).toBe(
      "failed",
    );
  });

  test("none before any compaction, after one that compacted or was aborted, or at or under the threshold", () => {
    expect(compactionNotice(undefined, over)).toBeUndefined();
    const compacted = {
      kind: "compacted" as const,
      message: "Compacted the conversation: context about 5,812 → 2,900 tokens.",
    };
    expect(compactionNotice(compacted, over)).toBeUndefined();
    expect(compactionNotice({ kind: "aborted", message: "Compaction aborted." }, over)).toBeUndefined();
    expect(compactionNotice(nothing, { ...over, tokens: 4800 })).toBeUndefined();
    expect(compactionNotice(nothing, { ...over, tokens: 1200 })).toBeUndefined();
  });

  test("from a real session over a small window whose compaction a hook cancels", async () => {
    const provider = createScriptedProvider([script.text("lorem ipsum dolor sit amet ".repeat(400))], {
      model: { contextWindow: 2000 },
    });
    const harness = createHarness({
      streamFn: provider.stream,
      model: provider.model,
      store: new MemorySessionStore(),
      cwd: "/tmp",
      settings: { compaction: { enabled: false } },
      hooks: { session_before_compact: () => ({ cancel: true }) },
    });
    const session = await harness.newSession();
    await session.prompt("a long answer, please");
    const outcome = await session.compact();
    const usage = session.contextUsage();
    await harness.close();
    expect(outcome.kind).toBe("cancelled");
    expect(usage.tokens).toBeGreaterThan(usage.compactionThreshold);
    const notice = compactionNotice(outcome, usage);
    expect(notice?.text.startsWith(outcome.message)).toBe(true);
    expect(notice?.text).toContain(
      `of 2,000 tokens (threshold ${usage.compactionThreshold.toLocaleString("en-US")})`,
    );
  });
});
