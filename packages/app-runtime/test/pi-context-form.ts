/**
 * The compact form in which `scripts/pi-session-contexts.ts` stores the context the pi agent builds for each
 * file of `fixtures/pi-sessions/` (`<name>.pi-context.json`), and in which the corpus test puts Arbor's
 * context to compare the two. Complete for what a model sees: every message's role, the hash of its whole
 * text (with a short preview to read), its images, its tool calls (id, name, hash of the arguments) and, for
 * a tool result, the call it answers and whether it is an error. Plain code over plain data: the script runs
 * it on pi's messages, the test on Arbor's.
 */
import { createHash } from "node:crypto";

/** One message of a context, compact. */
export interface CompactMessage {
  role: string;
  /**
   * For a user message made from a message of another role (a summary, a shell command the user ran): that
   * role. `text` and `textHash` are then the essence of the source ({@link sourceText}), without the wording
   * each agent wraps it in its own way.
   */
  from?: string;
  /** The first 60 characters of the text (text blocks joined by newlines). */
  text: string;
  /** sha256 of the whole text (16 hex digits). */
  textHash: string;
  /** Number of image blocks, when there are any. */
  images?: number;
  /** sha256 of the thinking blocks' text, when an assistant message has any that is not empty. */
  thinkingHash?: string;
  /** The tool calls of an assistant message, in order. */
  toolCalls?: { id: string; name: string; argumentsHash: string }[];
  /** Why an assistant message ended. */
  stopReason?: string;
  /** For a tool result: the call it answers. */
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
}

/** What a `<name>.pi-context.json` file holds. */
export interface PiContextFile {
  /** The session file, relative to `fixtures/pi-sessions/`. */
  source: string;
  /** The package and version that computed it. */
  pi: string;
  /** The calls that computed it. */
  how: string;
  /** The model the request was prepared for. */
  targetModel: { id: string; provider: string; api: string; input: string[] };
  /** The leaf whose context it is. */
  leafId: string | null;
  /** The context: `buildSessionContext()` converted by `convertToLlm()`. */
  messages: CompactMessage[];
  /** The messages of a request to the target model: `messages` passed through pi-ai's `transformMessages()`. */
  request: CompactMessage[];
}

/** Tells which converted messages come from a message of another role, and which. */
export type SourceOf = (message: unknown) => { role: string; text: string } | undefined;

/**
 * The essence of a message that agents word differently when they convert it to a user message: a summary's
 * text; a shell command's command, output, exit code and whether it was cancelled. Undefined for messages
 * passed on as they are.
 */
export function sourceText(message: Record<string, unknown>): string | undefined {
  if (message.role === "compactionSummary" || message.role === "branchSummary")
    return String(message.summary);
  if (message.role === "bashExecution") {
    return JSON.stringify([
      message.command,
      message.output,
      message.exitCode ?? null,
      message.cancelled === true,
    ]);
  }
  return undefined;
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

type Block = {
  type?: unknown;
  text?: unknown;
  thinking?: unknown;
  id?: unknown;
  name?: unknown;
  arguments?: unknown;
};

/** The compact form of LLM messages (`role` user, assistant or toolResult; anything else kept by role). */
export function compactLlmMessages(
  messages: readonly unknown[],
  sourceOf: SourceOf = () => undefined,
): CompactMessage[] {
  return messages.map((value) => {
    const source = sourceOf(value);
    if (source !== undefined) {
      const message = value as { role?: unknown };
      return {
        role: String(message.role),
        from: source.role,
        text: source.text.slice(0, 60),
        textHash: hash(source.text),
      };
    }
    const message = value as Record<string, unknown>;
    const content = message.content;
    const blocks: Block[] =
      typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
    const text = blocks
      .filter((block) => block.type === "text")
      .map((block) => String(block.text))
      .join("\n");
    const compact: CompactMessage = {
      role: String(message.role),
      text: text.slice(0, 60),
      textHash: hash(text),
    };
    const images = blocks.filter((block) => block.type === "image").length;
    if (images > 0) compact.images = images;
    if (message.role === "assistant") {
      const thinking = blocks
        .filter(
          (block) => block.type === "thinking" && typeof block.thinking === "string" && block.thinking !== "",
        )
        .map((block) => String(block.thinking))
        .join("\n");
      if (thinking !== "") compact.thinkingHash = hash(thinking);
      const calls = blocks.filter((block) => block.type === "toolCall");
      if (calls.length > 0) {
        compact.toolCalls = calls.map((block) => ({
          id: String(block.id),
          name: String(block.name),
          argumentsHash: hash(JSON.stringify(block.arguments ?? {})),
        }));
      }
      compact.stopReason = String(message.stopReason);
    }
    if (message.role === "toolResult") {
      compact.toolCallId = String(message.toolCallId);
      compact.toolName = String(message.toolName);
      compact.isError = message.isError === true;
    }
    return compact;
  });
}
