/**
 * The meter's notice: over the compaction threshold after a compaction that freed nothing, `get_context`
 * carries a warning (`compactionNotice` of `@arbor/session-view`) with the outcome's words and the meter's
 * figures; a later compaction that succeeds takes it away. The scripted model gets a 6,000-token window
 * (`modelLimits`), and an extension cancels every automatic compaction (a manual one goes through).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { command, type Json, testDemo } from "./helpers.js";

let context: Awaited<ReturnType<typeof testDemo>>;
let folder: string;

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "arbor-demo-notice-"));
  mkdirSync(join(folder, ".arbor"));
  writeFileSync(
    join(folder, ".arbor", "settings.json"),
    JSON.stringify({ modelLimits: { "scripted/demo": { contextWindow: 6000 } } }),
  );
  const extension = join(folder, "hold-compaction.mjs");
  writeFileSync(
    extension,
    `export default (arbor) => {
  arbor.on("session_before_compact", (event) => (event.reason === "threshold" ? { cancel: true } : undefined));
};
`,
  );
  context = await testDemo({ cwd: folder, extensions: [extension] });
});

afterAll(async () => {
  await context?.stop();
  rmSync(folder, { recursive: true, force: true });
});

async function meter(): Promise<Json> {
  return (await command(context.base, context.token, { type: "get_context" })).answer.data;
}

describe("the context meter's compaction notice", () => {
  test("appears over the threshold when nothing was compacted, and goes when a compaction succeeds", async () => {
    const { base, token, demo } = context;
    for (const text of ["words 1500", "words 1500"]) {
      await command(base, token, { type: "prompt", text });
      await demo.hub.idle();
    }
    // Over the threshold, but no compaction tried yet: no notice.
    const before = await meter();
    expect(before.total).toBeGreaterThan(before.compactionThreshold);
    expect(before.notice).toBeUndefined();

    // The next prompt's check compacts; the extension cancels it; the context stays over the threshold.
    await command(base, token, { type: "prompt", text: "words 20" });
    await demo.hub.idle();
    expect(demo.hub.lastCompaction?.kind).toBe("cancelled");
    const held = await meter();
    const count = (value: number) => value.toLocaleString("en-US");
    expect(held.notice).toEqual({
      level: "warning",
      outcome: "cancelled",
      message: demo.hub.lastCompaction?.message,
      text:
        `${demo.hub.lastCompaction?.message} The context stays above the compaction threshold: about ` +
        `${count(held.total)} of 6,000 tokens (threshold ${count(held.compactionThreshold)}).`,
      tokens: held.total,
      contextWindow: 6000,
      compactionThreshold: held.compactionThreshold,
    });

    const compacted = await command(base, token, { type: "compact" });
    expect(compacted.answer.data.kind).toBe("compacted");
    expect((await meter()).notice).toBeUndefined();
  });
});
