import type { AgentMessage } from "@arbor/agent-core";
import { HarnessHookError, HarnessListenerError } from "./errors.js";
import type { HarnessEvent, HarnessListener } from "./events.js";
import type { HarnessHookName } from "./hooks.js";

/**
 * The listeners of one harness session and its failure reporting: events reach every listener in order, each
 * awaited; a throwing listener is reported to `onError` and the next one runs. Internal.
 */
export class SessionEvents {
  private listeners: readonly HarnessListener[] = [];
  private queueSignature = "0,0,0";

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Adds a listener; returns the function that removes it. */
  subscribe(listener: HarnessListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((candidate) => candidate !== listener);
    };
  }

  /** Delivers an event to every listener, in subscription order. Never throws. */
  async emit(event: HarnessEvent): Promise<void> {
    for (const listener of this.listeners) {
      try {
        await listener(event);
      } catch (error) {
        this.report(new HarnessListenerError(event.type, error));
      }
    }
  }

  /** Emits `queue_update` when the queues' lengths changed since the last one. */
  async queueChanged(
    steering: readonly AgentMessage[],
    followUp: readonly AgentMessage[],
    nextTurn: readonly AgentMessage[],
  ): Promise<void> {
    const signature = `${steering.length},${followUp.length},${nextTurn.length}`;
    if (signature === this.queueSignature) return;
    this.queueSignature = signature;
    await this.emit({
      type: "queue_update",
      steering: [...steering],
      followUp: [...followUp],
      nextTurn: [...nextTurn],
    });
  }

  /** Reports a failing hook handler: `onError` and a `hook_error` event. */
  hookFailed(hook: HarnessHookName, cause: unknown): void {
    const error = new HarnessHookError(hook, cause);
    this.report(error);
    void this.emit({ type: "hook_error", hook, error });
  }

  /** Hands a failure that stops nothing to `onError` (a throwing reporter is ignored). */
  report(error: unknown): void {
    try {
      this.onError(error);
    } catch {
      // The reporter failed too; nothing else to do.
    }
  }
}
