/**
 * The demo's hub: one app runtime, whose current session every page shows. The session's harness events
 * go through the JSON event writer of `@arbor/app-runtime` (deltas carry only their text) into the event
 * log, each record tagged with the session's id; a change of session is a `session` record. Commands are
 * the protocol's, validated and dispatched by app-runtime (the same as `arbor --mode rpc`); the hub only
 * maps the outcome to an HTTP status.
 */
import {
  type AppRuntime,
  dispatchRpcCommand,
  JsonEventWriter,
  OperationRefusedError,
  parseRpcCommand,
} from "@arbor/app-runtime";
import type { HarnessSession } from "@arbor/harness";
import type { CompactionOutcomeWords } from "@arbor/session-view";
import { EventLog } from "./event-log.js";

/**
 * A command's answer: `{ ok: true, data }`, or `{ ok: false, error }` with the HTTP status to send (400: not
 * a valid command; 409: refused, with the refusal's `code` when it has one).
 */
export type CommandAnswer =
  | { ok: true; data: unknown }
  | { ok: false; status: number; error: string; code?: string };

/** Options of {@link DemoHub}. */
export interface DemoHubOptions {
  /** Merge window of streamed deltas in ms (see `JsonEventWriter`); default its own. */
  coalesceMs?: number;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The runtime, its event log and the commands (see the module comment). */
export class DemoHub {
  readonly log = new EventLog();
  private detach: (() => void) | undefined;
  private writer: JsonEventWriter | undefined;
  private readonly stopWatching: () => void;
  /** Work that outlives its command (a prompt's run). */
  private readonly running = new Set<Promise<unknown>>();

  constructor(
    readonly runtime: AppRuntime,
    private readonly options: DemoHubOptions = {},
  ) {
    this.attach(runtime.session);
    const stopSessions = runtime.onSessionChange((session) => this.attach(session));
    // An extension's `ui.notify` (and a failing extension command) reaches every page as a `notice`.
    const stopNotices = runtime.extensions.onNotice((notice) =>
      this.log.append({ ...notice, type: "notice", sessionId: this.runtime.session.id }),
    );
    // A tool call that needs the user's permission is asked on every page (`permission_request`); a page
    // answers with the `permission_reply` command, and every page sees the decision.
    const stopAsking = runtime.permissions.attachAsker((request) =>
      this.log.append({ ...request, type: "permission_request", sessionId: this.runtime.session.id }),
    );
    const stopDecisions = runtime.permissions.onDecision((decision) =>
      this.log.append({ ...decision, type: "permission_decision", sessionId: this.runtime.session.id }),
    );
    this.stopWatching = () => {
      stopSessions();
      stopNotices();
      stopAsking();
      stopDecisions();
    };
  }

  private attach(session: HarnessSession): void {
    this.detach?.();
    this.writer?.flush();
    const sessionId = session.id;
    const writer = new JsonEventWriter(
      (line) => {
        this.log.append({ ...(JSON.parse(line) as { type: string }), sessionId });
      },
      this.options.coalesceMs === undefined ? {} : { coalesceMs: this.options.coalesceMs },
    );
    this.writer = writer;
    this.detach = session.subscribe((event) => writer.handle(event));
    this.log.append({ type: "session", sessionId });
  }

  /** The outcome of the current session's last compaction since the runtime followed it, if any. */
  get lastCompaction(): CompactionOutcomeWords | undefined {
    return this.runtime.lastCompaction();
  }

  /** Waits for the runs started by commands (a test or a tour waits for them). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    await this.runtime.session.waitForIdle();
    this.writer?.flush();
  }

  private track(work: Promise<unknown>): void {
    const tracked = work.then(
      () => undefined,
      (error: unknown) => {
        this.log.append({ type: "error", sessionId: this.runtime.session.id, error: errorMessage(error) });
      },
    );
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }

  /**
   * Runs one decoded command of the protocol (validated and dispatched by app-runtime).
   *
   * Contract: never throws; a refusal (bad input, a busy session, an unknown id) is an answer with a 4xx
   * status and a message for the user.
   */
  async command(value: unknown): Promise<CommandAnswer> {
    const parsed = parseRpcCommand(value);
    if (!parsed.ok) return { ok: false, status: 400, error: parsed.error };
    try {
      const data = await dispatchRpcCommand(parsed.command, {
        runtime: this.runtime,
        track: (_command, work) => this.track(work),
        notice: (notice) =>
          this.log.append({ ...notice, type: "notice", sessionId: this.runtime.session.id }),
      });
      return { ok: true, data: data ?? null };
    } catch (error) {
      const code = OperationRefusedError.isInstance(error) ? { code: error.code } : {};
      return { ok: false, status: 409, error: errorMessage(error), ...code };
    }
  }

  /** Stops following the runtime (it does not dispose it). */
  close(): void {
    this.writer?.flush();
    this.detach?.();
    this.stopWatching();
  }
}
