import type { AssistantStream } from "../assistant-stream.js";
import { ArborError } from "../errors.js";
import type { Provider, StreamOptions } from "../provider.js";
import { type AssistantStreamWriter, abortMessage, createProviderStream } from "../stream-writer.js";
import type { Context, Model } from "../types.js";
import {
  estimateContextChars,
  type ScriptedCall,
  type ScriptedFailure,
  type ScriptedPart,
  type ScriptedResponse,
  type ScriptedStep,
} from "./script.js";

/** Numbers the generated tool-call ids of every scripted response in this process. */
let toolCallSequence = 0;

/** Options of {@link createScriptedProvider}. */
export interface ScriptedProviderOptions {
  /** Provider id. Default `scripted`. */
  id?: string;
  /** Fields of the default model to override (id `scripted-model`, 128,000-token window). */
  model?: Partial<Model>;
  /** Further models the provider lists. */
  models?: Model[];
  /** Characters per streamed chunk. Default 4. */
  chunkSize?: number;
  /**
   * Delay between chunks in ms; 0 (default) still yields to the event loop at every chunk. A function
   * chooses the delay per call (e.g. none for summary requests).
   *
   * Contract: a function form must be pure and must not throw.
   */
  chunkDelayMs?: number | ((call: ScriptedCall) => number);
  /**
   * Record every call in {@link ScriptedProvider.calls} (default `true`). A long-lived responder (a demo
   * model) passes `false`, so memory does not grow with every call; a call then sees the caller's context
   * as is, not a copy.
   */
  recordCalls?: boolean;
}

/**
 * Answers a call that no queued step covers (the function form of {@link createScriptedProvider}, like
 * a mock model that takes a value, a list or a function).
 *
 * Contract: may return a dynamic step; a throw ends that call's stream with an `error` message naming
 * the failure, never a throw from `stream()`.
 */
export type ScriptedResponder = (call: ScriptedCall) => ScriptedStep;

/** A deterministic fake {@link Provider} that answers from a script and records every call. */
export interface ScriptedProvider extends Provider {
  /** The default model (`<id>/scripted-model` unless overridden). */
  readonly model: Model;
  /** Every call so far, in order (contexts deep-copied when the call was made). */
  readonly calls: readonly ScriptedCall[];
  /** Steps not consumed yet. */
  readonly remaining: number;
  /** Calls that arrived after the script ran out. */
  readonly unexpectedCalls: number;
  /** Appends steps to the script. */
  push(...steps: ScriptedStep[]): void;
  /**
   * Checks that the script was used exactly.
   *
   * Contract: throws `ScriptedProviderError` (code `script_mismatch`) naming the leftover steps or
   * the unexpected calls; returns quietly otherwise.
   */
  assertDone(): void;
}

/** The script and the calls did not match. */
export class ScriptedProviderError extends ArborError {
  constructor(message: string) {
    super("script_mismatch", message);
    this.name = "ScriptedProviderError";
  }
}

/**
 * Creates a scripted provider: each `stream()` call consumes the next step and streams it in small
 * chunks through the real event protocol. It honours abort at every chunk (the stream then ends with
 * `stopReason: "aborted"`, partial content kept), reports usage as chars/4 of the context (input)
 * and of the reply (output), records every call, and answers a call beyond the script with an
 * `error` message (and a failing {@link ScriptedProvider.assertDone}).
 *
 * `steps` is a list (consumed in order) or a {@link ScriptedResponder}: a function that answers every
 * call (queued steps, from {@link ScriptedProvider.push}, still go first). A responder never runs out,
 * so `unexpectedCalls` stays 0.
 *
 * It has no dependency on any test framework.
 */
export function createScriptedProvider(
  steps: readonly ScriptedStep[] | ScriptedResponder = [],
  options: ScriptedProviderOptions = {},
): ScriptedProvider {
  const id = options.id ?? "scripted";
  const model: Model = {
    id: "scripted-model",
    name: "Scripted model",
    provider: id,
    api: "scripted",
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    contextWindow: 128_000,
    maxTokens: 16_384,
    ...options.model,
  };
  const models = [model, ...(options.models ?? [])];
  const responder = typeof steps === "function" ? steps : undefined;
  const queue: ScriptedStep[] = typeof steps === "function" ? [] : [...steps];
  const calls: ScriptedCall[] = [];
  let unexpectedCalls = 0;
  let callCount = 0;
  let stepsUsed = 0;
  const chunkSize = Math.max(1, options.chunkSize ?? 4);
  const delayOf = options.chunkDelayMs ?? 0;

  const stream = (callModel: Model, context: Context, streamOptions?: StreamOptions): AssistantStream => {
    const { signal, ...rest } = streamOptions ?? {};
    const record = options.recordCalls !== false;
    const call: ScriptedCall = {
      index: callCount++,
      model: callModel,
      context: record ? snapshot(context) : context,
      options: rest as Record<string, unknown>,
      aborted: false,
    };
    if (record) calls.push(call);
    let step = queue.shift();
    if (step !== undefined) stepsUsed++;
    else if (responder !== undefined) step = respondTo(responder, call);
    const chunkDelayMs = typeof delayOf === "function" ? delayOf(call) : delayOf;
    return createProviderStream(callModel, streamOptions, async ({ writer }) => {
      try {
        if (step === undefined) {
          unexpectedCalls++;
          writer.fail(
            "error",
            `Scripted provider "${id}": unexpected call #${call.index + 1}; the script had ${stepsUsed} ` +
              `step(s) and all are used. Last message: ${describeLastMessage(context)}`,
          );
          return;
        }
        while (typeof step === "function") step = step(call);
        const resolved: ScriptedResponse | ScriptedFailure = step;
        const inputTokens = Math.ceil(estimateContextChars(context) / 4);
        writer.usage({ input: inputTokens });
        const pace = () => yieldChunk(chunkDelayMs, signal);
        const finishedParts = await streamParts(writer, resolved.parts, chunkSize, pace, signal);
        const outputTokens = Math.ceil(outputChars(writer) / 4);
        writer.usage({ input: inputTokens, output: outputTokens });
        if (!finishedParts) {
          writer.fail("aborted", abortMessage(signal));
          return;
        }
        if (resolved.kind === "failure") {
          writer.fail(resolved.reason, resolved.errorMessage);
          return;
        }
        if (resolved.usage) writer.usage(resolved.usage);
        writer.done(resolved.stopReason);
      } finally {
        call.aborted = signal?.aborted ?? false;
      }
    });
  };

  return {
    id,
    models,
    model,
    stream,
    resolveModel: (modelId) => models.find((candidate) => candidate.id === modelId),
    get calls() {
      return calls;
    },
    get remaining() {
      return queue.length;
    },
    get unexpectedCalls() {
      return unexpectedCalls;
    },
    push(...more) {
      queue.push(...more);
    },
    assertDone() {
      const problems: string[] = [];
      if (queue.length > 0) {
        problems.push(
          `${queue.length} scripted step(s) were never used: ${queue.map(describeStep).join("; ")}`,
        );
      }
      if (unexpectedCalls > 0) {
        problems.push(`${unexpectedCalls} call(s) arrived after the script ran out`);
      }
      if (problems.length > 0) {
        throw new ScriptedProviderError(`Scripted provider "${id}": ${problems.join(", and ")}.`);
      }
    },
  };
}

/** The responder's step for a call; a throw becomes an `error` step naming it. */
function respondTo(responder: ScriptedResponder, call: ScriptedCall): ScriptedStep {
  try {
    let step = responder(call);
    while (typeof step === "function") step = step(call);
    return step;
  } catch (error) {
    return {
      kind: "failure",
      reason: "error",
      parts: [],
      errorMessage: `The scripted responder failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

/** Streams parts; returns false when the signal fired mid-way. */
async function streamParts(
  writer: AssistantStreamWriter,
  parts: readonly ScriptedPart[],
  chunkSize: number,
  pace: () => Promise<boolean>,
  signal: AbortSignal | undefined,
): Promise<boolean> {
  for (const part of parts) {
    if (part.type === "delay") {
      if (!(await sleep(part.ms, signal))) return false;
      continue;
    }
    if (part.type === "text") {
      writer.startText();
      for (const chunk of chunks(part.text, chunkSize)) {
        if (!(await pace())) return false;
        writer.text(chunk);
      }
    } else if (part.type === "thinking") {
      writer.startThinking({ redacted: part.redacted, signature: part.signature });
      for (const chunk of chunks(part.thinking, chunkSize)) {
        if (!(await pace())) return false;
        writer.thinking(chunk);
      }
    } else {
      // Unique in the process: two responses in the same millisecond must not share an id.
      toolCallSequence++;
      const callId = part.id ?? `call_${writer.message.timestamp.toString(36)}_${toolCallSequence}`;
      writer.startToolCall(callId, part.name);
      const json = typeof part.arguments === "string" ? part.arguments : JSON.stringify(part.arguments);
      for (const chunk of chunks(json, chunkSize)) {
        if (!(await pace())) return false;
        writer.toolCallDelta(chunk);
      }
    }
    writer.endBlock();
  }
  return pace();
}

function* chunks(text: string, size: number): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** Yields to the event loop (or waits); resolves false when the signal has fired. */
function yieldChunk(delayMs: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (delayMs > 0) return sleep(delayMs, signal);
  return new Promise((resolve) => setImmediate(() => resolve(!signal?.aborted)));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function outputChars(writer: AssistantStreamWriter): number {
  return estimateContextChars({ messages: [writer.message] });
}

/** Copies the conversation (later mutation by the caller must not change the record); tools are kept by reference. */
function snapshot(context: Context): Context {
  const copy: Context = { messages: structuredClone(context.messages) };
  if (context.systemPrompt !== undefined) copy.systemPrompt = context.systemPrompt;
  if (context.tools !== undefined) copy.tools = [...context.tools];
  return copy;
}

function describeLastMessage(context: Context): string {
  const last = context.messages[context.messages.length - 1];
  if (last === undefined) return "(none)";
  const text =
    typeof last.content === "string"
      ? last.content
      : last.content.map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ");
  return `${last.role}: ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)}`;
}

function describeStep(step: ScriptedStep): string {
  if (typeof step === "function") return "a dynamic step";
  if (step.kind === "failure") return `error ${JSON.stringify(step.errorMessage.slice(0, 60))}`;
  const first = step.parts.find((part) => part.type !== "delay");
  if (first === undefined) return "an empty response";
  if (first.type === "text") return `text ${JSON.stringify(first.text.slice(0, 40))}`;
  if (first.type === "thinking") return `thinking ${JSON.stringify(first.thinking.slice(0, 40))}`;
  if (first.type === "toolCall") return `tool call "${first.name}"`;
  return "a response";
}
