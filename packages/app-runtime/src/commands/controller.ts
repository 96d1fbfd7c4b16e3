/**
 * What the user's actions do, outside any UI framework: sending a text (a prompt when idle, a steering message while
 * the agent runs, a follow-up with Alt+Enter), slash commands, interrupting, quitting, switching sessions.
 * A front end calls it; it calls the harness session and the app runtime, and reports through the view model.
 */

import type { BashExecutionInput, HarnessSession } from "@arbor/harness";
import { errorText, itemsOfMessage, type SessionViewModel } from "@arbor/session-view";
import { parseCommandLine } from "./command-line.js";
import type { CommandHost, CommandRuntime, Picker } from "./slash/command-types.js";
import { completeCommand, runSlashCommand } from "./slash/slash-commands.js";

/** How a text was sent: Enter (a prompt, or steering while the agent runs) or Alt+Enter (a follow-up). */
export type SubmitKind = "enter" | "followUp";

/** What the controller asks of the UI. */
export interface ControllerUi {
  /**
   * Opens a picker.
   *
   * Contract: replaces a picker that is open.
   */
  openPicker(picker: Picker): void;
  /**
   * Puts text into the editor.
   *
   * Contract: the cursor goes to the end of the text.
   */
  setEditorText(text: string): void;
  /**
   * The editor's text, so that a completion that had to wait (for the project's file list) is applied only
   * to the text it was asked for.
   *
   * Contract: synchronous, reads only. Without it, such a completion is applied whatever the editor holds.
   */
  editorText?(): string;
  /**
   * Ends the interactive mode.
   *
   * Contract: called once, when the session is idle; unmounts the app.
   */
  exit(): void;
}

/** `@path` mentions (`createFileMentions` of `@arbor/app-runtime` is one). */
export interface MentionSupport {
  /**
   * Completes the `@path` a text ends with.
   *
   * Contract: synchronous; undefined when there is nothing to complete.
   */
  complete(text: string): { text: string; matches: string[] } | undefined;
  /**
   * Starts reading what {@link complete} completes from (the project's file list) when it is not read yet.
   *
   * Contract: a promise that resolves once `complete` can answer, undefined when it already can; never
   * rejects.
   */
  whenListed?(): Promise<void> | undefined;
}

/** What the controller can do besides prompts and commands, when the front end provides it. */
export interface ControllerOptions {
  /**
   * Runs a shell command (`!command`, `!!command`) in the working directory (`runUserShellCommand` of
   * `@arbor/app-runtime`).
   *
   * Contract: never rejects; a command stopped through `signal` resolves with `cancelled: true`.
   */
  shell?: (command: string, signal: AbortSignal) => Promise<BashExecutionInput>;
  /** `@path` mentions: completion on Tab (the session's prompt attaches the files, in every mode). */
  mentions?: MentionSupport;
}

/** `!command` (added to the context) or `!!command` (recorded, not sent to the model). */
const SHELL_INPUT = /^!(!?)\s*(\S[\s\S]*)$/;

/** The actions of the interactive mode. */
export class InteractiveController implements CommandHost {
  private quitting = false;
  private readonly pending = new Set<Promise<unknown>>();
  /** Stops the `!command` running, if one is. */
  private shellAbort: AbortController | undefined;

  constructor(
    readonly runtime: CommandRuntime,
    readonly store: SessionViewModel,
    private readonly ui: ControllerUi,
    private readonly options: ControllerOptions = {},
  ) {}

  /** The current session. */
  session(): HarnessSession {
    return this.runtime.session;
  }

  openPicker(picker: Picker): void {
    this.ui.openPicker(picker);
  }

  setEditorText(text: string): void {
    this.ui.setEditorText(text);
  }

  /** Shows `runtime.session` (after `/new`, `/resume`, `/fork`). */
  showSession(separator: string): void {
    this.store.attach(this.runtime.session, { separator });
  }

  /**
   * Starts a prompt (the runtime's session attaches the files it mentions: `withFileMentions`); its failure
   * to start (or an unexpected rejection) becomes an error notice.
   */
  prompt(text: string): void {
    const run = this.session().prompt(text);
    this.store.refresh();
    this.track(run.catch((error: unknown) => this.store.notice("error", errorText(error))));
  }

  /** Runs `!command` / `!!command`: its output is shown and recorded (`!!`: not sent to the model). */
  private async runShell(command: string, excludeFromContext: boolean, text: string): Promise<void> {
    const shell = this.options.shell;
    const session = this.session();
    if (shell === undefined) {
      this.store.notice("error", "shell commands (!command) are not available here");
      return;
    }
    if (session.isBusy || this.shellAbort !== undefined) {
      this.store.notice("warning", "!command waits for the agent: press Esc to stop the run, or wait for it");
      this.setEditorText(text);
      return;
    }
    const abort = new AbortController();
    this.shellAbort = abort;
    this.store.setHint(`running ${command} … (Esc stops it)`);
    let result: BashExecutionInput;
    try {
      result = await shell(command, abort.signal);
    } finally {
      this.shellAbort = undefined;
      this.store.setHint(undefined);
    }
    const message = await session.appendBashExecution({ ...result, excludeFromContext });
    for (const item of itemsOfMessage(message, new Map())) this.store.append(item);
    if (result.cancelled === true) this.store.notice("warning", "the command was stopped");
    if (excludeFromContext) this.store.notice("info", "not added to the context (!!)");
    this.store.refresh();
  }

  /**
   * Sends what the user typed: a slash command runs; otherwise the text is a prompt when the agent is idle,
   * and while it runs a steering message (Enter) or a follow-up (Alt+Enter).
   *
   * Contract: never throws; returns false when nothing was sent (an empty text), so the editor keeps it.
   */
  submit(text: string, kind: SubmitKind): boolean {
    if (text.trim() === "") return false;
    if (parseCommandLine(text) !== undefined) {
      this.track(runSlashCommand(text, this));
      return true;
    }
    const shell = SHELL_INPUT.exec(text.trim());
    if (shell !== null) {
      this.track(this.runShell(shell[2]!.trim(), shell[1] === "!", text));
      return true;
    }
    const session = this.session();
    try {
      if (!session.isBusy) {
        this.prompt(text);
      } else if (kind === "followUp") {
        session.followUp(text);
        this.store.queued(text, "follow-up");
      } else {
        session.steer(text);
        this.store.queued(text, "steer");
      }
    } catch (error) {
      this.store.notice("error", errorText(error));
    }
    return true;
  }

  /** Completes a slash command or an `@path` mention on Tab (a list of matches goes to the hint line). */
  complete(text: string): string | undefined {
    const command = completeCommand(text, this);
    if (command !== undefined) {
      this.store.setHint(
        command.matches.length > 1 ? command.matches.map((name) => `/${name}`).join("  ") : undefined,
      );
      return command.text;
    }
    const mentions = this.options.mentions;
    const mention = mentions?.complete(text);
    if (mention !== undefined) return this.showMention(mention);
    const typed = /(^|\s)@(\S*)$/.exec(text);
    if (mentions === undefined || typed === null) return undefined;
    const listing = mentions.whenListed?.();
    if (listing === undefined) {
      this.store.setHint(`no file matches @${typed[2]}`);
      return undefined;
    }
    // The first Tab: the project's files are being listed; complete when they are (unless the text changed).
    this.store.setHint("listing the project's files …");
    this.track(
      listing.then(() => {
        if (this.ui.editorText !== undefined && this.ui.editorText() !== text) return;
        const later = mentions.complete(text);
        if (later === undefined) {
          this.store.setHint(`no file matches @${typed[2]}`);
          return;
        }
        const completed = this.showMention(later);
        if (completed !== text) this.ui.setEditorText(completed);
      }),
    );
    return undefined;
  }

  /** Shows a mention's matches (when several) on the hint line; returns the completed text. */
  private showMention(mention: { text: string; matches: string[] }): string {
    this.store.setHint(
      mention.matches.length > 1 ? mention.matches.map((path) => `@${path}`).join("  ") : undefined,
    );
    return mention.text;
  }

  /** Whether the agent is running (or compacting, summarizing, waiting to retry). */
  get busy(): boolean {
    return this.session().isBusy;
  }

  /**
   * Stops what is in flight (the run, a compaction, a branch summary, a retry wait).
   *
   * Contract: returns false (and does nothing) when idle.
   */
  interrupt(): boolean {
    if (this.shellAbort !== undefined) {
      this.shellAbort.abort();
      return true;
    }
    const session = this.session();
    if (!session.isBusy) return false;
    // A reply cut off mid-stream says "aborted" itself; a stop between steps (a tool, a retry wait) does not.
    let replyAborted = false;
    const stop = session.subscribe((event) => {
      if (event.type === "message_end" && (event.message as { stopReason?: string }).stopReason === "aborted")
        replyAborted = true;
      if (event.type === "compaction_end" && event.outcome.kind === "aborted") replyAborted = true;
    });
    session.abort();
    this.store.setHint("stopping…");
    this.track(
      session.waitForIdle().then(() => {
        stop();
        this.store.setHint(undefined);
        if (!replyAborted) this.store.notice("warning", "aborted");
      }),
    );
    return true;
  }

  /**
   * Leaves: stops a run in flight, waits until the session is idle and what commands started has finished,
   * stops listening, and exits the UI.
   *
   * Contract: calling it again while it runs does nothing.
   */
  async quit(): Promise<void> {
    if (this.quitting) return;
    this.quitting = true;
    const session = this.session();
    if (session.isBusy) session.abort();
    await session.waitForIdle();
    await Promise.allSettled([...this.pending]);
    this.store.detach();
    this.ui.exit();
  }

  /** Waits for what the controller started (commands, prompts). For tests and quitting. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise.catch((error: unknown) => this.store.notice("error", errorText(error)));
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }
}
