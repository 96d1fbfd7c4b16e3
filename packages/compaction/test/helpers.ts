import type {
  AssistantMessage,
  Model,
  ToolCall,
  ToolResultMessage,
  Usage,
  UserMessage,
} from "@arbor/ai-providers";
import {
  createScriptedProvider,
  type ScriptedCall,
  type ScriptedProvider,
  type ScriptedResponder,
  type ScriptedStep,
  script,
} from "@arbor/ai-providers/testing";
import { MemorySessionStore, Session, type SessionEntry, type SessionMessage } from "@arbor/session-store";
import { estimateTokens } from "../src/index.js";

/**
 * A clock shared by a session (entry timestamps) and the messages a test builds (message timestamps),
 * ticking one second per reading, so that "before the compaction" means what it does in a real session.
 */
export class TestClock {
  private seconds = 0;
  readonly start = Date.UTC(2026, 0, 1);

  /** Epoch milliseconds, one second later than the previous reading. */
  ms(): number {
    return this.start + this.seconds++ * 1000;
  }

  /** The same, as a Date (for `Session.create({ now })`). */
  readonly now = (): Date => new Date(this.ms());
}

/** A usage whose counters add up to `tokens` (all of it as input). */
export function usageOf(tokens: number): Usage {
  return {
    input: tokens,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: tokens,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

/** Builders of messages, each stamped by the clock. */
export function messageBuilders(clock: TestClock) {
  return {
    user(text: string): UserMessage {
      return { role: "user", content: [{ type: "text", text }], timestamp: clock.ms() };
    },
    assistant(
      content: string | AssistantMessage["content"],
      options: { usage?: number; stopReason?: AssistantMessage["stopReason"]; errorMessage?: string } = {},
    ): AssistantMessage {
      const blocks: AssistantMessage["content"] =
        typeof content === "string" ? [{ type: "text", text: content }] : content;
      const message: AssistantMessage = {
        role: "assistant",
        content: blocks,
        api: "scripted",
        provider: "scripted",
        model: "scripted-model",
        usage: usageOf(options.usage ?? 0),
        stopReason:
          options.stopReason ?? (blocks.some((block) => block.type === "toolCall") ? "toolUse" : "stop"),
        timestamp: clock.ms(),
      };
      if (options.errorMessage !== undefined) message.errorMessage = options.errorMessage;
      return message;
    },
    result(
      toolCallId: string,
      text: string,
      options: { toolName?: string; isError?: boolean } = {},
    ): ToolResultMessage {
      return {
        role: "toolResult",
        toolCallId,
        toolName: options.toolName ?? "read",
        content: [{ type: "text", text }],
        isError: options.isError ?? false,
        timestamp: clock.ms(),
      };
    },
  };
}

/** A tool call block. */
export function call(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

/** A new empty session on a memory store, with its clock and message builders. */
export async function newSession() {
  const clock = new TestClock();
  const session = await Session.create(new MemorySessionStore(), { cwd: "/project", now: clock.now });
  return { session, clock, ...messageBuilders(clock) };
}

/** The text of the (single) user message of a summarizer call. */
export function requestText(recorded: ScriptedCall): string {
  const message = recorded.context.messages[0];
  if (message === undefined || message.role !== "user" || typeof message.content === "string") {
    return typeof message?.content === "string" ? message.content : "";
  }
  return message.content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** A summarizer step that answers `## Goal` with a label and the call number. */
export function summaryStep(label: string): ScriptedStep {
  return script.dynamic((recorded) => script.text(`## Goal\n- ${label} (call ${recorded.index + 1})`));
}

/** A scripted provider that streams in large chunks (summaries are long; tests stay fast). */
export function provider(
  steps: ScriptedStep[] | ScriptedResponder = [],
  model: Partial<Model> = {},
): ScriptedProvider {
  return createScriptedProvider(steps, { chunkSize: 4096, model });
}

/** `n` characters of filler text, made of words. */
export function filler(n: number, word = "lorem"): string {
  const unit = `${word} `;
  return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
}

type Builders = ReturnType<typeof messageBuilders>;

/**
 * Appends one coding turn: the user's request, a `read` of `read`, an `edit` of `edit` (when given), and a
 * closing assistant text. `size` is the characters of the file content returned by the read.
 */
export function appendTurn(
  session: Session,
  builders: Builders,
  turn: number,
  options: { read?: string; edit?: string; size?: number; editFails?: boolean } = {},
): void {
  const read = options.read ?? `src/file-${turn}.ts`;
  session.appendMessage(builders.user(`Request ${turn}: please look at ${read}`));
  session.appendMessage(builders.assistant([call(`read-${turn}`, "read", { path: read })]));
  session.appendMessage(builders.result(`read-${turn}`, filler(options.size ?? 2000, `content${turn}`)));
  if (options.edit !== undefined) {
    session.appendMessage(
      builders.assistant([call(`edit-${turn}`, "edit", { path: options.edit, oldText: "a", newText: "b" })]),
    );
    session.appendMessage(
      builders.result(`edit-${turn}`, options.editFails === true ? "oldText not found" : "edited", {
        toolName: "edit",
        isError: options.editFails === true,
      }),
    );
  }
  session.appendMessage(builders.assistant(`Answer ${turn}: done with ${read}`));
}

/** Estimated tokens from the request of turn `turn` (see `appendTurn`) to the end of the branch. */
export function tokensFromTurn(branch: readonly SessionEntry[], turn: number): number {
  const start = branch.findIndex(
    (entry) =>
      entry.type === "message" &&
      entry.message.role === "user" &&
      JSON.stringify(entry.message.content).includes(`Request ${turn}:`),
  );
  let tokens = 0;
  for (const entry of branch.slice(start)) {
    if (entry.type === "message") tokens += estimateTokens(entry.message as SessionMessage);
  }
  return tokens;
}
