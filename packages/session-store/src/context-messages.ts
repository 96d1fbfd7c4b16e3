import type { ImageContent, Message, TextContent, UserMessage } from "@arbor/ai-providers";

/**
 * Messages of a built context besides the model's own (`user`, `assistant`, `toolResult`). They follow
 * the pattern of `@arbor/agent-core`'s `CustomAgentMessages`: plain objects with a `role` of their
 * own, declared by declaration merging, which reach the model only through a converter
 * ({@link convertSessionMessagesToLlm}).
 */

/** The summary of the history a compaction replaced; the first message of a compacted context. */
export interface CompactionSummaryMessage {
  role: "compactionSummary";
  summary: string;
  /** The context size in tokens when the compaction ran. */
  tokensBefore: number;
  /** Epoch milliseconds (the compaction entry's timestamp). */
  timestamp: number;
}

/** The summary of a branch the conversation came back from. */
export interface BranchSummaryMessage {
  role: "branchSummary";
  summary: string;
  /** The entry the new branch starts from, or `root`. */
  fromId: string;
  /** Epoch milliseconds (the branch_summary entry's timestamp). */
  timestamp: number;
}

/** An application-defined message (a `custom_message` entry, or a `message` entry with role `custom`). */
export interface CustomMessage<TDetails = unknown> {
  role: "custom";
  customType: string;
  content: string | (TextContent | ImageContent)[];
  /** Whether a UI shows it. */
  display: boolean;
  /** Application data; never sent to the model. */
  details?: TDetails;
  /** Epoch milliseconds. */
  timestamp: number;
}

/** A shell command the user ran directly, with its output (the pi agent's `!command`). */
export interface BashExecutionMessage {
  role: "bashExecution";
  command: string;
  output: string;
  exitCode?: number;
  cancelled: boolean;
  truncated: boolean;
  fullOutputPath?: string;
  /** True when the model must not see it (the pi agent's `!!command`). */
  excludeFromContext?: boolean;
  /** Epoch milliseconds. */
  timestamp: number;
}

/**
 * The message types of a session's context besides {@link Message}, keyed by role. Other packages add
 * their own by declaration merging; messages of roles nobody declared are still passed through:
 *
 * ```ts
 * declare module "@arbor/session-store" {
 *   interface SessionCustomMessages {
 *     note: { role: "note"; text: string; timestamp: number };
 *   }
 * }
 * ```
 */
export interface SessionCustomMessages {
  compactionSummary: CompactionSummaryMessage;
  branchSummary: BranchSummaryMessage;
  custom: CustomMessage;
  bashExecution: BashExecutionMessage;
}

/** A message of a built context: one a model can see, or a custom one (see {@link SessionCustomMessages}). */
export type SessionMessage = Message | SessionCustomMessages[keyof SessionCustomMessages];

/** Text put before a compaction summary when it is sent to a model. */
export const COMPACTION_SUMMARY_PREFIX =
  "Earlier parts of this conversation were compacted to save space. This summary replaces them:\n\n<summary>\n";

/** Text put after a compaction summary. */
export const COMPACTION_SUMMARY_SUFFIX = "\n</summary>";

/** Text put before a branch summary when it is sent to a model. */
export const BRANCH_SUMMARY_PREFIX =
  "Before continuing from here, the conversation explored another branch and came back. Summary of that branch:\n\n<summary>\n";

/** Text put after a branch summary. */
export const BRANCH_SUMMARY_SUFFIX = "\n</summary>";

/** The text a model sees for a {@link BashExecutionMessage}. */
export function bashExecutionText(message: BashExecutionMessage): string {
  const lines = [`The user ran \`${message.command}\``];
  lines.push(message.output === "" ? "(no output)" : `\`\`\`\n${message.output}\n\`\`\``);
  if (message.cancelled) lines.push("(the command was cancelled)");
  else if (message.exitCode !== undefined && message.exitCode !== 0) {
    lines.push(`The command exited with code ${message.exitCode}.`);
  }
  if (message.truncated) {
    lines.push(
      message.fullOutputPath === undefined
        ? "(output truncated)"
        : `(output truncated; the full output is in ${message.fullOutputPath})`,
    );
  }
  return lines.join("\n");
}

function textMessage(text: string, timestamp: number): UserMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp };
}

/**
 * Converts a session context's messages to the messages a model can see.
 *
 * - `user`, `assistant` and `toolResult` messages pass through (by reference);
 * - `compactionSummary` and `branchSummary` become user messages whose text is the summary between
 *   {@link COMPACTION_SUMMARY_PREFIX} / {@link BRANCH_SUMMARY_PREFIX} and their suffixes;
 * - `custom` becomes a user message with its content (a string becomes one text block);
 * - `bashExecution` becomes a user message ({@link bashExecutionText}) unless `excludeFromContext`;
 * - messages of any other role are dropped.
 *
 * Contract: pure; never mutates its input; keeps the order; linear time.
 */
export function convertSessionMessagesToLlm(messages: readonly SessionMessage[]): Message[] {
  const output: Message[] = [];
  for (const message of messages) {
    switch (message.role) {
      case "user":
      case "assistant":
      case "toolResult":
        output.push(message);
        break;
      case "compactionSummary":
        output.push(
          textMessage(
            COMPACTION_SUMMARY_PREFIX + message.summary + COMPACTION_SUMMARY_SUFFIX,
            message.timestamp,
          ),
        );
        break;
      case "branchSummary":
        output.push(
          textMessage(BRANCH_SUMMARY_PREFIX + message.summary + BRANCH_SUMMARY_SUFFIX, message.timestamp),
        );
        break;
      case "custom":
        output.push({
          role: "user",
          content:
            typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content,
          timestamp: message.timestamp,
        });
        break;
      case "bashExecution":
        if (message.excludeFromContext !== true)
          output.push(textMessage(bashExecutionText(message), message.timestamp));
        break;
    }
  }
  return output;
}

/** Epoch milliseconds of an ISO timestamp; 0 when it cannot be read. */
export function epochMilliseconds(timestamp: string): number {
  const value = Date.parse(timestamp);
  return Number.isNaN(value) ? 0 : value;
}
