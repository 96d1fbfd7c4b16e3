import type { AgentMessage } from "@arbor/agent-core";
import type { AssistantMessage, ImageContent, Model, ThinkingLevel } from "@arbor/ai-providers";
import type { HarnessOperation, HarnessPhase } from "./phase.js";

/** Options of `prompt()`. */
export interface PromptOptions {
  /** Images sent with the text. */
  images?: readonly ImageContent[];
  /**
   * Text sent after the expanded input (after a blank line) as it is: the resource loader does not
   * expand it (e.g. input piped to `arbor -p "review this"`, whose `@words` are data, not mentions).
   */
  followingText?: string;
}

/** A snapshot of a harness session, for UIs. */
export interface HarnessSessionState {
  readonly sessionId: string;
  readonly phase: HarnessPhase;
  /** The structural operation in flight, if any. */
  readonly operation: HarnessOperation | undefined;
  readonly model: Model;
  readonly thinkingLevel: ThinkingLevel;
  readonly activeToolNames: readonly string[];
  readonly systemPrompt: string;
  /** The agent's transcript: the session's context plus what the current run added. */
  readonly messages: readonly AgentMessage[];
  readonly isStreaming: boolean;
  readonly streamingMessage: AssistantMessage | undefined;
  /** The error of the last failed or aborted turn (cleared when a run starts). */
  readonly errorMessage: string | undefined;
  readonly leafId: string | null;
  readonly name: string | undefined;
  readonly queued: {
    readonly steering: readonly AgentMessage[];
    readonly followUp: readonly AgentMessage[];
    readonly nextTurn: readonly AgentMessage[];
  };
}
