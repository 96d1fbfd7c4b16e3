/**
 * Reading older and foreign entries leniently (docs/session-format.md, "Reading older and foreign files").
 * An entry that fails its type's schema only because a writer left out a field that feeds a display (token
 * counts, cost, a message's timestamp) or that can be derived from the rest (`totalTokens`, `stopReason`)
 * is read with that field filled in, and keeps its place in the context. Only what cannot be understood
 * (an assistant message whose `content` is not an array of blocks, a tool result without `toolCallId`) stays
 * invalid. The repair runs only for entries that fail the compiled check: a valid entry costs that one check.
 *
 * This is the one place every reader goes through: `Session` (whatever the store), and the import of a file
 * (`arbor sessions import` writes the filled entries into Arbor's copy; the file itself is never changed).
 */
import { emptyUsage } from "@arbor/ai-providers";
import type { SessionEntry } from "./entries.js";
import type { SchemaIssue } from "./schema-issues.js";
import { isValidSessionEntry, validateSessionEntry } from "./validate.js";

/** A field an entry lacked, filled in while reading it. */
export interface FilledField {
  /** The entry's type. */
  entryType: string;
  /** For a field of a `message` entry's message: the message's role (the field is a path inside it). */
  role?: string;
  /** The field, as a path inside the message (or the entry): `usage.totalTokens`, `timestamp`, … */
  field: string;
  /** How it was filled, said of many at once: "filled from their token counts". */
  how: string;
}

/** What {@link readSessionEntry} makes of a line. */
export type SessionEntryReading =
  | {
      ok: true;
      /** The entry: the value itself when valid, else a repaired copy (the value is never mutated). */
      value: SessionEntry;
      /** The fields filled in; empty for a valid entry. */
      filled: readonly FilledField[];
    }
  | {
      ok: false;
      /** Names the entry and each problem of the value as it was (see `validateSessionEntry`). */
      message: string;
      issues: SchemaIssue[];
    };

const NOTHING_FILLED: readonly FilledField[] = Object.freeze([]);
const STOP_REASONS: ReadonlySet<unknown> = new Set(["stop", "length", "toolUse", "error", "aborted"]);
const COUNTERS = ["input", "output", "cacheRead", "cacheWrite"] as const;

type Fields = Record<string, unknown>;

function isRecord(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

/** Collects the fills of one entry. */
class Filler {
  readonly filled: FilledField[] = [];

  constructor(private readonly role: string) {}

  note(field: string, how: string): void {
    this.filled.push({ entryType: "message", role: this.role, field, how });
  }
}

/** A copy of `usage` with its missing counters, total and cost filled (undefined: nothing to fill). */
function filledUsage(usage: unknown, filler: Filler): Fields | undefined {
  if (!isRecord(usage)) {
    filler.note("usage", "filled with zeros (no token counts known)");
    return { ...emptyUsage() };
  }
  let copy: Fields | undefined;
  for (const counter of COUNTERS) {
    if (isNumber(usage[counter])) continue;
    copy ??= { ...usage };
    copy[counter] = 0;
    filler.note(`usage.${counter}`, "filled with 0");
  }
  const counted = copy ?? usage;
  if (!isNumber(usage.totalTokens)) {
    copy ??= { ...usage };
    copy.totalTokens = COUNTERS.reduce((sum, counter) => sum + (counted[counter] as number), 0);
    filler.note("usage.totalTokens", "filled from their token counts");
  }
  const cost = filledCost(usage.cost, filler);
  if (cost !== undefined) {
    copy ??= { ...usage };
    copy.cost = cost;
  }
  return copy;
}

/** A copy of `cost` with its missing parts filled (undefined: nothing to fill). */
function filledCost(cost: unknown, filler: Filler): Fields | undefined {
  if (!isRecord(cost)) {
    filler.note("usage.cost", "filled with zeros (a cost unknown when it was written)");
    return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
  }
  let copy: Fields | undefined;
  for (const part of COUNTERS) {
    if (isNumber(cost[part])) continue;
    copy ??= { ...cost };
    copy[part] = 0;
    filler.note(`usage.cost.${part}`, "filled with 0");
  }
  if (!isNumber(cost.total)) {
    const parts = copy ?? cost;
    copy ??= { ...cost };
    copy.total = COUNTERS.reduce((sum, part) => sum + (parts[part] as number), 0);
    filler.note("usage.cost.total", "filled with the sum of its parts");
  }
  return copy;
}

/** Why an assistant message ended, derived from the message: an error, a tool call, or a plain stop. */
function derivedStopReason(message: Fields): string {
  if (typeof message.errorMessage === "string") return "error";
  const content = message.content as unknown[];
  return content.some((block) => isRecord(block) && block.type === "toolCall") ? "toolUse" : "stop";
}

/** Fills the display-only and derivable fields of an assistant message (in `copy`). */
function fillAssistant(copy: Fields, filler: Filler): void {
  for (const field of ["api", "provider", "model"] as const) {
    if (typeof copy[field] === "string") continue;
    copy[field] = "unknown";
    filler.note(field, 'filled with "unknown"');
  }
  const usage = filledUsage(copy.usage, filler);
  if (usage !== undefined) copy.usage = usage;
  if (!STOP_REASONS.has(copy.stopReason)) {
    const reason = derivedStopReason(copy);
    filler.note(
      "stopReason",
      copy.stopReason === undefined
        ? "derived from their content"
        : `read as "${reason}" (a value this version does not know)`,
    );
    copy.stopReason = reason;
  }
  const content = copy.content as unknown[];
  if (content.some((block) => isRecord(block) && block.type === "toolCall" && !isRecord(block.arguments))) {
    copy.content = content.map((block) =>
      isRecord(block) && block.type === "toolCall" && !isRecord(block.arguments)
        ? { ...block, arguments: {} }
        : block,
    );
    filler.note("toolCall.arguments", "filled with {} (no arguments)");
  }
}

/** A repaired copy of a message (undefined when its role cannot be read leniently, or nothing applies). */
function filledMessage(message: unknown, entryTimestamp: unknown, fills: FilledField[]): Fields | undefined {
  if (!isRecord(message) || typeof message.role !== "string") return undefined;
  const { role } = message;
  const filler = new Filler(role);
  const copy: Fields = { ...message };
  if (role === "assistant") {
    if (!Array.isArray(message.content)) return undefined;
    fillAssistant(copy, filler);
  } else if (role === "toolResult") {
    if (copy.isError === undefined) {
      copy.isError = false;
      filler.note("isError", "filled with false");
    }
  } else if (role === "bashExecution") {
    for (const field of ["cancelled", "truncated"] as const) {
      if (copy[field] !== undefined) continue;
      copy[field] = false;
      filler.note(field, "filled with false");
    }
  } else if (role === "custom") {
    if (copy.display === undefined) {
      copy.display = false;
      filler.note("display", "filled with false (hidden, as the pi agent shows it)");
    }
  } else if (role !== "user") return undefined;
  if (!isNumber(copy.timestamp)) {
    const time = typeof entryTimestamp === "string" ? Date.parse(entryTimestamp) : Number.NaN;
    copy.timestamp = Number.isNaN(time) ? 0 : time;
    filler.note("timestamp", "filled from their entry's timestamp");
  }
  if (filler.filled.length === 0) return undefined;
  fills.push(...filler.filled);
  return copy;
}

/**
 * A repaired copy of an entry that failed its schema, with what was filled; undefined when no fill applies
 * or the copy is still invalid (then the entry is invalid as it is). Never mutates `value`; copies only the
 * objects on the way to a filled field (content blocks are shared).
 *
 * Contract: call it only for entries that failed `isValidSessionEntry` (it re-checks the copy); O(size of
 * the objects copied).
 */
export function repairSessionEntry(
  value: unknown,
): { value: SessionEntry; filled: readonly FilledField[] } | undefined {
  if (!isRecord(value)) return undefined;
  const fills: FilledField[] = [];
  let copy: Fields | undefined;
  if (value.type === "message") {
    const message = filledMessage(value.message, value.timestamp, fills);
    if (message !== undefined) copy = { ...value, message };
  } else if (value.type === "compaction" && value.tokensBefore === undefined) {
    copy = { ...value, tokensBefore: 0 };
    fills.push({ entryType: "compaction", field: "tokensBefore", how: "filled with 0" });
  }
  if (copy === undefined || !isValidSessionEntry(copy)) return undefined;
  return { value: copy, filled: fills };
}

/**
 * Reads an entry as every reader does: a valid entry as it is; an entry that lacks only display-only or
 * derivable fields as a repaired copy ({@link repairSessionEntry}), naming what was filled; anything else
 * as invalid, with the problems of the value as it was.
 *
 * Contract: never throws and never mutates `value`; a valid entry costs one compiled check.
 */
export function readSessionEntry(value: unknown): SessionEntryReading {
  if (isValidSessionEntry(value)) return { ok: true, value, filled: NOTHING_FILLED };
  const repaired = repairSessionEntry(value);
  if (repaired !== undefined) return { ok: true, value: repaired.value, filled: repaired.filled };
  const result = validateSessionEntry(value);
  if (result.ok) return { ok: true, value: result.value, filled: NOTHING_FILLED };
  return result;
}
