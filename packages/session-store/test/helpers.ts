import { join } from "node:path";
import type { AssistantMessage, ToolCall, ToolResultMessage, UserMessage } from "@arbor/ai-providers";
import type {
  AppendOptions,
  ListSessionsQuery,
  SessionEntry,
  SessionHeader,
  SessionPage,
  SessionStore,
  StoredEntry,
  StoredSession,
} from "../src/index.js";

/** The pi-agent session files of the shared fixtures (they exist in CI too). */
export const PI_FIXTURES = join(import.meta.dirname, "../../../fixtures/pi-sessions");

/** A clock that ticks one second per call from 2026-01-01T00:00:00Z. */
export function tickingClock(): () => Date {
  let seconds = 0;
  return () => new Date(Date.UTC(2026, 0, 1) + seconds++ * 1000);
}

export function user(text: string, timestamp = 1): UserMessage {
  return { role: "user", content: [{ type: "text", text }], timestamp };
}

export function assistant(
  content: string | AssistantMessage["content"],
  options: Partial<Pick<AssistantMessage, "provider" | "model" | "stopReason">> = {},
): AssistantMessage {
  return {
    role: "assistant",
    content: typeof content === "string" ? [{ type: "text", text: content }] : content,
    api: "scripted",
    provider: options.provider ?? "scripted",
    model: options.model ?? "scripted-model",
    usage: {
      input: 10,
      output: 5,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 15,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason:
      options.stopReason ??
      (typeof content !== "string" && content.some((block) => block.type === "toolCall")
        ? "toolUse"
        : "stop"),
    timestamp: 2,
  };
}

export function call(id: string, name = "read", args: Record<string, unknown> = { path: "a.txt" }): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

export function result(toolCallId: string, text = "ok", toolName = "read"): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError: false,
    timestamp: 3,
  };
}

/** A short text view of context messages, for readable assertions. */
export function describeMessages(messages: readonly { role: string }[]): string[] {
  return messages.map((message) => {
    const record = message as Record<string, unknown>;
    switch (message.role) {
      case "user":
      case "custom": {
        const content = record.content as string | { type: string; text?: string }[];
        const text =
          typeof content === "string"
            ? content
            : content.map((block) => block.text ?? `[${block.type}]`).join("");
        return `${message.role}: ${text}`;
      }
      case "assistant": {
        const blocks = record.content as { type: string; text?: string; id?: string }[];
        return `assistant: ${blocks.map((block) => (block.type === "toolCall" ? `call(${block.id})` : (block.text ?? ""))).join(" ")}`;
      }
      case "toolResult":
        return `result(${String(record.toolCallId)}${record.isError === true ? ", error" : ""})`;
      case "compactionSummary":
      case "branchSummary":
        return `${message.role}: ${String(record.summary)}`;
      default:
        return message.role;
    }
  });
}

/**
 * A store that wraps another and counts, per entry id, the calls to `entry()` of the entries its reads
 * return — the proof that a reader parsed only what it needed.
 */
export class CountingStore implements SessionStore {
  readonly entryCalls = new Map<string, number>();

  constructor(readonly inner: SessionStore) {}

  /** Ids whose `entry()` was called at least once. */
  parsedIds(): Set<string> {
    return new Set(this.entryCalls.keys());
  }

  reset(): void {
    this.entryCalls.clear();
  }

  createSession(header: SessionHeader): Promise<void> {
    return this.inner.createSession(header);
  }

  appendEntries(sessionId: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<void> {
    return this.inner.appendEntries(sessionId, entries, options);
  }

  async readSession(sessionId: string): Promise<StoredSession> {
    const read = await this.inner.readSession(sessionId);
    const entries = read.entries.map(
      (stored): StoredEntry => ({
        type: stored.type,
        id: stored.id,
        parentId: stored.parentId,
        entry: () => {
          this.entryCalls.set(stored.id, (this.entryCalls.get(stored.id) ?? 0) + 1);
          return stored.entry();
        },
      }),
    );
    return { ...read, entries };
  }

  listSessions(query?: ListSessionsQuery): Promise<SessionPage> {
    return this.inner.listSessions(query);
  }

  deleteSession(sessionId: string): Promise<void> {
    return this.inner.deleteSession(sessionId);
  }
}
