/**
 * `ExtensionApi`: what an extension module receives. An extension is a TypeScript or JavaScript file whose
 * default export is `(arbor: ExtensionApi) => void | Promise<void>`; it registers hook and event handlers,
 * tools, slash commands and providers while it loads, and acts on the current session later (custom
 * entries, labels, the model, user messages, notices). See docs/extensions.md.
 */
import type { AgentMessage, AgentTool, ToolParameters } from "@arbor/agent-core";
import type { Model, Provider } from "@arbor/ai-providers";
import type {
  HarnessEvent,
  HarnessEventType,
  HarnessHookHandler,
  HarnessHookName,
  HarnessSession,
} from "@arbor/harness";
import type { CustomEntry, CustomMessageInput } from "@arbor/session-store";

/** How a notice is shown. */
export type ExtensionNoticeLevel = "info" | "warning" | "error";

/** A notice from an extension, for the front end to render (`ui.notify`). */
export interface ExtensionNotice {
  level: ExtensionNoticeLevel;
  message: string;
  /** The extension file that sent it. */
  source: string;
}

/** The events of the extension host itself: a session became current, or the runtime is shutting down. */
export interface ExtensionLifecycleEvents {
  /** `start`: the runtime's first session; `switch`: `/new`, `/resume`, a fork … made another one current. */
  session_start: { type: "session_start"; sessionId: string; reason: "start" | "switch" };
  /** The runtime is being disposed (the session is still open). */
  session_shutdown: { type: "session_shutdown"; sessionId: string };
}

/** Every name `on()` accepts for an event: a harness event type or a lifecycle event. */
export type ExtensionEventName = HarnessEventType | keyof ExtensionLifecycleEvents;

/** The event an event handler receives. */
export type ExtensionEventOf<T extends ExtensionEventName> = T extends keyof ExtensionLifecycleEvents
  ? ExtensionLifecycleEvents[T]
  : Extract<HarnessEvent, { type: T }>;

/** What command and event handlers can reach besides the event. */
export interface ExtensionContext {
  /** The runtime's current session. */
  readonly session: HarnessSession;
  readonly cwd: string;
  /** As {@link ExtensionApi.ui}'s `notify`. */
  notify(message: string, level?: ExtensionNoticeLevel): void;
}

/**
 * A handler of an event.
 *
 * Contract: may be async (the run waits for it); a throw is reported with the file and event and ignored.
 */
export type ExtensionEventHandler<T extends ExtensionEventName> = (
  event: ExtensionEventOf<T>,
  context: ExtensionContext,
) => void | Promise<void>;

/** A slash command an extension registers. */
export interface ExtensionCommand {
  description: string;
  /** How its arguments are written, for help (e.g. `<file>`). */
  arguments?: string;
  /**
   * Runs the command with the text after its name (trimmed).
   *
   * Contract: may be async; a throw is reported with the file and command and never ends the session.
   */
  run(argumentText: string, context: ExtensionContext): void | Promise<void>;
}

/** A registered command as front ends list it (the CLI's `/help`, a button in the demo). */
export interface ExtensionCommandInfo {
  name: string;
  description: string;
  arguments?: string;
  /** The extension file that registered it. */
  source: string;
}

/** Turns the `custom` entries of one type on the current branch into messages for one model call. */
export type CustomProjector = (entries: readonly CustomEntry[]) => AgentMessage[] | undefined;

/** How {@link ExtensionApi.sendUserMessage} delivers a message. */
export type DeliverAs = "steer" | "followUp" | "nextTurn";

/** What an extension's default export receives. */
export interface ExtensionApi {
  /** The extension's own file. */
  readonly file: string;
  /** The runtime's working directory. */
  readonly cwd: string;
  /** The Arbor home (`$ARBOR_HOME`, else `~/.arbor`). */
  readonly home: string;
  /**
   * Adds a handler of a harness hook (`tool_call`, `session_before_compact`, `context`, …; see
   * `HarnessHookMap` of `@arbor/harness`) or of an event (every `HarnessEvent` type, plus `session_start` and
   * `session_shutdown`).
   *
   * Contract: call it while loading; a hook handler's throw is reported (file and hook) and counts as no
   * result; an unknown name throws, which fails the extension's load.
   */
  on<K extends HarnessHookName>(hook: K, handler: HarnessHookHandler<K>): void;
  on<T extends ExtensionEventName>(event: T, handler: ExtensionEventHandler<T>): void;
  /**
   * Adds a tool to every session (the `AgentTool` contract: `parameters` a TypeBox schema, a plain JSON
   * Schema or a Standard Schema such as zod's; `execute`).
   *
   * Contract: call it while loading; a name another tool has, or `parameters` that is no usable schema
   * (`InvalidToolSchemaError`, see agent-core's `checkToolSchema`), fails the load. `--no-tools` leaves it out.
   */
  registerTool<TParameters extends ToolParameters>(tool: AgentTool<TParameters>): void;
  /**
   * Adds a slash command (`/name`) to the CLI and to the commands a front end lists.
   *
   * Contract: call it while loading; names are letters, digits, `-`, `_` and `:`; a name taken by another
   * extension fails the load.
   */
  registerCommand(name: string, command: ExtensionCommand): void;
  /**
   * Offers a provider under a name: `--provider <name>`, `--model <name>/<id>` and `/model <name>/<id>` reach it.
   *
   * Contract: call it while loading; the provider's models are re-labelled with the name.
   */
  registerProvider(name: string, provider: Provider): void;
  /**
   * Gives the `custom` entries of a type a place in the model's context: before each model call, the
   * projector receives the entries of that type on the current branch, and the messages it returns are
   * added at the end of that call's context (the session is unchanged).
   *
   * Contract: call it while loading; a throw is reported and adds nothing.
   */
  projectCustom(customType: string, projector: CustomProjector): void;
  /** Records application state in the current session (a `custom` entry; the model sees it only through a projector). */
  appendCustom(customType: string, data?: unknown): Promise<void>;
  /**
   * Adds a message the model sees as a user message (a `custom_message` entry).
   *
   * Contract: rejects with the harness's `HarnessBusyError` while a run is in flight (use `sendUserMessage`).
   */
  appendCustomMessage(input: CustomMessageInput): Promise<void>;
  /** Labels an entry of the current session (`undefined` clears the label). */
  setLabel(entryId: string, label: string | undefined): Promise<void>;
  /** Switches the current session's model (`"provider/id"` loads the provider when needed). */
  setModel(model: Model | string): Promise<void>;
  /**
   * Sends a user message to the current session: `steer` (before the next model call), `followUp` (when
   * the agent would stop), `nextTurn` (with the next prompt). Without `deliverAs`: a new prompt when the
   * session is idle (resolves when the run ends), else `steer`.
   */
  sendUserMessage(text: string, options?: { deliverAs?: DeliverAs }): Promise<void>;
  /** What the front end shows. */
  readonly ui: {
    /** Shows a notice (the CLI: a line in the transcript, or on stderr in print mode). */
    notify(message: string, level?: ExtensionNoticeLevel): void;
  };
}

/** An extension module's default export. */
export type ExtensionFactory = (arbor: ExtensionApi) => void | Promise<void>;
