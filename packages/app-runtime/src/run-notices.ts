import type { AssistantMessage } from "@arbor/ai-providers";
import type { HarnessEvent, HarnessSession } from "@arbor/harness";

/**
 * What a run says while it goes, in words, for front ends that print it as it happens (print and json mode
 * write it to stderr): retries, so that a run against an unreachable server is never silent while it
 * waits, and the parts of a response the provider could not read, so that nothing is dropped unseen.
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
 * Writes a line for every retry of a session's runs as it is scheduled (`retry 1 of 3 in 2 s: <cause>`) and
 * for every notice of a finished reply (`Arbor could not read part of this response: …`); the run's final
 * error is the caller's to print, once. Returns the function that stops it.
 *
 * Contract: `write` is called synchronously from the session's event, once per line; it must not throw.
 */
export function reportRunNotices(session: HarnessSession, write: (line: string) => void): () => void {
  return session.subscribe((event) => {
    if (event.type === "retry_scheduled") write(retryNotice(event) ?? "");
    else if (event.type === "message_end") for (const line of responseNotices(event.message)) write(line);
  });
}
