import { ArborError } from "@arbor/ai-providers";
import type { AgentEvent } from "./events.js";

/**
 * Typed errors for misuse of the agent. Failures a caller can act on (a provider error, a failing
 * tool, an abort) are never thrown: they become messages and events.
 */

/** Stable machine-readable error codes of this package. */
export type AgentCoreErrorCode =
  | "agent_busy"
  | "cannot_continue"
  | "invalid_prompt"
  | "invalid_tool_schema"
  | "listener_failed";

/**
 * The agent is running (a prompt or a continuation is in flight) and the call needs it idle:
 * `prompt()`, `continue()`, `reset()`, `replaceMessages()`, `appendMessage()`.
 */
export class AgentBusyError extends ArborError {
  constructor(readonly operation: string) {
    super(
      "agent_busy",
      `Cannot ${operation} while the agent is running. Queue the message with steer() or followUp(), ` +
        "or call abort() and await waitForIdle() first.",
    );
    this.name = "AgentBusyError";
  }
}

/** Why a conversation cannot be continued; see {@link CannotContinueError}. */
export type CannotContinueReason =
  | "no_messages"
  | "last_message_assistant"
  | "unanswered_tool_calls"
  | "last_message_not_llm";

/**
 * `continue()` needs a conversation that ends with a message the model answers: a `user` message or a
 * `toolResult` (or a custom message that `convertToLlm` turns into one of those).
 */
export class CannotContinueError extends ArborError {
  constructor(
    readonly reason: CannotContinueReason,
    message: string,
    /** For `unanswered_tool_calls`: the ids of the calls that have no result. */
    readonly toolCallIds: readonly string[] = [],
  ) {
    super("cannot_continue", message);
    this.name = "CannotContinueError";
  }
}

/** `prompt()` received input it cannot turn into messages (an empty list, a message without `role`). */
export class InvalidPromptError extends ArborError {
  constructor(message: string) {
    super("invalid_prompt", message);
    this.name = "InvalidPromptError";
  }
}

/**
 * A listener passed to `Agent.subscribe()` threw or rejected. The run goes on; the error is handed to
 * the agent's `onListenerError` (by default printed with `console.error`).
 */
export class AgentListenerError extends ArborError {
  constructor(
    /** The event the listener was handling. */
    readonly event: AgentEvent,
    cause: unknown,
  ) {
    super(
      "listener_failed",
      `An agent event listener failed on "${event.type}": ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = "AgentListenerError";
  }
}

/**
 * A tool's `parameters` cannot describe its arguments: not a schema, a JSON Schema ajv cannot compile, a
 * TypeBox schema that does not compile, a root that is no object schema, or a Standard Schema that gives
 * no JSON Schema for the model. Thrown when the tool is registered (`checkToolSchema`).
 */
export class InvalidToolSchemaError extends ArborError {
  constructor(
    /** The name of the tool. */
    readonly toolName: string,
    /** What is wrong with the schema, one sentence. */
    readonly reason: string,
  ) {
    super("invalid_tool_schema", `The parameters of tool "${toolName}" are not a usable schema: ${reason}.`);
    this.name = "InvalidToolSchemaError";
  }
}
