import {
  type AssistantStreamWriter,
  describeError,
  type Model,
  type ProviderResponseInfo,
  RetryGaveUpError,
  type RetryPolicy,
  retryWithPolicy,
  type StreamOptions,
} from "@arbor/ai-providers";
import { APIError } from "openai";
import { classifyFailure, headersToRecord } from "./failure.js";

/** One attempt's open stream and the HTTP response it came with. */
export interface OpenedStream<TEvent> {
  data: AsyncIterable<TEvent>;
  response: Response;
}

/** What {@link sendWithRetries} needs to run one streaming request. */
export interface SendRequestOptions<TEvent> {
  model: Model;
  writer: AssistantStreamWriter;
  signal: AbortSignal | undefined;
  /** Names the server in messages, e.g. `OpenAI`, `Ollama`. */
  label: string;
  /** The request body before the hooks. */
  body: Record<string, unknown>;
  /** Payload hooks, settings' first. */
  payloadHooks: (StreamOptions["onPayload"] | undefined)[];
  /** Response hooks, settings' first. */
  responseHooks: (StreamOptions["onResponse"] | undefined)[];
  retry: Partial<RetryPolicy>;
  /**
   * Sends the request (through the SDK, with its own retries off).
   *
   * Contract: called once per attempt; rejects with the SDK's error for an HTTP or connection failure.
   */
  open: (body: unknown) => Promise<OpenedStream<TEvent>>;
  /**
   * Turns the events into writer calls; resolves when the response is complete.
   *
   * Contract: called once per attempt with fresh state; ends the writer (`done`) on success and
   * rejects (leaving the writer open) on a failure, so the failure can be retried or reported.
   */
  consume: (events: AsyncIterable<TEvent>) => Promise<void>;
}

/** An attempt that failed after content reached the caller: it is not retried. */
interface FailedAfterContent {
  failedAfterContent: unknown;
}

/**
 * Runs one streaming request end to end:
 *
 * 1. applies the payload hooks (a throw fails the stream naming the hook);
 * 2. sends it, retrying transient failures with the retry policy of @arbor/ai-providers
 *    (`retry-after` honoured; a longer wait than allowed fails at once saying how long) as long as no
 *    content has been streamed yet — a failure after the first content block keeps that content and
 *    ends the stream with `stopReason: "error"`;
 * 3. reports every HTTP response (errors included) to the response hooks.
 *
 * Failures end the writer with `error`; an abort is rethrown for `createProviderStream` to report as
 * `aborted`.
 */
export async function sendWithRetries<TEvent>(options: SendRequestOptions<TEvent>): Promise<void> {
  const { writer, signal, model } = options;
  let body: unknown = options.body;
  for (const [index, hook] of options.payloadHooks.entries()) {
    if (hook === undefined) continue;
    try {
      const replaced = await hook(body, model);
      if (replaced !== undefined) body = replaced;
    } catch (error) {
      const which = index === 0 && options.payloadHooks.length > 1 ? "settings.onPayload" : "onPayload";
      writer.fail("error", `The ${which} hook failed: ${describeError(error)}`);
      return;
    }
  }
  if (typeof body === "object" && body !== null) (body as { stream?: unknown }).stream = true;

  const report = (info: ProviderResponseInfo) => {
    for (const hook of options.responseHooks) {
      if (hook === undefined) continue;
      try {
        const result = hook(info, model);
        if (result instanceof Promise) result.catch(() => {});
      } catch {
        // Observation only.
      }
    }
  };

  let outcome: FailedAfterContent | undefined;
  try {
    outcome = await retryWithPolicy<FailedAfterContent | undefined>(
      async () => {
        try {
          const opened = await options.open(body);
          report({ status: opened.response.status, headers: headersToRecord(opened.response.headers) });
          await options.consume(opened.data);
          return undefined;
        } catch (error) {
          if (error instanceof APIError && error.status !== undefined && error.headers !== undefined) {
            report({ status: error.status, headers: headersToRecord(error.headers) });
          }
          if (writer.message.content.length > 0 && !signal?.aborted) return { failedAfterContent: error };
          throw error;
        }
      },
      {
        policy: options.retry,
        signal,
        classify: (error) => classifyFailure(error, options.label),
      },
    );
  } catch (error) {
    if (signal?.aborted) throw error;
    const message =
      error instanceof RetryGaveUpError
        ? error.message
        : (classifyFailure(error, options.label).message ?? describeError(error));
    writer.fail("error", message);
    return;
  }
  if (outcome !== undefined) {
    if (signal?.aborted) throw outcome.failedAfterContent;
    const failure = classifyFailure(outcome.failedAfterContent, options.label);
    writer.fail("error", failure.message ?? describeError(outcome.failedAfterContent));
  }
}
