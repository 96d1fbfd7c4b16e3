import type { AgentMessage, QueueMode } from "./types.js";

/**
 * A queue of messages waiting to enter a run: the agent keeps one for steering (injected before the
 * next model call) and one for follow-ups (injected when the agent would stop). {@link drain} takes
 * the oldest message in `one-at-a-time` mode and every message in `all` mode (docs/reference/agent-core.md).
 */
export class MessageQueue {
  /** How many messages one {@link drain} takes; may be changed at any time. */
  mode: QueueMode;
  private items: AgentMessage[] = [];

  constructor(mode: QueueMode = "one-at-a-time") {
    this.mode = mode;
  }

  /** Number of queued messages. */
  get length(): number {
    return this.items.length;
  }

  /** Adds messages at the end, in order. */
  enqueue(...messages: AgentMessage[]): void {
    this.items.push(...messages);
  }

  /** Removes and returns the messages of one drain (see the class comment); `[]` when empty. */
  drain(): AgentMessage[] {
    if (this.items.length === 0) return [];
    if (this.mode === "all") {
      const all = this.items;
      this.items = [];
      return all;
    }
    return this.items.splice(0, 1);
  }

  /** The queued messages, oldest first, without removing them. */
  peek(): readonly AgentMessage[] {
    return this.items;
  }

  /** Removes and returns every queued message (nothing is lost: the caller gets them back). */
  clear(): AgentMessage[] {
    const all = this.items;
    this.items = [];
    return all;
  }
}
