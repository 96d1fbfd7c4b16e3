import type { SessionMessage } from "@arbor/session-store";
import type { SummaryKind } from "./prompts.js";
import { contentText } from "./serialize.js";
import { shortenAtWords, wholeLines } from "./summary-lines.js";

/**
 * The deterministic fallback: when the summarizer fails or returns nothing usable, or its summary cannot be
 * made to fit, the history is condensed without a model — the summary so far, the user's requests and the
 * last assistant text, each within a share of the budget — so that compaction always completes and frees
 * space. A digest that must shrink leaves out whole lines and sections, never part of a line.
 */

/** Input of {@link fallbackSummary}. */
export interface FallbackInput {
  kind: SummaryKind;
  /** Why the model could not be used, in words (goes into the digest's first line). */
  reason: string;
  /** The summary so far (earlier chunks, or the previous compaction's summary), kept first. */
  previousSummary?: string;
  /** The messages no model summarized. */
  messages: readonly SessionMessage[];
  /** Longest digest, in characters. */
  maxChars: number;
}

/** Longest single user request in the digest (longer ones are shortened at word boundaries). */
const MAX_REQUEST_CHARS = 500;

/** The digest's first line when the full one (naming the reason) takes more than 30 % of the budget. */
export const SHORT_DIGEST_HEADER = "[Condensed without a model; the entries are in the session log.]";

/** The whole digest when not even {@link SHORT_DIGEST_HEADER} fits. */
export const MINIMAL_DIGEST = "(Earlier history left out.)";

/** The user's requests, oldest first: text of user messages and commands the user ran. */
function userRequests(messages: readonly SessionMessage[]): string[] {
  const requests: string[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      const text = contentText(message.content).trim();
      if (text !== "") requests.push(text);
    } else if (message.role === "bashExecution" && message.excludeFromContext !== true) {
      requests.push(`(ran) ${message.command}`);
    }
  }
  return requests;
}

/** The text of the last assistant message that has any. */
function lastAssistantText(messages: readonly SessionMessage[]): string | undefined {
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== "assistant") continue;
    const text = message.content
      .filter((block) => block.type === "text")
      .map((block) => block.text)
      .join("\n")
      .trim();
    if (text !== "") return text;
  }
  return undefined;
}

function omittedRequests(count: number): string {
  return `- (${count} more request${count === 1 ? "" : "s"} omitted)`;
}

/**
 * The first request, then as many of the latest ones as fit `budget` characters, with a line saying how
 * many in between were left out; each request on one line, shortened at word boundaries to 500
 * characters. Empty when not one request fits.
 */
function requestLines(requests: readonly string[], budget: number): string[] {
  if (requests.length === 0) return budget >= "- (none)".length ? ["- (none)"] : [];
  const lines = requests.map(
    (text) => `- ${shortenAtWords(text.replaceAll("\n", " ").trim(), MAX_REQUEST_CHARS)}`,
  );
  if (lines.join("\n").length <= budget) return lines;
  let used = omittedRequests(lines.length).length + 1;
  const first: string[] = [];
  if (used + lines[0]!.length + 1 <= budget) {
    first.push(lines[0]!);
    used += lines[0]!.length + 1;
  }
  const latest: string[] = [];
  let index = lines.length - 1;
  for (; index >= first.length; index--) {
    const next = lines[index]!;
    if (used + next.length + 1 > budget) break;
    latest.push(next);
    used += next.length + 1;
  }
  if (first.length + latest.length === 0) return [];
  const omitted = index - first.length + 1;
  latest.reverse();
  return [...first, ...(omitted > 0 ? [omittedRequests(omitted)] : []), ...latest];
}

/** What {@link fallbackDigest} returns. */
export interface FallbackDigest {
  /** The digest: whole lines only. */
  text: string;
  /**
   * True when the budget made it leave out whole lines of a text it quotes (the summary so far, the last
   * assistant message — a `(… N lines left out …)` line says where) or whole sections. Leaving out the
   * requests between the first and the latest is not counted: the digest always does, and says so.
   */
  shortened: boolean;
}

/**
 * A digest of messages without a model, at most `maxChars` characters, made of whole lines: a first line
 * naming the reason (or {@link SHORT_DIGEST_HEADER} when that line would take more than 30 % of the
 * budget), the summary so far (up to 45 %, whole lines from its beginning and its end), the user's
 * requests — the first, then the latest that fit (up to 35 %; absent when there are no messages but a
 * summary so far) — and the last assistant text (the rest, whole lines). A section with no room is left
 * out; with no room for any, the digest is {@link MINIMAL_DIGEST}, or empty when even that does not fit.
 * For a split turn's prefix the requests are headed "Original Request". Deterministic: the same input
 * gives the same text.
 *
 * Contract: pure; never throws; the text never exceeds `maxChars` and never ends mid-line.
 */
export function fallbackDigest(input: FallbackInput): FallbackDigest {
  const max = Math.max(0, Math.floor(input.maxChars));
  const fullHeader =
    `[Automatic digest: the summarizer could not be used (${input.reason}). This part of the history ` +
    "was condensed without a model; the original entries are still in the session log.]";
  const header =
    fullHeader.length <= max * 0.3
      ? fullHeader
      : SHORT_DIGEST_HEADER.length <= max * 0.5
        ? SHORT_DIGEST_HEADER
        : undefined;
  if (header === undefined) {
    return { text: MINIMAL_DIGEST.length <= max ? MINIMAL_DIGEST : "", shortened: true };
  }
  const sections: string[] = [header];
  let used = header.length;
  let shortened = false;
  /** Adds `heading` + `body` when the body is not empty (a section left out counts as shortened). */
  const add = (heading: string, body: string, leftOut: boolean) => {
    if (body === "") {
      shortened = true;
      return;
    }
    if (leftOut) shortened = true;
    sections.push(`${heading}\n${body}`);
    used += heading.length + body.length + 3;
  };

  const previous = input.previousSummary?.trim() ?? "";
  if (previous !== "") {
    const heading = "## Summary so far";
    const kept = wholeLines(previous, Math.min(Math.floor(max * 0.45), max - used - heading.length - 3));
    add(heading, kept.text, kept.leftOut > 0);
  }
  if (input.messages.length > 0 || previous === "") {
    const heading = input.kind === "turnPrefix" ? "## Original Request" : "## User Requests";
    const budget = Math.min(Math.floor(max * 0.35), max - used - heading.length - 3);
    add(heading, requestLines(userRequests(input.messages), budget).join("\n"), false);
  }
  const last = lastAssistantText(input.messages);
  if (last !== undefined) {
    const heading = "## Last Assistant Message";
    const kept = wholeLines(last, max - used - heading.length - 3);
    add(heading, kept.text, kept.leftOut > 0);
  }
  return { text: sections.join("\n\n"), shortened };
}

/**
 * The text of {@link fallbackDigest}: a digest of messages without a model, at most `maxChars` characters,
 * whole lines only.
 *
 * Contract: pure; never throws; the result never exceeds `maxChars`.
 */
export function fallbackSummary(input: FallbackInput): string {
  return fallbackDigest(input).text;
}
