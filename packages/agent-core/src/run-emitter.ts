import type { AssistantMessage, ToolResultMessage } from "@arbor/ai-providers";
import type { AgentEvent, AgentEventSink } from "./events.js";
import type { AgentMessage } from "./types.js";

/**
 * The loop's side of the event sink: it forwards every event and keeps track of what the events have
 * opened, so that a run interrupted by an internal failure can be closed properly (see
 * `closeFailedRun`). It also owns the rule "a message joins the transcript when its `message_end` is
 * emitted": the transcript and the run's new messages are appended here, nowhere else.
 *
 * Events are delivered one at a time, in the order `emit` was called: when tools run in parallel and
 * two of them report at once, the second event waits until the sink has finished with the first.
 *
 * Internal: not exported from the package.
 */
export class RunEmitter {
  agentStarted = false;
  agentEnded = false;
  turnOpen = false;
  /** A message whose `message_start` was emitted but not its `message_end`. */
  openMessage: AgentMessage | undefined;
  /** The assistant message of the open turn, once its `message_end` was emitted. */
  turnAssistant: AssistantMessage | undefined;
  /** Tool results of the open turn, in the order their `message_end` was emitted. */
  readonly turnResults: ToolResultMessage[] = [];
  /** Tool calls of the open turn whose `tool_execution_start` was emitted. */
  readonly startedCalls = new Set<string>();
  /** Tool calls whose `tool_execution_start` was emitted but not their `tool_execution_end`. */
  readonly executingCalls = new Set<string>();
  /** Tool calls of the open turn that have a result. */
  readonly answeredCalls = new Set<string>();

  constructor(
    private readonly sink: AgentEventSink,
    /** The transcript the loop works on (replaced when `prepareNextTurn` replaces the context). */
    public transcript: AgentMessage[],
    /** Every message the run added. */
    readonly newMessages: AgentMessage[],
  ) {}

  /** Events handed to `emit` whose delivery has not finished. */
  private pending = 0;
  /** Settles when the last event handed to `emit` has been delivered. */
  private queue: Promise<void> = Promise.resolve();

  /**
   * Records the event, then hands it to the sink once every earlier event has been delivered; the
   * promise settles (or rejects, when the sink throws) when the sink is done with this event.
   */
  emit(event: AgentEvent): Promise<void> {
    this.record(event);
    const idle = this.pending === 0;
    this.pending++;
    const delivery = idle ? this.deliver(event) : this.queue.then(() => this.deliver(event));
    const release = () => {
      this.pending--;
    };
    this.queue = delivery.then(release, release);
    return delivery;
  }

  private async deliver(event: AgentEvent): Promise<void> {
    await this.sink(event);
  }

  private record(event: AgentEvent): void {
    switch (event.type) {
      case "agent_start":
        this.agentStarted = true;
        break;
      case "agent_end":
        this.agentEnded = true;
        break;
      case "turn_start":
        this.turnOpen = true;
        this.turnAssistant = undefined;
        this.turnResults.length = 0;
        this.startedCalls.clear();
        this.executingCalls.clear();
        this.answeredCalls.clear();
        break;
      case "turn_end":
        this.turnOpen = false;
        break;
      case "message_start":
        this.openMessage = event.message;
        break;
      case "message_end": {
        const message = event.message;
        this.openMessage = undefined;
        this.transcript.push(message);
        this.newMessages.push(message);
        const role = (message as { role?: unknown }).role;
        if (role === "assistant") this.turnAssistant = message as AssistantMessage;
        else if (role === "toolResult") {
          const result = message as ToolResultMessage;
          this.turnResults.push(result);
          this.answeredCalls.add(result.toolCallId);
        }
        break;
      }
      case "tool_execution_start":
        this.startedCalls.add(event.toolCallId);
        this.executingCalls.add(event.toolCallId);
        break;
      case "tool_execution_end":
        this.executingCalls.delete(event.toolCallId);
        break;
      case "message_update":
      case "tool_execution_update":
        break;
    }
  }
}
