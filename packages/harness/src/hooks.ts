import type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentMessage,
  AgentTurnContext,
  AgentTurnUpdate,
  BeforeToolCallContext,
  BeforeToolCallResult,
} from "@arbor/agent-core";
import type { Context, Model, ProviderResponseInfo, StreamOptions } from "@arbor/ai-providers";
import type { CompactionPreparation } from "@arbor/compaction";
import type { SessionEntry } from "@arbor/session-store";
import type { ExpandedInput } from "./session-resources.js";

/**
 * The hooks of docs/reference/harness.md, plus the loop's `prepareNextTurn` and `shouldStopAfterTurn`. Each hook
 * has an event (what the handler sees) and a result (what it may return). Several handlers of one hook run
 * in registration order (the harness's first, then the session's); how their results combine is said per
 * hook. A handler that throws is reported (`hook_error` event, `onError`) and counts as having returned
 * nothing: a hook can never break a run.
 */

/** Why a compaction runs: the context passed the threshold, the provider rejected it as too long, or asked for. */
export type CompactionReason = "threshold" | "overflow" | "manual";

/** What `before_agent_start` sees: a prompt about to start a run. */
export interface BeforeAgentStartEvent {
  /** The text as the user typed it. */
  text: string;
  /** The text after `/skill:name` and `/template` expansion. */
  expanded: ExpandedInput;
  /** The messages the run starts with (queued `nextTurn()` messages, then the prompt). */
  messages: readonly AgentMessage[];
  /** The system prompt the run will use (as earlier handlers left it). */
  systemPrompt: string;
}

/** What `before_agent_start` may return. */
export interface BeforeAgentStartResult {
  /** Messages added after the prompt (e.g. a custom message with retrieved context). Accumulated. */
  messages?: AgentMessage[];
  /** The system prompt for this run only (the next handler sees it). */
  systemPrompt?: string;
}

/** What `context` sees before each model call: the transcript about to be converted for the model. */
export interface ContextEvent {
  messages: readonly AgentMessage[];
}

/** What `context` may return: the messages of this call only (the transcript and session are unchanged). */
export interface ContextResult {
  messages?: AgentMessage[];
}

/** What `before_provider_request` sees: one model request, before the provider is called. */
export interface BeforeProviderRequestEvent {
  model: Model;
  /** The request as the model will receive it (system prompt, converted messages, tools). */
  context: Context;
  /** The request options (headers, max tokens, retries …); `signal` excluded. */
  options: Omit<StreamOptions, "signal">;
}

/** What `before_provider_request` may return: options merged over the request's (headers are merged too). */
export interface BeforeProviderRequestResult {
  options?: Partial<Omit<StreamOptions, "signal" | "onPayload" | "onResponse">>;
}

/** What `before_provider_payload` sees: the provider's request body, just before it is sent. */
export interface BeforeProviderPayloadEvent {
  payload: unknown;
  model: Model;
}

/** What `before_provider_payload` may return: a replaced body (the next handler sees it). */
export interface BeforeProviderPayloadResult {
  payload?: unknown;
}

/** What `after_provider_response` sees: an HTTP response's status and headers (for logging and metrics). */
export interface AfterProviderResponseEvent extends ProviderResponseInfo {
  model: Model;
}

/** What `session_before_compact` sees: a planned compaction. */
export interface SessionBeforeCompactEvent {
  reason: CompactionReason;
  /** The plan (what is summarized, what is kept, `tokensBefore`, …). */
  preparation: CompactionPreparation;
  /** The path from the latest compaction's kept part to the leaf, oldest first. */
  branchEntries: readonly SessionEntry[];
  /** Focus given to `compact(instructions)`. */
  customInstructions: string | undefined;
  /** Fires when the compaction is aborted. */
  signal: AbortSignal;
}

/** A compaction a hook supplies instead of the built-in summarizer. */
export interface CustomCompaction {
  summary: string;
  /** Default: the plan's `firstKeptEntryId`. Must be on the current path. */
  firstKeptEntryId?: string;
  /** Merged into the entry's `details` (which also gets `tokensAfter`, `reason`, `covered`). */
  details?: Record<string, unknown>;
}

/** What `session_before_compact` may return: cancel, or supply the summary. The first such handler wins. */
export interface SessionBeforeCompactResult {
  cancel?: boolean;
  compaction?: CustomCompaction;
}

/** What `session_before_tree` sees: a move of the leaf about to happen. */
export interface SessionBeforeTreeEvent {
  /** `navigateTree`: the leaf moves to `targetId`; `mergeBranch`: a branch is folded into `targetId`'s. */
  operation: "navigateTree" | "mergeBranch";
  /** The entry the session continues from after the move (`null`: before the first entry). */
  targetId: string | null;
  /** The session's leaf before the operation. */
  oldLeafId: string | null;
  /** The last entry of the branch to summarize: `oldLeafId` for a move, the merged branch's leaf for a merge. */
  sourceLeafId: string | null;
  /** The entries of the branch being left (oldest first); empty when moving forward along the path. */
  entriesToSummarize: readonly SessionEntry[];
  /** The deepest entry both paths share. */
  commonAncestorId: string | null;
  /** Whether a summary will be written (the caller's `summarize`). */
  summarize: boolean;
  instructions: string | undefined;
  signal: AbortSignal;
}

/** What `session_before_tree` may return: cancel the move, or supply the branch summary. The first wins. */
export interface SessionBeforeTreeResult {
  cancel?: boolean;
  summary?: { summary: string; details?: Record<string, unknown> };
}

/**
 * Every hook: its event and its result. Semantics of several handlers:
 *
 * - `before_agent_start`: `messages` accumulate; `systemPrompt` chains (each handler sees the last one).
 * - `context`: chains (each handler sees the previous handler's messages).
 * - `before_provider_request`: option patches merge in order.
 * - `before_provider_payload`: chains (each handler sees the previous payload).
 * - `after_provider_response`: every handler is told; results are ignored.
 * - `tool_call`: the first `{ block: true }` wins; later handlers do not run.
 * - `tool_result`: patches merge in order, each handler seeing the result patched so far.
 * - `session_before_compact`, `session_before_tree`: the first handler that cancels or supplies a summary wins.
 * - `prepareNextTurn`: updates merge in order (a later `context` sees the earlier one).
 * - `shouldStopAfterTurn`: the run stops when any handler returns `true`.
 */
export interface HarnessHookMap {
  before_agent_start: { event: BeforeAgentStartEvent; result: BeforeAgentStartResult };
  context: { event: ContextEvent; result: ContextResult };
  before_provider_request: { event: BeforeProviderRequestEvent; result: BeforeProviderRequestResult };
  before_provider_payload: { event: BeforeProviderPayloadEvent; result: BeforeProviderPayloadResult };
  after_provider_response: { event: AfterProviderResponseEvent; result: undefined };
  tool_call: { event: BeforeToolCallContext; result: BeforeToolCallResult };
  tool_result: { event: AfterToolCallContext; result: AfterToolCallResult };
  session_before_compact: { event: SessionBeforeCompactEvent; result: SessionBeforeCompactResult };
  session_before_tree: { event: SessionBeforeTreeEvent; result: SessionBeforeTreeResult };
  prepareNextTurn: { event: AgentTurnContext; result: AgentTurnUpdate };
  shouldStopAfterTurn: { event: AgentTurnContext; result: boolean };
}

/** The name of a hook. */
export type HarnessHookName = keyof HarnessHookMap;

/** What every handler receives besides its event. */
export interface HookContext {
  /** The id of the session the hook runs for. */
  sessionId: string;
  /** Fires when the session's operation is aborted. */
  signal: AbortSignal;
}

/**
 * A handler of hook `K`.
 *
 * Contract: may be async; returns the hook's result or nothing; a throw is reported and ignored. It should
 * stop when `context.signal` fires: once the operation is aborted the harness no longer waits for it (a
 * result it returns later is ignored). It must not call structural operations of its own session (they
 * would fail with `HarnessBusyError`).
 */
export type HarnessHookHandler<K extends HarnessHookName> = (
  event: HarnessHookMap[K]["event"],
  context: HookContext,
) => HookReturn<HarnessHookMap[K]["result"]>;

/** What a handler may return: its hook's result, or nothing (a handler written as a `void` function). */
// biome-ignore lint/suspicious/noConfusingVoidType: a handler that returns nothing is naturally typed `void`.
export type HookReturn<T> = T | undefined | void | Promise<T | undefined | void>;

/** Handlers given at creation: one per hook or a list (run in list order). */
export type HarnessHooks = {
  [K in HarnessHookName]?: HarnessHookHandler<K> | readonly HarnessHookHandler<K>[];
};
