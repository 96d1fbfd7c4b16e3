import type { AssistantMessage } from "@arbor/ai-providers";
import type { ContextUsage, HarnessEvent, HarnessSession } from "@arbor/harness";

/**
 * What a run says while it goes, in words, for front ends that print it as it happens (print and json mode
 * write it to stderr): retries, so that a run against an unreachable server is never silent while it
 * waits, compactions (one line as each starts, one with its outcome), and the parts of a response the
 * provider could not read, so that nothing is dropped unseen.
 */

/** A delay for a notice: `2 s`, `0.5 s`, `1.2 s`. */
function seconds(delayMs: number): string {
  return `${Number((Math.max(0, delayMs) / 1000).toFixed(1))} s`;
}

/**
 * One line for a retry event, or `undefined` for the events that need none (a retry that starts, a series
 * that succeeded or was aborted):
 *
 * - `retry_scheduled`: `retry 1 of 3 in 2 s: <cause>`;
 * - `retry_finished` that gave up: its message once (`gave up after 3 retries: <cause>`).
 */
export function retryNotice(event: HarnessEvent): string | undefined {
  if (event.type === "retry_scheduled") {
    return `retry ${event.attempt} of ${event.maxRetries} in ${seconds(event.delayMs)}: ${event.errorMessage}`;
  }
  if (event.type === "retry_finished" && !event.success && event.aborted !== true) {
    const message = event.errorMessage ?? "the last attempt failed";
    if (/^gave up\b/.test(message)) return message;
    const retries = `${event.attempts} ${event.attempts === 1 ? "retry" : "retries"}`;
    return `gave up after ${retries}: ${message}`;
  }
  return undefined;
}

/** A token count with separators: `5,812`. */
function count(tokens: number): string {
  return Math.round(tokens).toLocaleString("en-US");
}

/** The window and threshold a compaction line names (a session's `contextUsage()`). */
export type CompactionMeter = Pick<ContextUsage, "contextWindow" | "compactionThreshold">;

/**
 * One line for a compaction event, or `undefined` for the other events:
 *
 * - `compaction_start`: `compacting the context (about 5,812 of 6,000 tokens, threshold 4,800)…` (after an
 *   overflow: `compacting the context, which the model found too long (…)…`);
 * - `compaction_end`: the outcome's message, as the harness words it (`Compacted the conversation: context
 *   about 5,812 → 2,900 tokens.`, `Nothing to compact: …`);
 * - `prune`: its message (`Pruned 3 old tool results from the context (recall brings each back): …`).
 *
 * Contract: pure.
 */
export function compactionProgressNotice(event: HarnessEvent, meter: CompactionMeter): string | undefined {
  if (event.type === "compaction_start") {
    const what = event.reason === "overflow" ? "the context, which the model found too long" : "the context";
    const size = `about ${count(event.tokensBefore)} of ${count(meter.contextWindow)} tokens`;
    return `compacting ${what} (${size}, threshold ${count(meter.compactionThreshold)})…`;
  }
  if (event.type === "compaction_end") return event.outcome.message;
  if (event.type === "prune") return event.message;
  return undefined;
}

/**
 * The lines for a finished message: each of an assistant message's `notices` (the parts of the response
 * its provider could not read), none for anything else.
 *
 * Contract: pure.
 */
export function responseNotices(message: unknown): string[] {
  const reply = message as Partial<AssistantMessage> | undefined;
  if (reply?.role !== "assistant" || !Array.isArray(reply.notices)) return [];
  return reply.notices.filter((notice): notice is string => typeof notice === "string" && notice !== "");
}

/**
 * Writes a line for every retry of a session's runs as it is scheduled (`retry 1 of 3 in 2 s: <cause>`), for
 * every compaction as it starts and as it ends ({@link compactionProgressNotice}) and for every notice of a
 * finished reply (`Arbor could not read part of this response: …`); the run's final error is the caller's
 * to print, once. Returns the function that stops it. Only for front ends that print as they go: an
 * interactive UI shows compactions itself.
 *
 * Contract: `write` is called synchronously from the session's event, once per line; it must not throw.
 */
export function reportRunNotices(session: HarnessSession, write: (line: string) => void): () => void {
  return session.subscribe((event) => {
    if (event.type === "retry_scheduled") write(retryNotice(event) ?? "");
    else if (event.type === "compaction_start" || event.type === "compaction_end" || event.type === "prune") {
      write(compactionProgressNotice(event, session.contextUsage()) ?? "");
    } else if (event.type === "message_end") for (const line of responseNotices(event.message)) write(line);
  });
}
