import { type FailureInfo, parseRetryAfter } from "@arbor/ai-providers";
import { APIConnectionError, APIError } from "openai";

/**
 * Turning whatever a request threw into words and a {@link FailureInfo} for the retry policy. The
 * server's own text is always kept, so `isContextOverflow` recognizes an overflow whatever the status.
 */

/** A failure reported inside a stream (an `error` event, `response.failed`, a content filter). */
export class WireFailure extends Error {
  readonly info: FailureInfo;

  constructor(message: string, info: Omit<FailureInfo, "message"> = {}) {
    super(message);
    this.name = "WireFailure";
    this.info = { ...info, message };
  }
}

/** The server's message inside an SDK error body (`{ message }`, a plain string, or JSON). */
function serverMessage(error: APIError): string {
  const body = error.error as unknown;
  if (typeof body === "string") return body;
  if (typeof body === "object" && body !== null) {
    const message = (body as { message?: unknown }).message;
    if (typeof message === "string") return message;
    if (message !== undefined) return JSON.stringify(message);
    return JSON.stringify(body);
  }
  return error.message.replace(/^\d{3}\s+/, "");
}

/** The `code` / `type` of an error, e.g. `context_length_exceeded`, `ECONNRESET`. */
function errorCode(error: unknown): string | undefined {
  if (error instanceof APIError) {
    const code = error.code ?? error.type;
    return typeof code === "string" && code.length > 0 ? code : undefined;
  }
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

/** The chain of causes of an error as one line (`terminated: other side closed`). */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      const text = current.message || current.name;
      const part = typeof code === "string" && !text.includes(code) ? `${text} (${code})` : text;
      if (!parts.includes(part)) parts.push(part);
      current = current.cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(": ");
}

/**
 * Describes a failure of one attempt for the retry policy and for the final `errorMessage`:
 *
 * - an HTTP error: `<label> HTTP <status> (<code>): <server message>`, with `retry-after` read;
 * - a connection error: `<label> connection error: <cause chain>` (e.g. `connect ECONNREFUSED …`);
 * - a {@link WireFailure}: its message and info unchanged;
 * - anything else (a dropped stream): `<label> stream failed: <cause chain>`.
 */
export function classifyFailure(error: unknown, label: string): FailureInfo {
  if (error instanceof WireFailure) return error.info;
  if (error instanceof APIConnectionError) {
    const cause = error.cause === undefined ? error.message : causeChain(error.cause);
    return { message: `${label} connection error: ${cause}`, code: errorCode(error.cause) };
  }
  if (error instanceof APIError && error.status !== undefined) {
    const code = errorCode(error);
    const status = error.status as number;
    return {
      status,
      code,
      message: `${label} HTTP ${status}${code ? ` (${code})` : ""}: ${serverMessage(error)}`,
      retryAfterMs: error.headers ? parseRetryAfter(error.headers) : undefined,
    };
  }
  if (error instanceof APIError) {
    // An error object inside the stream (`data: {"error": {...}}`).
    const code = errorCode(error);
    return { code, message: `${label} stream error${code ? ` (${code})` : ""}: ${serverMessage(error)}` };
  }
  return { message: `${label} stream failed: ${causeChain(error)}`, code: errorCode(error) };
}

/** Response headers as a plain record with lower-case names. */
export function headersToRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}
