import {
  type AssistantMessage,
  type Message,
  type ToolResultMessage,
  Type,
  type UserMessage,
} from "@arbor/ai-providers";
import { expect } from "vitest";
import { type AgentEvent, type AgentMessage, type AgentTool, defineTool } from "../src/index.js";

/** A user message with text content. */
export function user(text: string): UserMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp: 1 };
}

/** The text of a message (text blocks joined), for assertions. */
export function textOf(message: AgentMessage | undefined): string {
  if (message === undefined) return "";
  const content = (message as Message).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block) => (block.type === "text" ? block.text : "")).join("");
}

/** A short label for an event: its type and what it is about, e.g. `message_start(user)`. */
export function label(event: AgentEvent): string {
  switch (event.type) {
    case "message_start":
    case "message_end":
      return `${event.type}(${(event.message as { role: string }).role})`;
    case "message_update":
      return `message_update(${event.assistantMessageEvent.type})`;
    case "tool_execution_start":
    case "tool_execution_update":
    case "tool_execution_end":
      return `${event.type}(${event.toolCallId})`;
    default:
      return event.type;
  }
}

/** Collects events (with the text of each message at the time it was emitted). */
export class EventLog {
  readonly events: AgentEvent[] = [];
  /** Text of the event's message when it arrived (partial messages are mutated later). */
  readonly texts: string[] = [];

  readonly sink = (event: AgentEvent): void => {
    this.events.push(event);
    this.texts.push("message" in event ? textOf(event.message) : "");
  };

  get labels(): string[] {
    return this.events.map(label);
  }

  get types(): string[] {
    return this.events.map((event) => event.type);
  }

  of<T extends AgentEvent["type"]>(type: T): Extract<AgentEvent, { type: T }>[] {
    return this.events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);
  }
}

/** Waits `ms` milliseconds, resolving early (with false) when the signal fires. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** `echo`: returns its text after `delayMs` (abortable: throws when aborted). */
export const echoTool = defineTool({
  name: "echo",
  description: "Echo a text after an optional delay",
  parameters: Type.Object({ text: Type.String(), delayMs: Type.Optional(Type.Integer({ minimum: 0 })) }),
  async execute({ text, delayMs }, { signal }) {
    if (delayMs !== undefined && !(await sleep(delayMs, signal))) throw new Error("echo interrupted");
    return { content: [{ type: "text", text }], details: { length: text.length } };
  },
});

/** A tool that records the order in which calls start and finish. */
export function trackingTool(
  name: string,
  log: string[],
  options: { executionMode?: "sequential" } = {},
): AgentTool {
  return defineTool({
    name,
    description: `${name}: waits delayMs, then answers with its label`,
    parameters: Type.Object({ label: Type.String(), delayMs: Type.Integer({ minimum: 0 }) }),
    executionMode: options.executionMode,
    async execute({ label: callLabel, delayMs }, { signal }) {
      log.push(`start ${callLabel}`);
      await sleep(delayMs, signal);
      log.push(`end ${callLabel}`);
      return { content: [{ type: "text", text: `done ${callLabel}` }] };
    },
  });
}

/** Tool calls of the assistant messages of a transcript. */
export function toolCallIds(messages: readonly AgentMessage[]): string[] {
  const ids: string[] = [];
  for (const message of messages) {
    if ((message as Message).role !== "assistant") continue;
    for (const block of (message as AssistantMessage).content)
      if (block.type === "toolCall") ids.push(block.id);
  }
  return ids;
}

/**
 * The invariants every run must keep, checked on its events and the resulting transcript:
 * - `agent_start` first, `agent_end` last, once each;
 * - turns, messages and tool executions open and close in pairs, never nested wrongly;
 * - every tool call of every assistant message gets exactly one result, inside its turn, after its
 *   `tool_execution_end`;
 * - the transcript equals the messages of the `message_end` events, in order (after `initial`).
 */
export function expectWellFormedRun(
  events: readonly AgentEvent[],
  transcript: readonly AgentMessage[],
  initial: readonly AgentMessage[] = [],
): void {
  expect(events[0]?.type).toBe("agent_start");
  expect(events.at(-1)?.type).toBe("agent_end");
  expect(events.filter((event) => event.type === "agent_start")).toHaveLength(1);
  expect(events.filter((event) => event.type === "agent_end")).toHaveLength(1);
  let turnOpen = false;
  let openMessage: AgentMessage | undefined;
  const executing = new Set<string>();
  let turnCalls = new Map<string, number>();
  const ended: AgentMessage[] = [];
  for (const event of events) {
    switch (event.type) {
      case "turn_start":
        expect(turnOpen, "turn_start inside a turn").toBe(false);
        turnOpen = true;
        turnCalls = new Map();
        break;
      case "turn_end":
        expect(turnOpen, "turn_end outside a turn").toBe(true);
        expect(openMessage, "turn_end with an open message").toBeUndefined();
        expect(executing.size, "turn_end with running tools").toBe(0);
        for (const [id, count] of turnCalls) expect(count, `results of ${id}`).toBe(1);
        expect(event.toolResults.map((result) => result.toolCallId)).toEqual(
          event.message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : [])),
        );
        turnOpen = false;
        break;
      case "message_start":
        expect(turnOpen, "message outside a turn").toBe(true);
        expect(openMessage, "nested message_start").toBeUndefined();
        openMessage = event.message;
        break;
      case "message_update":
        expect(openMessage).toBeDefined();
        break;
      case "message_end": {
        expect(openMessage, "message_end without message_start").toBeDefined();
        openMessage = undefined;
        ended.push(event.message);
        const message = event.message as Message;
        if (message.role === "assistant") {
          for (const block of message.content) if (block.type === "toolCall") turnCalls.set(block.id, 0);
        }
        if (message.role === "toolResult") {
          const id = (message as ToolResultMessage).toolCallId;
          expect(turnCalls.has(id), `result for unknown call ${id}`).toBe(true);
          expect(executing.has(id), `result before tool_execution_end of ${id}`).toBe(false);
          turnCalls.set(id, (turnCalls.get(id) ?? 0) + 1);
        }
        break;
      }
      case "tool_execution_start":
        expect(turnCalls.has(event.toolCallId), "tool_execution_start for an unknown call").toBe(true);
        executing.add(event.toolCallId);
        break;
      case "tool_execution_update":
        expect(executing.has(event.toolCallId)).toBe(true);
        break;
      case "tool_execution_end":
        expect(executing.delete(event.toolCallId), "tool_execution_end without start").toBe(true);
        break;
      case "agent_start":
      case "agent_end":
        expect(turnOpen, `${event.type} inside a turn`).toBe(false);
        break;
    }
  }
  expect(transcript).toEqual([...initial, ...ended]);
  const ids = toolCallIds(transcript);
  const resultIds = transcript.flatMap((message) =>
    (message as Message).role === "toolResult" ? [(message as ToolResultMessage).toolCallId] : [],
  );
  expect([...resultIds].sort()).toEqual([...ids].sort());
}
