import type { ImageContent, TextContent } from "@arbor/ai-providers";
import type { SessionMessage } from "@arbor/session-store";
import { contentText } from "./serialize.js";
import { estimateTokens } from "./token-estimate.js";

/**
 * The last resort before a model call when the context still does not fit after compaction (one message
 * larger than the window: a 500k-token tool result, a 40 KB file read against a 6k window): the largest
 * messages of the model-facing context are cut in the middle — head and tail kept, the middle replaced by
 * a marker naming the entry and how to `recall` it. Only the context sent to the model changes; the entry
 * in the session stays whole.
 */

/** Options of {@link elideOversizedMessages}. */
export interface ElideOptions {
  /** Characters kept of an elided message at least (head and tail together). Default 2,000. */
  minKeepChars?: number;
}

/** One message {@link elideOversizedMessages} cut. */
export interface ElidedMessage {
  /** Its index in the messages. */
  index: number;
  /** The entry it comes from (as given). */
  entryId: string | undefined;
  tokensBefore: number;
  tokensAfter: number;
}

/** What {@link elideOversizedMessages} returns. */
export interface ElisionResult {
  /** The messages to send: the elided ones replaced by cut copies, the others the same objects. */
  messages: SessionMessage[];
  /** What was cut, in the order it was cut (largest first). */
  elided: ElidedMessage[];
  /** Estimated tokens of `messages` (the sum of `estimateTokens`). */
  tokens: number;
  /** Whether `tokens` is within the budget (false when even cutting every candidate was not enough). */
  fits: boolean;
}

const DEFAULT_MIN_KEEP_CHARS = 2000;

/** The marker that replaces the middle of an elided message. */
export function elisionMarker(omittedChars: number, entryId: string | undefined): string {
  const where =
    entryId === undefined
      ? "the original is in the session log"
      : `the whole entry is in the session: recall({"entryIds":["${entryId}"]}) returns it`;
  return `\n[… ${omittedChars} characters elided from entry ${entryId ?? "(unknown)"} to fit the context window; ${where} …]\n`;
}

/** Cuts `text` to about `keep` characters (two thirds head, one third tail) around the marker. */
function cutMiddle(text: string, keep: number, entryId: string | undefined): string {
  const kept = Math.max(0, Math.min(text.length, keep));
  const head = Math.ceil((kept * 2) / 3);
  const tail = kept - head;
  const marker = elisionMarker(text.length - kept, entryId);
  return `${text.slice(0, head)}${marker}${tail > 0 ? text.slice(text.length - tail) : ""}`;
}

/** The elidable text of a message, or undefined when this role is never cut. */
function elidableText(message: SessionMessage): string | undefined {
  switch (message.role) {
    case "user":
    case "toolResult":
    case "custom":
      return contentText(message.content);
    case "bashExecution":
      return message.excludeFromContext === true ? undefined : message.output;
    default:
      return undefined;
  }
}

/** The message with its text replaced by `text` (images kept, after the text). */
function withText(message: SessionMessage, text: string): SessionMessage {
  if (message.role === "bashExecution") return { ...message, output: text };
  if (message.role !== "user" && message.role !== "toolResult" && message.role !== "custom") return message;
  const images: (TextContent | ImageContent)[] =
    typeof message.content === "string" ? [] : message.content.filter((block) => block.type === "image");
  return { ...message, content: [{ type: "text", text }, ...images] } as SessionMessage;
}

/**
 * Cuts the largest messages until the estimated context is within `budgetTokens`: each time the largest
 * candidate — a user message other than the newest one, a tool result, a custom message or a command's
 * output — is cut in the middle to what the excess allows (at least `minKeepChars`), with a marker
 * naming its entry and the `recall` call that returns it whole. Assistant messages, summaries and the
 * newest user prompt are never cut. Each message is cut at most once.
 *
 * @param context the model-facing messages and the entry each comes from (`Session.buildContext()`).
 *
 * Contract: pure; never throws; returns the messages unchanged (same array contents) when they fit.
 * O(n log n) in the number of messages.
 */
export function elideOversizedMessages(
  context: { messages: readonly SessionMessage[]; entryIds?: readonly (string | undefined)[] },
  budgetTokens: number,
  options: ElideOptions = {},
): ElisionResult {
  const minKeep = Math.max(0, Math.floor(options.minKeepChars ?? DEFAULT_MIN_KEEP_CHARS));
  const messages = [...context.messages];
  const tokens = messages.map((message) => estimateTokens(message));
  let total = tokens.reduce((sum, value) => sum + value, 0);
  const elided: ElidedMessage[] = [];
  if (total <= budgetTokens) return { messages, elided, tokens: total, fits: true };

  let newestUser = -1;
  for (let index = messages.length - 1; index >= 0; index--) {
    if (messages[index]!.role === "user") {
      newestUser = index;
      break;
    }
  }
  const candidates: number[] = [];
  messages.forEach((message, index) => {
    if (index === newestUser) return;
    const text = elidableText(message);
    if (text !== undefined && text.length > minKeep) candidates.push(index);
  });
  candidates.sort((a, b) => tokens[b]! - tokens[a]! || a - b);

  for (const index of candidates) {
    if (total <= budgetTokens) break;
    const message = messages[index]!;
    const text = elidableText(message)!;
    const entryId = context.entryIds?.[index];
    const excessChars = (total - budgetTokens) * 4 + elisionMarker(text.length, entryId).length;
    const keep = Math.max(minKeep, text.length - excessChars);
    if (keep >= text.length) continue;
    const cut = withText(message, cutMiddle(text, keep, entryId));
    const after = estimateTokens(cut);
    if (after >= tokens[index]!) continue;
    elided.push({ index, entryId, tokensBefore: tokens[index]!, tokensAfter: after });
    total += after - tokens[index]!;
    tokens[index] = after;
    messages[index] = cut;
  }
  return { messages, elided, tokens: total, fits: total <= budgetTokens };
}
