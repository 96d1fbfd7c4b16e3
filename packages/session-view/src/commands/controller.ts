/**
 * What the user's actions do, outside any UI framework: sending a text (a prompt when idle, a steering message while
 * the agent runs, a follow-up with Alt+Enter), slash commands, interrupting, quitting, switching sessions.
 * A front end calls it; it calls the harness session and the app runtime, and reports through the view model.
 */

import type { HarnessSession } from "@arbor/harness";
import { errorText } from "../format.js";
import type { SessionViewModel } from "../session-view-model.js";
import type { CommandHost, CommandRuntime, Picker } from "./command-types.js";
import { completeCommand, parseCommandLine, runSlashCommand } from "./slash-commands.js";

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
   * Ends the interactive mode.
   *
   * Contract: called once, when the session is idle; unmounts the app.
   */
  exit(): void;
}

/** The actions of the interactive mode. */
export class InteractiveController implements CommandHost {
  private quitting = false;
  private readonly pending = new Set<Promise<unknown>>();

  constructor(
    readonly runtime: CommandRuntime,
    readonly store: SessionViewModel,
    private readonly ui: ControllerUi,
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

  /** Starts a prompt; its failure to start (or an unexpected rejection) becomes an error notice. */
  prompt(text: string): void {
    const run = this.session().prompt(text);
    this.store.refresh();
    this.track(run.catch((error: unknown) => this.store.notice("error", errorText(error))));
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

  /** Completes a slash command on Tab (a list of matches goes to the hint line). */
  complete(text: string): string | undefined {
    const completion = completeCommand(text, this);
    if (completion === undefined) return undefined;
    this.store.setHint(
      completion.matches.length > 1 ? completion.matches.map((name) => `/${name}`).join("  ") : undefined,
    );
    return completion.text;
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
