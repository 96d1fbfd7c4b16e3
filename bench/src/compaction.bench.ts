/**
 * Compaction planning: is it O(n) in the branch's length?
 *
 * Branches of 10,000 and 60,000 entries (coding turns: a request, a `read` call, a 2 KB result, an
 * `edit` call, its result, an answer) are planned with `prepareCompaction` (default settings: keep the
 * last 20,000 tokens), cut with `findCutPoint` (the default budget, and a budget larger than the branch,
 * which walks every entry), and measured with `estimateContextTokens` (without usage: every message is
 * estimated). The baseline is one pass of `JSON.stringify` over the same messages, measured in the same
 * run. The time per 1,000 entries should stay flat from 10k to 60k entries (linear); a quadratic step
 * would grow 6×. (Larger branches also cost more per entry through memory: the baseline's own ratio shows
 * how much.)
 */
import {
  estimateContextTokens,
  findCutPoint,
  prepareCompaction,
  resolveCompactionSettings,
} from "@arbor/compaction";
import type { SessionEntry, SessionMessage } from "@arbor/session-store";
import type { Bench } from "./bench.js";
import { measure, ms } from "./measure.js";

const usage = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** A branch of about `size` entries, root first, each the parent of the next. */
export function branch(size: number): SessionEntry[] {
  const entries: SessionEntry[] = [];
  const start = Date.UTC(2026, 0, 1);
  const push = (message: SessionMessage) => {
    const index = entries.length;
    entries.push({
      type: "message",
      id: index.toString(16).padStart(8, "0"),
      parentId: index === 0 ? null : (index - 1).toString(16).padStart(8, "0"),
      timestamp: new Date(start + index * 1000).toISOString(),
      message: message as never,
    });
  };
  const assistant = (content: unknown[]) =>
    ({
      role: "assistant",
      content,
      api: "scripted",
      provider: "bench",
      model: "bench",
      usage,
      stopReason: "toolUse",
      timestamp: start,
    }) as SessionMessage;
  const fileBody = "export const value = 1; // some code\n".repeat(55);
  for (let turn = 0; entries.length < size; turn++) {
    const path = `src/module-${turn % 500}.ts`;
    push({ role: "user", content: `Request ${turn}: refactor ${path} and run the tests`, timestamp: start });
    push(assistant([{ type: "toolCall", id: `r${turn}`, name: "read", arguments: { path } }]));
    push({
      role: "toolResult",
      toolCallId: `r${turn}`,
      toolName: "read",
      content: [{ type: "text", text: fileBody }],
      isError: false,
      timestamp: start,
    });
    push(
      assistant([
        {
          type: "toolCall",
          id: `e${turn}`,
          name: "edit",
          arguments: { path, oldText: "value = 1", newText: "value = 2" },
        },
      ]),
    );
    push({
      role: "toolResult",
      toolCallId: `e${turn}`,
      toolName: "edit",
      content: [{ type: "text", text: "Applied 1 edit." }],
      isError: false,
      timestamp: start,
    });
    push(assistant([{ type: "text", text: `Done with ${path}.` }]));
  }
  return entries;
}

export function messagesOf(entries: readonly SessionEntry[]): SessionMessage[] {
  return entries.map((entry) => (entry as { message: SessionMessage }).message);
}

export function stringifyAll(messages: readonly SessionMessage[]): number {
  let length = 0;
  for (const message of messages) length += JSON.stringify(message).length;
  return length;
}

function runCompactionBench(): string[] {
  const settings = resolveCompactionSettings();
  const lines: string[] = [];
  /** Fastest run per 1,000 entries, by label, one value per branch size. */
  const perThousand = new Map<string, number[]>();
  for (const size of [10_000, 30_000, 60_000]) {
    const entries = branch(size);
    const messages = messagesOf(entries);
    const runs = size > 20_000 ? 9 : 15;
    const plan = prepareCompaction(entries, settings);
    const cut = plan.kind === "ready" ? `, cut at entry ${plan.firstKeptEntryIndex}` : "";
    const mib = (stringifyAll(messages) / 1024 / 1024).toFixed(1);
    lines.push(`branch of ${entries.length} entries (${mib} MiB of JSON${cut})`);
    const cases: [string, () => unknown][] = [
      ["JSON.stringify each message (baseline)", () => stringifyAll(messages)],
      ["prepareCompaction (keep 20,000 tokens)", () => prepareCompaction(entries, settings)],
      ["findCutPoint (keep 20,000 tokens)", () => findCutPoint(entries, 0, entries.length, 20_000)],
      ["findCutPoint (budget > branch: walks all)", () => findCutPoint(entries, 0, entries.length, 1e12)],
      ["estimateContextTokens (no usage: all)", () => estimateContextTokens(messages)],
    ];
    let baselineMs = 0;
    for (const [label, run] of cases) {
      const timing = measure(run, { runs });
      if (baselineMs === 0) baselineMs = timing.medianMs;
      const ratio = (timing.medianMs / baselineMs).toFixed(2).padStart(6);
      lines.push(`  ${label.padEnd(42)} ${ms(timing.medianMs).padStart(10)}   ${ratio}x`);
      const values = perThousand.get(label) ?? [];
      values.push(timing.minMs / (size / 1000));
      perThousand.set(label, values);
    }
  }
  lines.push(
    "",
    "fastest run per 1,000 entries at 10k, 30k, 60k entries; last column 60k / 10k (1 = linear, 6 = quadratic)",
  );
  for (const [label, values] of perThousand) {
    const cells = values.map((value) => `${value.toFixed(3)} ms`.padStart(10)).join(" ");
    lines.push(`  ${label.padEnd(42)} ${cells}   ${(values.at(-1)! / values[0]!).toFixed(2)}x`);
  }
  return lines;
}

const bench: Bench = { name: "compaction: planning over long branches", run: runCompactionBench };
export default bench;
