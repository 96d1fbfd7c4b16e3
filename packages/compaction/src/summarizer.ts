import {
  type AssistantMessage,
  addUsage,
  complete,
  describeError,
  emptyUsage,
  isContextOverflow,
  type Model,
  type StreamFn,
  type StreamOptions,
  type Usage,
} from "@arbor/ai-providers";
import type { SessionMessage } from "@arbor/session-store";
import { withDeadline } from "./call-deadline.js";
import type { SummaryFallback } from "./details.js";
import { InvalidCompactionArgumentError } from "./errors.js";
import { fallbackDigest, fallbackSummary } from "./fallback.js";
import {
  SUMMARIZER_SYSTEM_PROMPT,
  type SummaryKind,
  summaryInstructions,
  summaryRequest,
} from "./prompts.js";
import { serializeMessage, truncateMiddle } from "./serialize.js";
import { completeLines } from "./summary-lines.js";
import { CHARS_PER_TOKEN } from "./token-estimate.js";

/**
 * The bounded summarizer: every call's input fits the summarizing model's window minus its output reserve
 * (by the chars/4 estimate, with a 3 % margin); a history too large for one call is cut into chunks, each
 * folded into the running summary with the UPDATE prompt; a failed or empty response switches to the
 * deterministic fallback for what is left. Responses are never cut: a summary longer than its limit is
 * returned whole, for the caller to shrink (`fitSummary`).
 */

/** The model that writes summaries and the function that streams from it. */
export interface SummarizerTarget {
  model: Model;
  stream: StreamFn;
}

/** Share of the window left unused, for the error of the chars/4 estimate. */
const MARGIN_RATIO = 0.03;

/** Fewest characters of conversation worth a call; a window leaving less uses the fallback. */
const MIN_CONVERSATION_CHARS = 800;

/** Retries of one call with half the conversation after the provider rejected it as too long. */
const OVERFLOW_RETRIES = 2;

/**
 * The output cap of a summarizer call: 0.8 × `reserveTokens`, but never more than the model's `maxTokens`
 * nor a quarter of its window (so that a small model keeps room for its input). At least 1.
 */
export function summaryOutputTokens(model: Model, reserveTokens: number): number {
  let cap = Math.floor(0.8 * reserveTokens);
  if (Number.isFinite(model.maxTokens) && model.maxTokens > 0) cap = Math.min(cap, model.maxTokens);
  cap = Math.min(cap, Math.floor(model.contextWindow / 4));
  return Math.max(1, cap);
}

/**
 * Characters of conversation one call can carry for a model, assuming the summary being updated is as
 * long as the output cap allows (the worst case of every call after the first). `targetTokens`: the
 * calls ask for a summary of at most that many tokens (see `summaryLengthRequest`).
 */
export function conversationBudgetChars(
  model: Model,
  maxOutputTokens: number,
  kind: SummaryKind,
  customInstructions?: string,
  targetTokens?: number,
): number {
  const input = inputBudgetChars(model, maxOutputTokens);
  const fixed =
    SUMMARIZER_SYSTEM_PROMPT.length +
    summaryRequest("", "", summaryInstructions(kind, true, customInstructions, targetTokens)).length +
    maxOutputTokens * CHARS_PER_TOKEN;
  return Math.max(0, input - fixed);
}

/** Characters of input (system prompt + request) a call may send. */
function inputBudgetChars(model: Model, maxOutputTokens: number): number {
  const window = model.contextWindow;
  const tokens = window - maxOutputTokens - Math.ceil(window * MARGIN_RATIO);
  return Math.max(0, tokens) * CHARS_PER_TOKEN;
}

/** Input of {@link summarize}. */
export interface SummarizeInput {
  kind: SummaryKind;
  /** The messages to summarize, oldest first. */
  messages: readonly SessionMessage[];
  /** A summary to update (the previous compaction's, or the running one); the UPDATE prompt is used. */
  initialSummary?: string;
  target: SummarizerTarget;
  signal?: AbortSignal;
  customInstructions?: string;
  /** The output cap of each call (see {@link summaryOutputTokens}), sent as `maxTokens`. */
  maxOutputTokens: number;
  /**
   * Asks for a summary of at most this many tokens in the instructions (`summaryLengthRequest`): a
   * shortening pass. Absent: the prompts name no length.
   */
  targetTokens?: number;
  /** Longest tool result and similar in the conversation text. */
  toolResultMaxChars: number;
  /** Further stream options (API key, reasoning, headers); `signal` and `maxTokens` are set here. */
  streamOptions?: Omit<StreamOptions, "signal" | "maxTokens">;
  /**
   * Longest wait for one call, in milliseconds; then the call is abandoned (its signal fires) and the
   * fallback summarizes the rest. 0 or absent: no limit.
   */
  timeoutMs?: number;
  /**
   * Most calls this summary may make (overflow retries included). History older than what that many
   * calls can carry is condensed first by the deterministic digest, which the calls then update; absent:
   * no cap.
   */
  maxCalls?: number;
}

/** What {@link summarize} produced. */
export interface SummarizeOutcome {
  /** True when the caller's signal fired; `text` is then the summary so far and must not be used. */
  aborted: boolean;
  /**
   * The summary: the model's last response, whole (it may be longer than `maxOutputTokens × 4` characters
   * when the server ignored `max_tokens`), or the deterministic digest of what the model did not summarize,
   * with the model's summary so far.
   */
  text: string;
  /** Summarizer calls made (including failed ones and overflow retries). */
  calls: number;
  /** The summarizer's usage, summed over the calls. */
  usage: Usage;
  fallback?: SummaryFallback;
  /**
   * True when `text` is the model's response and the server stopped it at `max_tokens`
   * (`stopReason: "length"`): it may end mid-sentence, so it is not a whole summary whatever its length.
   */
  incomplete?: boolean;
  /** True when `text` is a digest that left out whole lines or sections to fit (see `fallbackDigest`). */
  digestShortened?: boolean;
  /** Oldest messages condensed by the deterministic digest because of `maxCalls` (absent: none). */
  digestedMessages?: number;
}

/** Whether a signal has fired (a function, so that TypeScript does not narrow `aborted` across awaits). */
export function signalFired(signal: AbortSignal | undefined): boolean {
  return signal?.aborted === true;
}

/** The text of a response: its text blocks, joined and trimmed. */
function responseText(message: AssistantMessage): string {
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n")
    .trim();
}

/**
 * Summarizes messages within the summarizer's window (see the module comment). Calls are made one after
 * the other, each UPDATE receiving the previous call's summary.
 *
 * Contract: never throws for provider failures (they become the fallback); returns `aborted: true` as soon
 * as the caller's signal has fired. Throws {@link InvalidCompactionArgumentError} for a model without a
 * positive `contextWindow`.
 */
export async function summarize(input: SummarizeInput): Promise<SummarizeOutcome> {
  const { model } = input.target;
  if (!Number.isFinite(model.contextWindow) || model.contextWindow <= 0) {
    throw new InvalidCompactionArgumentError(
      `The summarizing model "${model.provider}/${model.id}" has no usable contextWindow (${String(model.contextWindow)}).`,
    );
  }
  const usage = emptyUsage();
  let incomplete = false;
  let digestedMessages = 0;
  const outcome = (text: string, calls: number, fallback?: SummaryFallback): SummarizeOutcome => {
    const result: SummarizeOutcome = { aborted: false, text, calls, usage };
    if (fallback !== undefined) result.fallback = fallback;
    if (incomplete && fallback === undefined) result.incomplete = true;
    if (digestedMessages > 0) result.digestedMessages = digestedMessages;
    return result;
  };
  if (signalFired(input.signal)) return { aborted: true, text: "", calls: 0, usage };

  let running = input.initialSummary;
  // The running summary as the next call is shown it: a response longer than the output cap is shown cut
  // to it (the calls were planned for summaries of that size); `running` itself stays whole.
  let shown = running;
  const maxChars = input.maxOutputTokens * CHARS_PER_TOKEN;
  let calls = 0;
  let next = 0;
  const inputChars = inputBudgetChars(model, input.maxOutputTokens);
  const maxCalls = input.maxCalls ?? Number.POSITIVE_INFINITY;
  const serializeOptions = { toolResultMaxChars: input.toolResultMaxChars };
  const items: string[] = [];
  const itemMessage: number[] = [];
  if (Number.isFinite(maxCalls)) {
    // The newest history that `maxCalls` calls can carry goes to the model (serialized from the newest
    // message back, no further); older history goes to the deterministic digest.
    const perCall = conversationBudgetChars(
      model,
      input.maxOutputTokens,
      input.kind,
      input.customInstructions,
      input.targetTokens,
    );
    const stopped = carriedItems(
      input.messages,
      serializeOptions,
      Math.max(1, maxCalls),
      Math.max(1, perCall),
      items,
      itemMessage,
    );
    if (stopped && items.length > 0) {
      digestedMessages = itemMessage[0]!;
      running = fallbackSummary({
        kind: input.kind,
        reason: `the history before the last ${maxCalls} summarizer call${maxCalls === 1 ? "" : "s"} (the call cap)`,
        previousSummary: running,
        messages: input.messages.slice(0, digestedMessages),
        maxChars,
      });
      shown = running;
    }
  } else {
    input.messages.forEach((message, index) => {
      const text = serializeMessage(message, serializeOptions);
      if (text !== undefined) {
        items.push(text);
        itemMessage.push(index);
      }
    });
  }
  const useFallback = (reason: SummaryFallback["reason"], message: string): SummarizeOutcome => {
    const fallback: SummaryFallback = { reason, message };
    if (reason !== "window_too_small") fallback.call = calls;
    const rest = next < items.length ? input.messages.slice(itemMessage[next]) : [];
    const digest = fallbackDigest({
      kind: input.kind,
      reason: message,
      // A summary the server stopped at `max_tokens` is quoted without its last, unfinished line.
      previousSummary: incomplete && running !== undefined ? completeLines(running) : running,
      messages: rest,
      maxChars,
    });
    const result = outcome(digest.text, calls, fallback);
    if (digest.shortened) result.digestShortened = true;
    return result;
  };

  while (next < items.length) {
    const update = running !== undefined;
    const instructions = summaryInstructions(
      input.kind,
      update,
      input.customInstructions,
      input.targetTokens,
    );
    const fixed =
      SUMMARIZER_SYSTEM_PROMPT.length + summaryRequest("", update ? "" : undefined, instructions).length;
    const shownSummary =
      shown === undefined
        ? undefined
        : truncateMiddle(shown, Math.floor(Math.max(0, inputChars - fixed) / 2));
    const available = inputChars - fixed - (shownSummary?.length ?? 0);
    if (available < MIN_CONVERSATION_CHARS) {
      return useFallback(
        "window_too_small",
        `the window of ${model.provider}/${model.id} (${model.contextWindow} tokens) leaves no room for the conversation`,
      );
    }

    let scale = 1;
    let response: AssistantMessage | undefined;
    let taken = 0;
    if (calls >= maxCalls) {
      return useFallback("call_cap", `the cap of ${maxCalls} summarizer calls was reached`);
    }
    for (let attempt = 0; attempt <= OVERFLOW_RETRIES && calls < maxCalls; attempt++) {
      const budget = Math.floor(available * scale);
      const { text: conversation, count } = pack(items, next, budget);
      taken = count;
      calls++;
      const request = summaryRequest(conversation, shownSummary, instructions);
      const ended = await withDeadline(
        (signal) =>
          complete(
            input.target.stream,
            model,
            {
              systemPrompt: SUMMARIZER_SYSTEM_PROMPT,
              messages: [{ role: "user", content: [{ type: "text", text: request }], timestamp: Date.now() }],
            },
            { ...input.streamOptions, signal, maxTokens: input.maxOutputTokens },
          ),
        input.signal,
        input.timeoutMs ?? 0,
      );
      if (ended.kind === "aborted" || signalFired(input.signal)) {
        return { aborted: true, text: running ?? "", calls, usage };
      }
      if (ended.kind === "timeout") {
        return useFallback("timeout", `the summarizer did not answer within ${input.timeoutMs} ms`);
      }
      if (ended.kind === "threw") {
        // A StreamFn must not throw (it ends its stream with an error instead); one that does is a failed call.
        return useFallback(
          "model_error",
          `the summarizer's stream function threw: ${describeError(ended.error)}`,
        );
      }
      response = ended.value;
      addUsage(usage, response.usage);
      if (signalFired(input.signal)) return { aborted: true, text: running ?? "", calls, usage };
      if (response.stopReason === "error" && isContextOverflow(response) && attempt < OVERFLOW_RETRIES) {
        scale /= 2;
        continue;
      }
      break;
    }
    if (response === undefined) break;
    if (response.stopReason === "error") {
      return useFallback("model_error", response.errorMessage ?? "the summarizer's response failed");
    }
    if (response.stopReason === "aborted") {
      return useFallback("model_aborted", response.errorMessage ?? "the summarizer's response was aborted");
    }
    const text = responseText(response);
    if (text === "") return useFallback("empty_summary", "the summarizer returned no text");
    incomplete = response.stopReason === "length";
    running = text;
    shown = text.length > maxChars ? truncateMiddle(text, maxChars) : text;
    next += taken;
  }
  return outcome(running ?? "", calls);
}

/**
 * Serializes messages from the newest back into `items` (oldest first, with their message indexes in
 * `itemMessage`) while `calls` calls of `budget` characters each can carry them when the newest are
 * packed first (an item longer than a call's budget takes a call of its own, cut to fit, as
 * {@link pack} does). Returns true when it stopped before the oldest message.
 */
function carriedItems(
  messages: readonly SessionMessage[],
  options: { toolResultMaxChars: number },
  calls: number,
  budget: number,
  items: string[],
  itemMessage: number[],
): boolean {
  let used = 0;
  let chunks = 1;
  let stopped = false;
  for (let index = messages.length - 1; index >= 0; index--) {
    const text = serializeMessage(messages[index]!, options);
    if (text === undefined) continue;
    if (used > 0 && used + text.length + 2 > budget) {
      chunks++;
      used = 0;
      if (chunks > calls) {
        stopped = true;
        break;
      }
    }
    used += used === 0 ? Math.min(text.length, budget) : text.length + 2;
    items.push(text);
    itemMessage.push(index);
  }
  items.reverse();
  itemMessage.reverse();
  return stopped;
}

/**
 * Packs items from `start` into at most `budget` characters (joined by blank lines). At least one item is
 * taken: one longer than the budget alone is cut to fit.
 */
function pack(items: readonly string[], start: number, budget: number): { text: string; count: number } {
  const parts: string[] = [];
  let used = 0;
  let index = start;
  for (; index < items.length; index++) {
    const item = items[index]!;
    const cost = item.length + (parts.length > 0 ? 2 : 0);
    if (used + cost > budget) break;
    parts.push(item);
    used += cost;
  }
  if (parts.length === 0) return { text: truncateMiddle(items[start]!, budget), count: 1 };
  return { text: parts.join("\n\n"), count: index - start };
}
