/**
 * What a slash command is and what it may do: the commands only call the harness session and the CLI
 * runtime, and talk back to the user through the host (notices, pickers, the editor).
 */

import type { AppRuntime } from "@arbor/app-runtime";
import type { HarnessSession } from "@arbor/harness";
import type { SessionViewModel } from "@arbor/session-view";
import type { Picker } from "../components/select-list.js";

/** What commands can reach. */
export interface CommandHost {
  readonly runtime: AppRuntime;
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
