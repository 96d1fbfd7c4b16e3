/**
 * A scripted provider without a fixed script: every call is answered by a function of its context. Each
 * call streams through a fresh `createScriptedProvider()` of `@arbor/ai-providers/testing` (the real event
 * protocol, chunked deltas, abort at every chunk, chars/4 usage), so nothing accumulates across calls.
 */
import type { Context, Model, Provider } from "@arbor/ai-providers";
import { createScriptedProvider, type ScriptedStep } from "@arbor/ai-providers/testing";

/** Options of {@link createResponderProvider}. */
export interface ResponderProviderOptions {
  /** The provider id (the `provider` of its models). */
  id: string;
  /** The models it answers as; the first is its default. */
  models: readonly Model[];
  /**
   * Answers one call.
   *
   * Contract: must not throw (a throw becomes an `error` message of the call); may return a dynamic step.
   */
  respond: (context: Context, model: Model) => ScriptedStep;
  /** Characters per streamed chunk (default 4). */
  chunkSize?: number;
  /** Pause between chunks in ms (default 0: each chunk still yields to the event loop). */
  chunkDelayMs?: number;
  /**
   * The pause between chunks of one call, when it depends on the call (e.g. none for summaries).
   *
   * Contract: pure; must not throw.
   */
  chunkDelayFor?: (context: Context) => number;
}

/** A provider whose every answer comes from a function (see {@link createResponderProvider}). */
export interface ResponderProvider extends Provider {
  /** The default model. */
  readonly model: Model;
}

/**
 * Creates a provider that answers each `stream()` call with `respond(context, model)`.
 *
 * Contract: `stream()` never throws (as every provider): a failing `respond` ends the stream with an `error`
 * message naming the failure.
 */
export function createResponderProvider(options: ResponderProviderOptions): ResponderProvider {
  const [first] = options.models;
  if (first === undefined) throw new TypeError("createResponderProvider: at least one model is required.");
  const models = [...options.models];
  return {
    id: options.id,
    models,
    model: first,
    resolveModel: (modelId) => models.find((model) => model.id === modelId),
    stream(model, context, streamOptions) {
      let step: ScriptedStep;
      try {
        step = options.respond(context, model);
      } catch (error) {
        step = {
          kind: "failure",
          reason: "error",
          parts: [],
          errorMessage: `The scripted model failed: ${(error as Error).message}`,
        };
      }
      const once = createScriptedProvider([step], {
        id: options.id,
        model,
        chunkSize: options.chunkSize,
        chunkDelayMs: options.chunkDelayFor?.(context) ?? options.chunkDelayMs,
      });
      return once.stream(model, context, streamOptions);
    },
  };
}
