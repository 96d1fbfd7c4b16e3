import type { ImageContent, TextContent, Tool, ToolCall } from "@arbor/ai-providers";
import type { ToolArguments, ToolParameters } from "./tool-schema.js";

/**
 * How the tool calls of one assistant message run.
 *
 * - `parallel`: the calls are prepared one by one in the message's order (`tool_execution_start`,
 *   lookup, `prepareArguments`, validation, `beforeToolCall`); each ready call starts executing at once,
 *   concurrently with the preparation of the next. `tool_execution_end` is emitted as each call
 *   finishes (completion order; at once for a call answered during preparation). The tool-result
 *   messages (`message_start`/`message_end`) follow once every call has finished, in the message's order.
 * - `sequential`: each call is started, prepared, executed and ended, and its result message emitted,
 *   before the next call starts.
 */
export type ToolExecutionMode = "parallel" | "sequential";

/** A tool call as it appears in an assistant message. */
export type AgentToolCall = ToolCall;

/** What a tool returns: the content the model sees, plus data for UIs and hooks. */
export interface AgentToolResult<TDetails = unknown> {
  /** Sent to the model as the tool result. */
  content: (TextContent | ImageContent)[];
  /** Structured data for UIs, hooks and sessions; never sent to the model. */
  details?: TDetails;
  /** Marks the result as a failure the model should see as such (default `false`). */
  isError?: boolean;
  /**
   * Ends the run after the current turn: once every tool call of the turn has its result, the loop
   * emits `turn_end` and `agent_end` instead of calling the model again.
   */
  terminate?: boolean;
}

/** A partial result a running tool reports (e.g. output so far, progress). */
export interface AgentToolUpdate<TDetails = unknown> {
  content?: (TextContent | ImageContent)[];
  details?: TDetails;
}

/** What `execute` receives besides the arguments. */
export interface AgentToolExecuteContext<TDetails = unknown> {
  /** The id of the tool call being executed. */
  toolCallId: string;
  /** Fires when the run is aborted. The loop stops waiting for the tool at once (its result is then an error). */
  signal: AbortSignal;
  /**
   * Reports a partial result; each call becomes a `tool_execution_update` event, in order, before the
   * call's `tool_execution_end`. Calls after `execute` settled are ignored.
   */
  onUpdate: (update: AgentToolUpdate<TDetails>) => void;
}

/**
 * A tool the agent can run: a name, a description and `parameters` (see {@link ToolParameters}: a TypeBox
 * schema, a plain JSON Schema or a Standard Schema such as zod's) plus `execute`. The schema is checked when
 * the tool is registered (`checkToolSchema`); arguments are validated against it before `execute` runs
 * (`validateAgentToolArguments`), so `execute` receives a value of the schema's type. Providers receive
 * the schema's JSON Schema (`modelTool`).
 */
export interface AgentTool<TParameters extends ToolParameters = ToolParameters, TDetails = unknown>
  extends Omit<Tool, "parameters"> {
  /** The schema of the arguments: an object schema of one of the {@link ToolParameters} kinds. */
  parameters: TParameters;
  /** A human-readable name for UIs (default: `name`). */
  label?: string;
  /**
   * `sequential`: whenever this tool is among the calls of an assistant message, the whole message's
   * calls run one after another, even when the loop runs tools in parallel.
   */
  executionMode?: ToolExecutionMode;
  /**
   * Most tokens of this tool's result the model sees; absent: the session's tool-output budget. A host
   * that budgets tool output (the harness does) cuts a longer result to its head and tail with a note and
   * keeps the whole output elsewhere; agent-core itself does not read it. A positive whole number.
   */
  maxOutputTokens?: number;
  /**
   * Migrates raw arguments before validation (e.g. a renamed property in old sessions).
   *
   * Contract: returns the arguments to validate; may be async. A throw becomes an error tool result
   * naming the tool; the tool is not executed.
   */
  prepareArguments?(raw: Record<string, unknown>): unknown;
  /**
   * Runs the tool.
   *
   * Contract: returns the result or throws. A throw (or rejection) becomes a tool result with
   * `isError: true` whose text is the error's message. Should honour `context.signal`; when the run is
   * aborted the loop stops waiting at once and ignores whatever the call settles with later.
   */
  execute(
    args: ToolArguments<TParameters>,
    context: AgentToolExecuteContext<TDetails>,
  ): AgentToolResult<TDetails> | Promise<AgentToolResult<TDetails>>;
}

/**
 * Identity function that infers the argument type of `execute` from `parameters` (TypeBox's `Static`, a
 * Standard Schema's output type, `Record<string, unknown>` for a plain JSON Schema):
 *
 * ```ts
 * const read = defineTool({
 *   name: "read",
 *   description: "Read a file",
 *   parameters: Type.Object({ path: Type.String() }),
 *   async execute({ path }) { return { content: [{ type: "text", text: await readFile(path, "utf8") }] }; },
 * });
 * ```
 */
export function defineTool<TParameters extends ToolParameters, TDetails = unknown>(
  tool: AgentTool<TParameters, TDetails>,
): AgentTool<TParameters, TDetails> {
  return tool;
}
