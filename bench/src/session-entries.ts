/**
 * The sessions the JSONL bench measures, generated: user / assistant-with-toolCall / toolResult triples of
 * ~2 KB per entry (linear, or realistic with compactions and side branches), timestamps one second apart,
 * written through a store in save-point batches.
 */
import type { SessionEntry } from "@arbor/session-store";
import type { JsonlSessionStore } from "@arbor/session-store-jsonl";

const WORDS =
  "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu".split(
    " ",
  );
/** Entries per save point: the batch size every session here is written in. */
export const SAVE_POINT = 10;

/** About `length` characters of text that differ with `seed`. */
function text(seed: number, length: number): string {
  let out = "";
  for (let index = seed; out.length < length; index = (index * 7 + 13) % 1009)
    out += `${WORDS[index % WORDS.length]} `;
  return out.slice(0, length);
}

let clock = Date.parse("2026-01-01T00:00:00.000Z");
export function timestamp(): string {
  clock += 1000;
  return new Date(clock).toISOString();
}

/** The n-th entry of a user / assistant-with-toolCall / toolResult triple chain (~2 KB each). */
function tripleEntry(n: number, id: string, parentId: string | null): SessionEntry {
  return tripleRecord(n, id, parentId) as unknown as SessionEntry;
}

/** The `n`th entry of a triple (user, assistant with a tool call, tool result) as a plain record. */
export function tripleRecord(n: number, id: string, parentId: string | null): Record<string, unknown> {
  const base = { type: "message", id, parentId, timestamp: timestamp() };
  const callId = `call_${Math.floor(n / 3)}`;
  switch (n % 3) {
    case 0:
      return {
        ...base,
        message: { role: "user", content: [{ type: "text", text: text(n, 1900) }], timestamp: clock },
      };
    case 1:
      return {
        ...base,
        message: {
          role: "assistant",
          content: [
            { type: "text", text: text(n, 1300) },
            {
              type: "toolCall",
              id: callId,
              name: "read",
              arguments: { path: `src/file-${n}.ts`, offset: n },
            },
          ],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude-sonnet-4-5",
          usage: {
            input: 1200,
            output: 300,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 1500,
            cost: { input: 0.0036, output: 0.0045, cacheRead: 0, cacheWrite: 0, total: 0.0081 },
          },
          stopReason: "toolUse",
          timestamp: clock,
        },
      };
    default:
      return {
        ...base,
        message: {
          role: "toolResult",
          toolCallId: callId,
          toolName: "read",
          content: [{ type: "text", text: text(n, 1800) }],
          isError: false,
          timestamp: clock,
        },
      };
  }
}

/** 60k entries in 60 segments: each has a compaction (keeping ~30 entries) and a side branch of 6 with a branch summary. */
export function* realisticEntries(total: number): Generator<SessionEntry> {
  const path: string[] = [];
  let produced = 0;
  let n = 0;
  const segment = total / 60;
  while (produced < total) {
    const position = produced % segment;
    const tip = path.at(-1) ?? null;
    if (position === 300) {
      const compaction = {
        type: "compaction",
        id: `c${produced}`,
        parentId: tip,
        timestamp: timestamp(),
        summary: text(produced, 5000),
        firstKeptEntryId: path[path.length - 30]!,
        tokensBefore: 180_000,
      };
      path.push(compaction.id);
      yield compaction as unknown as SessionEntry;
    } else if (position === 600) {
      // Abandon the last 6 entries of the path: they stay in the file as a side branch.
      const fromId = path.at(-1)!;
      path.length -= 6;
      const summary = {
        type: "branch_summary",
        id: `s${produced}`,
        parentId: path.at(-1)!,
        timestamp: timestamp(),
        fromId,
        summary: text(produced, 1500),
      };
      path.push(summary.id);
      yield summary as unknown as SessionEntry;
    } else {
      const entry = tripleEntry(n++, `e${produced}`, tip);
      path.push(entry.id);
      yield entry;
    }
    produced++;
  }
}

export function* linearEntries(total: number): Generator<SessionEntry> {
  let parent: string | null = null;
  for (let n = 0; n < total; n++) {
    const entry = tripleEntry(n, `e${n}`, parent);
    parent = entry.id;
    yield entry;
  }
}

/** Writes a session through the store, in save-point batches. */
export async function writeSession(
  store: JsonlSessionStore,
  id: string,
  entries: Iterable<SessionEntry>,
): Promise<string> {
  await store.createSession({
    type: "session",
    version: 3,
    id,
    timestamp: timestamp(),
    cwd: "/bench/project",
  });
  let batch: SessionEntry[] = [];
  for (const entry of entries) {
    batch.push(entry);
    if (batch.length === SAVE_POINT) {
      await store.appendEntries(id, batch);
      batch = [];
    }
  }
  if (batch.length > 0) await store.appendEntries(id, batch);
  return store.pathOf(id)!;
}
