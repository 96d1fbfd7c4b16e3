/**
 * The three slices of a session view's state (the transcript, the live part, the footer) and the pure
 * functions that derive parts of them from harness data.
 */
import type { ContextUsage, HarnessPhase } from "@arbor/harness";
import { clipText } from "./format.js";
import { contentText } from "./message-text.js";
import { toolArgumentsText } from "./tool-call-line.js";
import { isFileChangeTool } from "./tool-diff.js";
import type { TranscriptItem, ViewMessage } from "./transcript-items.js";
import type { UsageTotals } from "./usage-totals.js";

/**
 * The transcript: the items of the current generation. A new generation (its number goes up) starts with
 * an empty list once every item of the previous one was acknowledged as printed, so appending stays O(1).
 */
export interface TranscriptView {
  readonly generation: number;
  readonly items: readonly TranscriptItem[];
}

/** A block of the reply being streamed. */
export type LiveBlock =
  | { kind: "text"; text: string }
  | { kind: "thinking"; text: string }
  | { kind: "toolCall"; name: string; args: unknown };

/** A tool call being executed. */
export interface RunningTool {
  readonly id: string;
  readonly name: string;
  readonly argumentLine: string;
  /** The last line of its latest partial output. */
  readonly progress: string | undefined;
}

/** What is happening now. */
export interface LiveView {
  readonly busy: boolean;
  readonly phase: HarnessPhase;
  /** The spinner's label; undefined when no spinner shows (idle, or text is streaming). */
  readonly activity: string | undefined;
  /** The reply being streamed (undefined between replies). */
  readonly streaming: readonly LiveBlock[] | undefined;
  /** Changes with every new reply (the Markdown cache is per reply). */
  readonly streamingKey: number;
  readonly tools: readonly RunningTool[];
  readonly steering: readonly string[];
  readonly followUp: readonly string[];
  /** A one-line hint under the live part (e.g. "Press Ctrl-C again to quit"). */
  readonly hint: string | undefined;
  /** What a retry waits for ("Retrying in 4s (attempt 2 of 3)…"), while one is scheduled. */
  readonly retryLabel: string | undefined;
}

/** What the footer shows. */
export interface FooterView {
  /** `provider/id`. */
  readonly model: string;
  readonly reasoning: boolean;
  readonly thinkingLevel: string;
  readonly totals: UsageTotals;
  readonly context: ContextUsage | undefined;
  readonly sessionId: string;
  readonly sessionName: string | undefined;
  readonly persistent: boolean;
  readonly lastCompaction: { readonly tokensBefore: number; readonly tokensAfter: number } | undefined;
}

/**
 * The spinner's label for a live state: what the session waits for, or undefined (idle, or text streaming).
 *
 * Contract: pure.
 */
export function activityOf(live: LiveView): string | undefined {
  if (!live.busy) return undefined;
  if (live.phase === "compaction") return "Compacting the context…";
  if (live.phase === "branch_summary") return "Summarizing the branch…";
  if (live.phase === "retry") return live.retryLabel ?? "Retrying…";
  if (live.tools.length > 0)
    return `Running ${[...new Set(live.tools.map((tool) => tool.name))].join(", ")}…`;
  if (live.streaming === undefined || live.streaming.length === 0) return "Waiting for the model…";
  return undefined;
}

/** A tool call's arguments as the transcript shows them (a file-changing call: its file). */
export function toolItemLine(args: unknown, name = ""): string {
  if (args === undefined) return "";
  if (isFileChangeTool(name)) {
    const path = toolArgumentsText(args, { style: "main" });
    if (path !== "") return path;
  }
  return toolArgumentsText(args);
}

/** The text of a queued (user) message. */
export function queuedText(message: ViewMessage): string {
  return contentText((message as { content?: unknown }).content);
}

/**
 * The last non-blank line of a text, cut to 120 characters.
 *
 * Contract: O(trailing blanks + last line), not O(text): tools report their whole output so far at every update.
 */
export function lastLine(text: string): string | undefined {
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1]!)) end--;
  if (end === 0) return undefined;
  const start = text.lastIndexOf("\n", end - 1) + 1;
  return clipText(text.slice(start, end), 120);
}
