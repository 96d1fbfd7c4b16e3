import type { SessionMessage } from "@arbor/session-store";
import type { SummaryKind } from "./prompts.js";
import { contentText, truncateEnd, truncateMiddle } from "./serialize.js";

/**
 * The deterministic fallback: when the summarizer fails or returns nothing usable, the part of the history
 * it did not summarize is condensed without a model — the summary so far, the user's requests and the last
 * assistant text, each cut to a share of the budget — so that compaction always completes and frees space.
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

/** Longest single user request in the digest. */
const MAX_REQUEST_CHARS = 500;

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

/**
 * The first request, then as many of the latest ones as fit `budget` characters, with a line saying how
 * many in between were left out.
 */
function requestLines(requests: readonly string[], budget: number): string[] {
  if (requests.length === 0) return ["- (none)"];
  const line = (text: string) => `- ${truncateMiddle(text.replaceAll("\n", " "), MAX_REQUEST_CHARS)}`;
  const first = line(requests[0]!);
  const latest: string[] = [];
  let used = first.length + 1;
  let index = requests.length - 1;
  for (; index >= 1; index--) {
    const next = line(requests[index]!);
    if (used + next.length + 1 > budget) break;
    latest.push(next);
    used += next.length + 1;
  }
  latest.reverse();
  const omitted = index;
  const lines = [truncateEnd(first, Math.max(0, budget))];
  if (omitted > 0) lines.push(`- (${omitted} more request${omitted === 1 ? "" : "s"} omitted)`);
  lines.push(...latest);
  return lines;
}

/**
 * A digest of messages without a model, at most `maxChars` characters: a first line naming the reason,
 * the summary so far (up to 45 % of the budget), the user's requests — the first, then the latest that fit
 * (35 %) — and the last assistant text (the rest). For a split turn's prefix the requests are headed
 * "Original Request". Deterministic: the same input gives the same text.
 *
 * Contract: pure; never throws; the result never exceeds `maxChars`.
 */
export function fallbackSummary(input: FallbackInput): string {
  const maxChars = Math.max(0, Math.floor(input.maxChars));
  const header =
    `[Automatic digest: the summarizer could not be used (${input.reason}). This part of the history ` +
    "was condensed without a model; the original entries are still in the session log.]";
  const sections: string[] = [truncateEnd(header, Math.floor(maxChars * 0.2))];
  if (input.previousSummary !== undefined && input.previousSummary.trim() !== "") {
    sections.push(
      `## Summary so far\n${truncateMiddle(input.previousSummary.trim(), Math.floor(maxChars * 0.45))}`,
    );
  }
  const heading = input.kind === "turnPrefix" ? "## Original Request" : "## User Requests";
  const requests = requestLines(userRequests(input.messages), Math.floor(maxChars * 0.35));
  sections.push(`${heading}\n${requests.join("\n")}`);
  const used = sections.reduce((total, section) => total + section.length + 2, 0);
  const last = lastAssistantText(input.messages);
  const room = maxChars - used - "## Last Assistant Message\n".length;
  if (last !== undefined && room > 40) {
    sections.push(`## Last Assistant Message\n${truncateMiddle(last, room - 40)}`);
  }
  return truncateEnd(sections.join("\n\n"), maxChars);
}
