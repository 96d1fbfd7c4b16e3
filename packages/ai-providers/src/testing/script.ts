import type { UsageUpdate } from "../stream-writer.js";
import type { Context, Model, StopReason } from "../types.js";

/** One piece of a scripted response, streamed in small chunks. */
export type ScriptedPart =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature?: string; redacted?: boolean }
  | {
      type: "toolCall";
      name: string;
      /** An object (serialized with JSON.stringify) or raw JSON text, streamed as given. */
      arguments: Record<string, unknown> | string;
      id?: string;
    }
  | { type: "delay"; ms: number };

/** A response that ends normally. */
export interface ScriptedResponse {
  kind: "response";
  parts: ScriptedPart[];
  /** Default: `toolUse` when a tool call is present, else `stop`. */
  stopReason?: Extract<StopReason, "stop" | "length" | "toolUse">;
  /** Replaces the chars/4 usage estimate (counters given replace the estimate's). */
  usage?: UsageUpdate;
}

/** A response that fails (after streaming `parts`, which are kept as partial content). */
export interface ScriptedFailure {
  kind: "failure";
  errorMessage: string;
  reason: Extract<StopReason, "error" | "aborted">;
  parts: ScriptedPart[];
}

/** What a dynamic step sees: the call being answered. */
export interface ScriptedCall {
  /** 0-based index of the call. */
  index: number;
  model: Model;
  /** A deep copy of the context as it was sent. */
  context: Context;
  /** The options without the signal (see `aborted`). */
  options: Record<string, unknown>;
  /** Whether the call's signal had fired by the time its stream ended. */
  aborted: boolean;
}

/** One scripted answer: consumed by exactly one `stream()` call, in order. */
export type ScriptedStep = ScriptedResponse | ScriptedFailure | ((call: ScriptedCall) => ScriptedStep);

/** A tool call given to {@link script.toolCalls}. */
export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
  id?: string;
}

/**
 * Builders for scripted steps and parts. Each step answers one model call:
 *
 * ```ts
 * createScriptedProvider([
 *   script.toolCall("read", { path: "README.md" }),
 *   script.text("The README says hello."),
 * ]);
 * ```
 */
export const script = {
  /** A reply made of one text block. */
  text(
    text: string,
    options: { usage?: UsageUpdate; stopReason?: "stop" | "length" } = {},
  ): ScriptedResponse {
    return { kind: "response", parts: [{ type: "text", text }], ...options };
  },
  /** A reply with a thinking block, then (optionally) text. */
  thinking(thinking: string, text?: string, options: { signature?: string } = {}): ScriptedResponse {
    const parts: ScriptedPart[] = [{ type: "thinking", thinking, signature: options.signature }];
    if (text !== undefined) parts.push({ type: "text", text });
    return { kind: "response", parts };
  },
  /** A reply that calls one tool, optionally after some text. */
  toolCall(
    name: string,
    args: Record<string, unknown> | string,
    options: { id?: string; text?: string } = {},
  ): ScriptedResponse {
    return script.toolCalls([{ name, arguments: args, id: options.id }], { text: options.text });
  },
  /** A reply that calls several tools (in this order), optionally after some text. */
  toolCalls(calls: ScriptedToolCall[], options: { text?: string } = {}): ScriptedResponse {
    const parts: ScriptedPart[] = [];
    if (options.text !== undefined) parts.push({ type: "text", text: options.text });
    for (const call of calls) parts.push({ type: "toolCall", ...call });
    return { kind: "response", parts };
  },
  /** A reply assembled from parts (see {@link script.part}). */
  response(
    parts: ScriptedPart[],
    options: { stopReason?: ScriptedResponse["stopReason"]; usage?: UsageUpdate } = {},
  ): ScriptedResponse {
    return { kind: "response", parts, ...options };
  },
  /** A failed request: streams `partial` parts first (kept), then ends with `stopReason: "error"`. */
  error(errorMessage: string, options: { partial?: ScriptedPart[] } = {}): ScriptedFailure {
    return { kind: "failure", errorMessage, reason: "error", parts: options.partial ?? [] };
  },
  /**
   * A context-overflow rejection in Anthropic's words ("prompt is too long: N tokens > M maximum"),
   * with N the chars/4 size of the context and M the model's context window.
   */
  overflow(): ScriptedStep {
    return (call) => ({
      kind: "failure",
      reason: "error",
      parts: [],
      errorMessage: `400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: ${Math.max(
        estimateContextChars(call.context) / 4,
        call.model.contextWindow + 1,
      ).toFixed(0)} tokens > ${call.model.contextWindow} maximum"}}`,
    });
  },
  /** Waits `ms` (abortable) before the step streams. */
  delay(ms: number, step: ScriptedStep): ScriptedStep {
    return (call) => {
      const inner = typeof step === "function" ? step(call) : step;
      if (typeof inner === "function") return script.delay(ms, inner(call));
      return { ...inner, parts: [{ type: "delay", ms }, ...inner.parts] };
    };
  },
  /** A step computed from the call it answers (e.g. to echo the prompt). */
  dynamic(build: (call: ScriptedCall) => ScriptedStep): ScriptedStep {
    return build;
  },
  /** Part builders for {@link script.response} and `partial` content. */
  part: {
    text: (text: string): ScriptedPart => ({ type: "text", text }),
    thinking: (thinking: string, options: { signature?: string; redacted?: boolean } = {}): ScriptedPart => ({
      type: "thinking",
      thinking,
      ...options,
    }),
    toolCall: (name: string, args: Record<string, unknown> | string, id?: string): ScriptedPart => ({
      type: "toolCall",
      name,
      arguments: args,
      id,
    }),
    delay: (ms: number): ScriptedPart => ({ type: "delay", ms }),
  },
} as const;

/** Characters of a context as the chars/4 usage estimate counts them (images count 4,800). */
export function estimateContextChars(context: Context): number {
  let chars = context.systemPrompt?.length ?? 0;
  for (const tool of context.tools ?? []) {
    chars += tool.name.length + tool.description.length + JSON.stringify(tool.parameters).length;
  }
  for (const message of context.messages) {
    if (typeof message.content === "string") {
      chars += message.content.length;
      continue;
    }
    for (const block of message.content) {
      switch (block.type) {
        case "text":
          chars += block.text.length;
          break;
        case "thinking":
          chars += block.thinking.length;
          break;
        case "image":
          chars += 4800;
          break;
        case "toolCall":
          chars += block.name.length + JSON.stringify(block.arguments).length;
          break;
      }
    }
  }
  return chars;
}
