import { APIConnectionError, APIConnectionTimeoutError, APIError } from "@anthropic-ai/sdk";
import { describeError, type FailureInfo, parseRetryAfter, RetryGaveUpError } from "@arbor/ai-providers";

/**
 * Failures of the Anthropic API as data: every one becomes an `errorMessage` a user can act on (the
 * server's own text kept, so `isContextOverflow` recognizes "prompt is too long"), and a
 * {@link FailureInfo} for the retry policy. Nothing here is thrown at the caller.
 */

/** The message of a request made without an API key (no request is sent). */
export const MISSING_API_KEY_MESSAGE =
  "No Anthropic API key: set the ANTHROPIC_API_KEY environment variable, or pass `apiKey` to " +
  "createAnthropicProvider() or in the stream options. No request was sent.";

/** The stream ended (cleanly or not) after content was streamed: retrying would repeat that content. */
export class InterruptedStreamError extends Error {
  constructor(readonly original: unknown) {
    super(`The response was interrupted after content had streamed: ${describeFailure(original)}`);
    this.name = "InterruptedStreamError";
  }
}

/** The server closed the stream before `message_stop`. */
export class IncompleteStreamError extends Error {
  /** Transient: nothing reached the caller yet, or the wording marks it so for the retry policy. */
  readonly code = "ECONNRESET";
  constructor() {
    super("The connection to the Anthropic API closed before the response was complete (no message_stop).");
    this.name = "IncompleteStreamError";
  }
}

/**
 * The stream broke the Messages API's event protocol (a second message began inside the first, a delta came
 * for a block that was never opened, …): what it carried cannot be trusted to be whole, so the response ends
 * as an `error` at once — never retried, never wrapped as an interruption — with the partial content kept.
 * An errored message runs none of its tool calls. `detail` says what broke, for the error message.
 */
export class BrokenStreamProtocolError extends Error {
  constructor(readonly detail: string) {
    super(
      `The Anthropic API stream broke its protocol (${detail}), so the response is incomplete and ends as an error.`,
    );
    this.name = "BrokenStreamProtocolError";
  }
}

/** A hook (`onPayload`) threw. Not transient. */
export class HookError extends Error {
  constructor(hook: string, cause: unknown) {
    super(`The ${hook} hook failed: ${describeError(cause)}`, { cause });
    this.name = "HookError";
  }
}

/** The `code` of a Node.js network error behind an SDK connection error (`ECONNREFUSED`, ...). */
function networkCode(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && typeof current === "object" && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === "string") return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The innermost message of an error's cause chain (`other side closed`, `connect ECONNREFUSED ...`). */
function rootMessage(error: unknown): string | undefined {
  let current: unknown = error;
  let message: string | undefined;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current.message) message = current.message;
    current = current.cause;
  }
  return message;
}

/**
 * One line describing a failure:
 *
 * - HTTP errors: `Anthropic API error 400 (invalid_request_error): prompt is too long: 213462 tokens >
 *   200000 maximum [request req_…]` — the status, the error type and the server's message.
 * - Errors sent inside the stream (`event: error`): `Anthropic API stream error (overloaded_error): Overloaded`.
 * - Connection failures and timeouts: what failed and the underlying network error.
 * - A stream that broke mid-response: what broke (`terminated: other side closed`).
 * - A stream that broke the event protocol: what broke ({@link BrokenStreamProtocolError}).
 */
export function describeFailure(error: unknown): string {
  if (error instanceof RetryGaveUpError) return error.reason;
  if (
    error instanceof InterruptedStreamError ||
    error instanceof HookError ||
    error instanceof BrokenStreamProtocolError
  ) {
    return error.message;
  }
  if (error instanceof APIConnectionTimeoutError) return "The request to the Anthropic API timed out.";
  if (error instanceof APIConnectionError) {
    const cause = rootMessage(error.cause);
    return `Could not reach the Anthropic API: ${error.message}${cause ? ` (${cause})` : ""}`;
  }
  if (error instanceof APIError) {
    const type = error.type ?? undefined;
    const text = error.apiMessage ?? (error.status === undefined ? error.message : undefined);
    const where =
      error.status === undefined ? "Anthropic API stream error" : `Anthropic API error ${error.status}`;
    const request = error.requestID ? ` [request ${error.requestID}]` : "";
    const detail = text ?? (error.status === undefined ? "" : bodyText(error.error));
    return `${where}${type ? ` (${type})` : ""}${detail ? `: ${detail}` : ""}${request}`;
  }
  if (error instanceof Error) {
    const root = rootMessage(error.cause);
    const base = describeError(error);
    return root && !base.includes(root) ? `${base}: ${root}` : base;
  }
  return describeError(error);
}

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return "";
  if (typeof body === "string") return body;
  try {
    return JSON.stringify(body);
  } catch {
    return String(body);
  }
}

/** Describes a failure for the retry policy of `@arbor/ai-providers`. */
export function classifyFailure(error: unknown): FailureInfo {
  // Never retried: content already reached the caller, or the caller's own hook failed. The message here
  // only feeds the retry decision (the stream's errorMessage comes from describeFailure), so it is a
  // fixed text that no transient-failure wording can match.
  if (error instanceof InterruptedStreamError) return { message: "stream cut after content was delivered" };
  if (error instanceof HookError) return { message: "a request hook failed" };
  if (error instanceof BrokenStreamProtocolError) return { message: "the stream broke its protocol" };
  const message = describeFailure(error);
  if (error instanceof APIConnectionError) {
    const code = networkCode(error.cause) ?? "ECONNABORTED";
    return { message, code };
  }
  if (error instanceof APIError) {
    const info: FailureInfo = { message };
    if (error.status !== undefined) info.status = error.status;
    if (error.type) info.code = error.type;
    const retryAfterMs = parseRetryAfter(error.headers);
    if (retryAfterMs !== undefined) info.retryAfterMs = retryAfterMs;
    return info;
  }
  const code = networkCode(error);
  return code === undefined ? { message } : { message, code };
}

/** Response headers as a plain record with lower-case names. */
export function headersRecord(headers: Headers | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  headers?.forEach((value, name) => {
    record[name.toLowerCase()] = value;
  });
  return record;
}
