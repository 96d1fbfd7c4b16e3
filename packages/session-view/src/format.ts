/**
 * Small text formats every view shares: token counts (`182k`), counts with separators (`1,578`), costs
 * (`$0.042`), timestamps, clipped and one-line text, the first lines of a tool's output, and error messages
 * fit for a notice.
 */
import { ArborError } from "@arbor/ai-providers";

/**
 * A token count in a few characters: `950`, `12.3k`, `182k`, `1.2M`.
 *
 * Contract: pure; negative and non-finite values print as `0`.
 */
export function formatTokens(value: number): string {
  if (!Number.isFinite(value) || value <= 0) return "0";
  if (value < 1000) return String(Math.round(value));
  if (value < 10_000) return `${trimZero((value / 1000).toFixed(1))}k`;
  if (value < 1_000_000) return `${Math.round(value / 1000)}k`;
  return `${trimZero((value / 1_000_000).toFixed(1))}M`;
}

function trimZero(text: string): string {
  return text.endsWith(".0") ? text.slice(0, -2) : text;
}

/**
 * A cost in US dollars: three decimals below $1 (`$0.042`), two above (`$12.50`).
 *
 * Contract: pure.
 */
export function formatCost(dollars: number): string {
  if (!Number.isFinite(dollars) || dollars <= 0) return "$0.000";
  return dollars < 1 ? `$${dollars.toFixed(3)}` : `$${dollars.toFixed(2)}`;
}

/** Formats a count with thousands separators (`1,578`). */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** A count and its noun, singular for 1 (`1 entry`, `2,000 entries`). */
export function countOf(value: number, singular: string, plural = `${singular}s`): string {
  return `${formatCount(value)} ${value === 1 ? singular : plural}`;
}

/**
 * An ISO timestamp for people: `2026-11-30 12:27:26Z` (other strings as they are, undefined as empty).
 *
 * Contract: pure.
 */
export function formatTimestamp(timestamp: string | undefined): string {
  if (timestamp === undefined) return "";
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?Z$/.exec(timestamp);
  return match === null ? timestamp : `${match[1]} ${match[2]}Z`;
}

/** At most `max` characters (code units), ending with `…` when cut. */
export function clipText(value: string, max: number): string {
  if (value.length <= max) return value;
  return `${value.slice(0, Math.max(0, max - 1))}…`;
}

/** Whitespace runs (newlines included) collapsed to one space, trimmed. */
export function singleLine(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}

/** The first lines of a text and how many more there are. */
export interface HeadLines {
  lines: string[];
  /** Lines left out. */
  more: number;
}

/**
 * The first `count` lines of a text (each cut at `width` characters), trailing blank lines dropped.
 *
 * Contract: pure; reads at most about `count × width` characters of a long text plus one scan for the
 * line count.
 */
export function headLines(text: string, count: number, width = 200): HeadLines {
  const trimmed = text.replace(/\s+$/, "");
  if (trimmed === "") return { lines: [], more: 0 };
  const lines: string[] = [];
  let start = 0;
  while (lines.length < count && start <= trimmed.length) {
    const end = trimmed.indexOf("\n", start);
    const stop = end === -1 ? trimmed.length : end;
    lines.push(clipText(trimmed.slice(start, stop), width));
    if (end === -1) return { lines, more: 0 };
    start = end + 1;
  }
  let more = 1;
  for (let index = trimmed.indexOf("\n", start); index !== -1; index = trimmed.indexOf("\n", index + 1))
    more++;
  return { lines, more };
}

/**
 * An error as one message for a notice: an `ArborError`'s message, an `Error`'s message, or the value.
 *
 * Contract: pure; never throws.
 */
export function errorText(error: unknown): string {
  if (ArborError.isInstance(error)) return error.message;
  if (error instanceof Error) return error.message;
  try {
    return String(error);
  } catch {
    return "unknown error";
  }
}

/**
 * A header field as text: the string itself, or the JSON of what a damaged file holds there instead
 * (a number, `null`, an object), so that a view of a damaged session never fails on it.
 */
export function fieldText(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "(none)";
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
