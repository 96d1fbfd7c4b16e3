import type { Message } from "@arbor/ai-providers";
import type { AgentTool } from "./agent-tool.js";

/**
 * Message types other packages add to the agent's transcript, by declaration merging. Each key names
 * one type; the value is the message shape, which must have a string `role` not used by
 * {@link Message} (`user`, `assistant`, `toolResult`):
 *
 * ```ts
 * declare module "@arbor/agent-core" {
 *   interface CustomAgentMessages {
 *     compactionSummary: { role: "compactionSummary"; summary: string; tokensBefore: number; timestamp: number };
 *   }
 * }
 * ```
 *
 * Custom messages live in the transcript (events, state, sessions) but reach the model only through
 * `convertToLlm`, which decides how (the default drops them).
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in other packages.
export interface CustomAgentMessages {}

/** A message of the agent's transcript: one a model can see, or a custom one (see {@link CustomAgentMessages}). */
export type AgentMessage = Message | CustomAgentMessages[keyof CustomAgentMessages];

/** What one run of the loop works on. The loop copies `messages` once at the start of a run. */
export interface AgentContext {
  /** Sent with every model request. */
  systemPrompt?: string;
  /** The transcript so far. */
  messages: AgentMessage[];
  /** Tools the model may call. */
  tools?: AgentTool[];
}

/**
 * How many queued messages one drain of a steering or follow-up queue takes: `one-at-a-time` takes the
 * oldest and leaves the rest for later drains, `all` takes every queued message at once.
 */
export type QueueMode = "one-at-a-time" | "all";
