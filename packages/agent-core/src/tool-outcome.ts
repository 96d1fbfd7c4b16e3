import { describeError, type ToolResultMessage } from "@arbor/ai-providers";
import type { AgentToolCall, AgentToolResult } from "./agent-tool.js";
import type { RunEmitter } from "./run-emitter.js";

/**
 * The result of one tool call as the loop carries it from execution to the transcript, and the
 * texts of the results the loop writes itself (unknown tool, blocked, aborted, …).
 *
 * Internal: not exported from the package.
 */
export interface ToolOutcome {
  /** The final result; `result.isError` equals `isError`. */
  result: AgentToolResult;
  isError: boolean;
}

/** An error outcome whose text the model sees. */
export function errorOutcome(text: string, details?: unknown): ToolOutcome {
  const result: AgentToolResult = { content: [{ type: "text", text }], isError: true };
  if (details !== undefined) result.details = details;
  return { result, isError: true };
}

/** Checks what a tool returned; anything but `{ content: [...] }` becomes an error outcome. */
export function outcomeFromResult(call: AgentToolCall, value: unknown): ToolOutcome {
  if (typeof value !== "object" || value === null || !Array.isArray((value as AgentToolResult).content)) {
    return errorOutcome(
      `Tool "${call.name}" returned an invalid result: expected an object with a content array, received ${describeReturn(value)}.`,
    );
  }
  const returned = value as AgentToolResult;
  const isError = returned.isError === true;
  const result: AgentToolResult = { content: returned.content, isError };
  if (returned.details !== undefined) result.details = returned.details;
  if (returned.terminate === true) result.terminate = true;
  return { result, isError };
}

function describeReturn(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object without content" : typeof value;
}

/** Texts of the results the loop writes itself. */
export const toolResultText = {
  unknownTool: (name: string, available: readonly string[]) =>
    `Tool "${name}" not found. Available tools: ${available.length > 0 ? available.join(", ") : "(none)"}.`,
  prepareFailed: (name: string, error: unknown) =>
    `Tool "${name}": preparing the arguments failed: ${describeError(error)}`,
  blocked: (name: string) => `Tool call "${name}" was blocked.`,
  beforeHookFailed: (name: string, error: unknown) =>
    `Tool call "${name}" was blocked: the beforeToolCall hook failed: ${describeError(error)}`,
  afterHookFailed: (name: string, error: unknown) =>
    `Tool "${name}" ran, but the afterToolCall hook failed: ${describeError(error)}`,
  thrown: (name: string, error: unknown) => {
    const text = describeError(error);
    return text === "" || text === "Error" ? `Tool "${name}" failed.` : text;
  },
  aborted: (name: string, signal: AbortSignal) => `Tool "${name}" was aborted${abortReason(signal)}.`,
  runAborted: (name: string, signal: AbortSignal) =>
    `Tool call "${name}" was not executed: the run was aborted${abortReason(signal)}.`,
  responseFailed: (name: string, stopReason: "error" | "aborted") =>
    `Tool call "${name}" was not executed: the response ${stopReason === "aborted" ? "was aborted" : "failed"} before it completed.`,
  responseTruncated: (name: string) =>
    `Tool call "${name}" was not executed: the response hit the output token limit, so its arguments may be incomplete. Send the call again with complete arguments.`,
  loopFailed: (name: string, error: unknown) =>
    `Tool call "${name}" has no result: the agent loop failed (${describeError(error)}).`,
};

function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error && reason.name !== "AbortError" && reason.message) return `: ${reason.message}`;
  if (typeof reason === "string" && reason !== "") return `: ${reason}`;
  return "";
}

/** The transcript message of an outcome. */
export function toolResultMessage(call: AgentToolCall, outcome: ToolOutcome): ToolResultMessage {
  const message: ToolResultMessage = {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: outcome.result.content,
    isError: outcome.isError,
    timestamp: Date.now(),
  };
  if (outcome.result.details !== undefined) message.details = outcome.result.details;
  return message;
}

/** Emits `tool_execution_end` for an outcome. */
export function emitExecutionEnd(
  emitter: RunEmitter,
  call: AgentToolCall,
  outcome: ToolOutcome,
): Promise<void> {
  return emitter.emit({
    type: "tool_execution_end",
    toolCallId: call.id,
    toolName: call.name,
    result: outcome.result,
    isError: outcome.isError,
  });
}

/** Emits `message_start` and `message_end` of a tool result (which puts it into the transcript). */
export async function emitResultMessage(emitter: RunEmitter, message: ToolResultMessage): Promise<void> {
  await emitter.emit({ type: "message_start", message });
  await emitter.emit({ type: "message_end", message });
}

/**
 * Answers calls that will not run (start, end, result) one after another, e.g. the calls of a failed
 * or truncated response.
 */
export async function answerWithoutRunning(
  emitter: RunEmitter,
  calls: readonly AgentToolCall[],
  text: (call: AgentToolCall) => string,
): Promise<ToolResultMessage[]> {
  const results: ToolResultMessage[] = [];
  for (const call of calls) {
    await emitter.emit({
      type: "tool_execution_start",
      toolCallId: call.id,
      toolName: call.name,
      args: call.arguments,
    });
    const outcome = errorOutcome(text(call));
    await emitExecutionEnd(emitter, call, outcome);
    const message = toolResultMessage(call, outcome);
    await emitResultMessage(emitter, message);
    results.push(message);
  }
  return results;
}
