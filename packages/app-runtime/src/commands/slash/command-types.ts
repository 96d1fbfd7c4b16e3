/**
 * What a slash command is and what it may do: the commands only call the harness session and the app
 * runtime, and talk back to the user through the host (notices, pickers, the editor). Nothing here renders:
 * a front end (the terminal UI, a web page) shows the view model's notices and the pickers it is asked to open.
 */

import { ArborError, type Model, type ProviderRegistry } from "@arbor/ai-providers";
import type { HarnessSession } from "@arbor/harness";
import type { SessionStore, SessionSummary } from "@arbor/session-store";
import type { SessionViewModel } from "@arbor/session-view";
import type { SessionOperations } from "../../operations/session-operations.js";

/** One row of a picker. */
export interface PickerItem {
  /** Unique within the picker; what `onSelect` receives. */
  readonly key: string;
  /**
   * The row's text, or a function computing it (called only for rows on screen, or when filtering), given
   * the columns the row has when the front end knows them.
   */
  readonly label: string | ((width?: number) => string);
  /** A short note after the label. */
  readonly detail?: string;
  /** Marks the current choice (e.g. the model in use). */
  readonly current?: boolean;
}

/** What a picker shows and does (a front end draws it and routes keys to it). */
export interface Picker {
  readonly title: string;
  readonly items: readonly PickerItem[];
  /** The row selected at first. */
  readonly initialIndex?: number;
  /** Typing narrows the list to rows whose label contains what was typed. */
  readonly filterable?: boolean;
  /** A line of help under the list. */
  readonly hint?: string;
  /** Shown instead of the list when it is empty. */
  readonly emptyText?: string;
  /**
   * Actions on single keys (e.g. `h`: show hidden rows), for a picker that does not filter; an action may
   * open another picker in place of this one.
   *
   * Contract: an action should not throw; the picker stays open unless the action replaces it.
   */
  readonly keys?: Readonly<Record<string, () => void>>;
  /**
   * Called with the chosen row's key, after the picker is closed (it may open another one).
   *
   * Contract: should not throw; failures are the picker owner's to report.
   */
  onSelect(key: string): void;
  /**
   * Called when the user leaves the picker without choosing (Esc, Ctrl-C), after it is closed.
   *
   * Contract: should not throw; a picker whose question needs an answer (a permission) answers "no" here.
   */
  onCancel?(): void;
}

/**
 * The part of an app runtime (`AppRuntime` of `@arbor/app-runtime`) the commands use; an `AppRuntime`
 * is one as it is. The session operations (`label`, `compact`, `fork`, `navigate`) are the runtime's, the
 * same that `--mode rpc` and the demo server dispatch to.
 */
export interface CommandRuntime extends Pick<SessionOperations, "label" | "compact" | "fork" | "navigate"> {
  /** The current session. */
  readonly session: HarnessSession;
  readonly registry: ProviderRegistry;
  readonly store: SessionStore;
  /** The store's location for humans (undefined for an in-memory store). */
  readonly storeDescription: string | undefined;
  /** False with `--no-session` (nothing is saved). */
  readonly persistent: boolean;
  /**
   * Starts a new session and makes it current.
   *
   * Contract: as `AppRuntime.newSession`.
   */
  newSession(): Promise<HarnessSession>;
  /**
   * Opens a session by id, unique prefix or file and makes it current.
   *
   * Contract: as `AppRuntime.openSession`; rejects with a message for the user when nothing matches.
   */
  openSession(reference: string): Promise<HarnessSession>;
  /**
   * Makes a session current.
   *
   * Contract: as `AppRuntime.switchTo`.
   */
  switchTo(session: HarnessSession): Promise<void>;
  /**
   * The sessions of the working directory, newest first.
   *
   * Contract: as `AppRuntime.listSessions`.
   */
  listSessions(options?: { limit?: number }): Promise<SessionSummary[]>;
  /**
   * Writes the current session in a format and resolves to the file written.
   *
   * Contract: as `AppRuntime.exportSession`.
   */
  exportSession(format: "html" | "md" | "jsonl", file?: string): Promise<string>;
  /**
   * Resolves `"provider/model"` (or a bare id of the current provider), loading the provider on demand.
   *
   * Contract: as `AppRuntime.loadModel`; rejects with a message for the user when it cannot.
   */
  loadModel(reference: string): Promise<Model>;
  /** The commands extensions registered (`AppRuntime.extensions`). */
  readonly extensions: CommandExtensions;
}

/** One command an extension registered, as `/help` lists it. */
export interface CommandExtensionInfo {
  readonly name: string;
  readonly description: string;
  readonly arguments?: string;
}

/** The part of the app runtime's extension host the commands use. */
export interface CommandExtensions {
  /** The extension commands, in registration order. */
  commandList(): readonly CommandExtensionInfo[];
  /** Whether an extension registered `name`. */
  hasCommand(name: string): boolean;
  /**
   * Runs an extension command with the text after its name.
   *
   * Contract: never rejects for the command's own failure (the runtime reports it as a notice); resolves
   * to false when no extension has `name`.
   */
  runCommand(name: string, argumentText: string): Promise<boolean>;
}

/** What commands can reach. */
export interface CommandHost {
  readonly runtime: CommandRuntime;
  /** The transcript and footer state (notices go here). */
  readonly store: SessionViewModel;
  /**
   * The current session (`runtime.session`).
   *
   * Contract: read it again after a switch; never throws.
   */
  session(): HarnessSession;
  /**
   * Opens a picker in place of the editor.
   *
   * Contract: replaces a picker that is open; the picker's `onSelect` runs after it closes.
   */
  openPicker(picker: Picker): void;
  /**
   * Starts a prompt on the current session.
   *
   * Contract: returns at once; a failure to start (busy, closed) becomes an error notice.
   */
  prompt(text: string): void;
  /**
   * Shows `runtime.session` from now on (after a switch), printing `separator` first.
   *
   * Contract: call it after the runtime switched; the previous session's events are no longer shown.
   */
  showSession(separator: string): void;
  /**
   * Puts text into the editor.
   *
   * Contract: replaces what the editor holds; the cursor goes to the end.
   */
  setEditorText(text: string): void;
  /**
   * Leaves the interactive mode.
   *
   * Contract: a run in flight is aborted and the session idle before the UI exits; returns at once.
   */
  quit(): void;
}

/** One slash command. */
export interface SlashCommandSpec {
  /** The name after the `/`. */
  readonly name: string;
  /** How its arguments are written, for /help (e.g. `[instructions]`). */
  readonly arguments?: string;
  readonly description: string;
  /** Refused while the agent runs (it starts a structural operation or changes the session). */
  readonly needsIdle: boolean;
  /**
   * Runs the command with the text after its name (trimmed).
   *
   * Contract: may throw or reject; the dispatcher turns failures into error notices.
   */
  run(argumentText: string, host: CommandHost): void | Promise<void>;
}

/** A slash command was given arguments it cannot use; the message says what it takes. */
export class CommandUsageError extends ArborError {
  constructor(message: string) {
    super("command_usage", message);
    this.name = "CommandUsageError";
  }
}
