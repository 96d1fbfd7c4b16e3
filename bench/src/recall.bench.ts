/**
 * The `recall` tool's search on a 60k history: the realistic 60,000-entry session of the JSONL bench (60
 * compactions, 60 side branches, ~2 KB per entry) in a JSONL store, opened, and one query asked twice on the
 * same open session — the first query of the session, then the same query again — each against the floor:
 * matching the already lower-cased texts of the same recallable entries (the same scoring: each word's
 * occurrences, the phrase), prepared before the run. The contenders take turns in each round (a fresh open
 * session per round, not timed: the floor, the first query, then seven times the floor and the same query
 * again); the medians are reported. `ARBOR_BENCH_CASES=short,realistic` picks the histories. The floor's match count is checked
 * against recall's, so both do the same work.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createRecallTool } from "@arbor/harness";
import { Session, type SessionEntry } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import type { Bench } from "./bench.js";
import { ms } from "./measure.js";
import { realisticEntries, timestamp, writeSession } from "./session-entries.js";

const ENTRIES = Number(process.env.RECALL_BENCH_ENTRIES ?? 60_000);
const ROUNDS = Number(process.env.ARBOR_BENCH_RUNS ?? 5);
/** Times the same query is asked again in each round (a few milliseconds each on short entries). */
const REPEATS = 7;

/** The histories: short entries (the demo bench's session) and the JSONL bench's ~2 KB ones. */
const CASES = [
  {
    key: "short",
    name: "short entries (~60 characters, the demo's session)",
    entries: shortEntries,
    query: "question 42.17",
  },
  {
    key: "realistic",
    name: "~2 KB entries (the JSONL bench's realistic session)",
    entries: realisticEntries,
    query: "read src/file-4243.ts",
  },
];

/** Question / answer pairs of ~60 characters, a compaction every 1,000 entries keeping the last 12. */
function* shortEntries(total: number): Generator<SessionEntry> {
  let parentId: string | null = null;
  let kept = "";
  for (let n = 0; n < total; n++) {
    const base: { id: string; parentId: string | null; timestamp: string } = {
      id: `e${n}`,
      parentId,
      timestamp: timestamp(),
    };
    const span = Math.floor(n / 1000);
    const index = n % 1000;
    let entry: Record<string, unknown>;
    if (index === 999) {
      entry = {
        ...base,
        type: "compaction",
        summary: `## Goal\nspan ${span}`,
        firstKeptEntryId: kept,
        tokensBefore: 90_000,
      };
    } else if (index % 2 === 0) {
      if (index === 986) kept = base.id;
      entry = {
        ...base,
        type: "message",
        message: { role: "user", content: `question ${span}.${index}`, timestamp: 1 },
      };
    } else {
      const text = `answer ${span}.${index}: ${"lorem ipsum ".repeat(6)}`;
      entry = {
        ...base,
        type: "message",
        message: {
          role: "assistant",
          content: [{ type: "text", text }],
          api: "bench",
          provider: "bench",
          model: "bench",
          usage: {
            input: 10,
            output: 10,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 20,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
          },
          stopReason: "stop",
          timestamp: 1,
        },
      };
    }
    parentId = base.id;
    yield entry as unknown as SessionEntry;
  }
}
const CONTEXT_TYPES = new Set(["message", "custom_message", "branch_summary"]);

/** The text recall searches in one entry (its rendering: text, thinking, tool calls with their arguments). */
function searchText(entry: SessionEntry): string {
  if (entry.type === "branch_summary") return entry.summary;
  if (entry.type !== "message") return JSON.stringify(entry, null, 2);
  const message = entry.message as { role: string; content: unknown };
  const blocks =
    typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
  const parts = (blocks as Record<string, unknown>[]).map((block) =>
    block.type === "toolCall"
      ? `[tool call ${String(block.name)}, id ${String(block.id)}]\n${JSON.stringify(block.arguments, null, 2)}`
      : String(block.text ?? ""),
  );
  return parts.join(message.role === "assistant" ? "\n\n" : "\n");
}

/** The recallable entries: the context entries of the path before the latest compaction's kept start. */
function recallableTexts(session: Session): string[] {
  const path = session.getBranch();
  let end = 0;
  path.forEach((entry, position) => {
    if (entry.type !== "compaction") return;
    const kept = path.findIndex((candidate) => candidate.id === entry.firstKeptEntryId);
    end = kept >= 0 && kept <= position ? kept : position;
  });
  return path
    .slice(0, end)
    .filter((entry) => CONTEXT_TYPES.has(entry.type))
    .map((entry) => searchText(entry).toLowerCase());
}

function occurrences(text: string, word: string): number {
  let count = 0;
  for (let at = text.indexOf(word); at >= 0 && count < 10; at = text.indexOf(word, at + word.length)) count++;
  return count;
}

/** The floor: the texts (already lower-cased) that match the query's words, scored as recall scores them. */
function floorMatches(texts: readonly string[], words: readonly string[]): number {
  const phrase = words.join(" ");
  let matches = 0;
  for (const text of texts) {
    let found = 0;
    let repeats = 0;
    for (const word of words) {
      const count = occurrences(text, word);
      if (count > 0) found++;
      repeats += count;
    }
    const score =
      found === 0 ? 0 : found * 100 + (words.length > 1 && text.includes(phrase) ? 50 : 0) + repeats;
    if (score > 0) matches++;
  }
  return matches;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function timed<T>(fn: () => T): { value: T; ms: number } {
  (globalThis as { gc?: () => void }).gc?.();
  const start = performance.now();
  const value = fn();
  return { value, ms: performance.now() - start };
}

/** The floor, the first query and the same query again on one history, in turns. */
async function measureCase(
  folder: string,
  entries: Iterable<SessionEntry>,
  query: string,
): Promise<string[]> {
  const store = new JsonlSessionStore({ home: folder, durability: "flush" });
  await writeSession(store, "recall-60k", entries);
  const words = query.toLowerCase().split(/\s+/);
  const times = { floor: [] as number[], first: [] as number[], again: [] as number[] };
  let recallable = 0;
  let matches = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const session = await Session.open(store, "recall-60k");
    const texts = recallableTexts(await Session.open(store, "recall-60k"));
    recallable = texts.length;
    const tool = createRecallTool({ getSession: () => session });
    const context = { toolCallId: "call", signal: new AbortController().signal, onUpdate: () => undefined };
    const ask = () => tool.execute({ query }, context);
    const floor = timed(() => floorMatches(texts, words));
    const first = timed(ask);
    times.floor.push(floor.ms);
    times.first.push(first.ms);
    const firstResult = await first.value;
    const matchCount = (firstResult as { details: { matchCount?: number } }).details.matchCount;
    if (matchCount !== floor.value)
      throw new Error(`recall found ${matchCount} matches, the floor ${floor.value}`);
    matches = floor.value;
    // The same query again, several times, each after the floor.
    for (let again = 0; again < REPEATS; again++) {
      times.floor.push(timed(() => floorMatches(texts, words)).ms);
      const repeated = timed(ask);
      times.again.push(repeated.ms);
      if (JSON.stringify(await repeated.value) !== JSON.stringify(firstResult)) {
        throw new Error("the same query again gave another answer");
      }
    }
  }
  const floor = median(times.floor);
  const row = (name: string, values: number[]) =>
    `  ${name.padEnd(22)} ${ms(median(values)).padStart(9)}  ×${(median(values) / floor).toFixed(2)} of the floor (rounds: ${values.map((value) => value.toFixed(0)).join(", ")} ms)`;
  return [
    `  ${recallable.toLocaleString("en-US")} recallable entries; query "${query}" (${matches.toLocaleString("en-US")} match)`,
    `  ${"floor (lower-cased)".padEnd(22)} ${ms(floor).padStart(9)}`,
    row("first query", times.first),
    row("the same query again", times.again),
  ];
}

const bench: Bench = {
  name: `recall: the same query twice on a ${ENTRIES.toLocaleString("en-US")}-entry history`,
  async run() {
    const lines = [`${ROUNDS} rounds, contenders in turn (a fresh open session per round); medians`];
    const only = process.env.ARBOR_BENCH_CASES?.split(",");
    for (const { key, name, entries, query } of CASES) {
      if (only !== undefined && !only.includes(key)) continue;
      const folder = mkdtempSync(join(tmpdir(), "arbor-bench-recall-"));
      try {
        lines.push(`\n${name}:`, ...(await measureCase(folder, entries(ENTRIES), query)));
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    }
    return lines;
  },
};

export default bench;
