/**
 * The demo's hub: one app runtime, whose current session every page shows. The session's harness events
 * go through the JSON event writer of `@arbor/app-runtime` (deltas carry only their text) into the event
 * log, each record tagged with the session's id; a change of session is a `session` record. Commands of
 * the RPC protocol are dispatched by app-runtime, the demo's own by {@link runDemoCommand}.
 */
import {
  type AppRuntime,
  dispatchRpcCommand,
  JsonEventWriter,
  parseRpcCommand,
  RPC_COMMAND_SCHEMAS,
} from "@arbor/app-runtime";
import type { HarnessSession } from "@arbor/harness";
import type { CompactionOutcomeWords } from "@arbor/session-view";
import { DEMO_COMMAND_SCHEMAS, isDemoCommandType, parseDemoCommand } from "./demo-commands.js";
import { runDemoCommand } from "./demo-handlers.js";
import { EventLog } from "./event-log.js";

/** A command's answer: `{ ok: true, data }`, or `{ ok: false, error }` with the HTTP status to send. */
export type CommandAnswer = { ok: true; data: unknown } | { ok: false; status: number; error: string };

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
  private compaction: CompactionOutcomeWords | undefined;
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
    this.stopWatching = () => {
      stopSessions();
      stopNotices();
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
    this.compaction = undefined;
    this.detach = session.subscribe((event) => {
      if (event.type === "compaction_end") this.compaction = event.outcome;
      writer.handle(event);
    });
    this.log.append({ type: "session", sessionId });
  }

  /** The outcome of the current session's last compaction since the hub followed it, if any. */
  get lastCompaction(): CompactionOutcomeWords | undefined {
    return this.compaction;
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
        this.log.append({ type: "error", sessionId: this.runtime.session.id, message: errorMessage(error) });
      },
    );
    this.running.add(tracked);
    void tracked.finally(() => this.running.delete(tracked));
  }

  /**
   * Runs one decoded command: an RPC command (validated by app-runtime), else a demo command.
   *
   * Contract: never throws; a refusal (bad input, a busy session, an unknown id) is an answer with a 4xx
   * status and a message for the user.
   */
  async command(value: unknown): Promise<CommandAnswer> {
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return { ok: false, status: 400, error: "A command must be a JSON object." };
    }
    const record = value as Record<string, unknown>;
    try {
      if (typeof record.type === "string" && Object.hasOwn(RPC_COMMAND_SCHEMAS, record.type)) {
        const parsed = parseRpcCommand(record);
        if (!parsed.ok) return { ok: false, status: 400, error: parsed.error };
        const data = await dispatchRpcCommand(parsed.command, {
          runtime: this.runtime,
          track: (_command, work) => this.track(work),
        });
        return { ok: true, data: data ?? null };
      }
      if (!isDemoCommandType(record.type)) {
        const known = [...Object.keys(RPC_COMMAND_SCHEMAS), ...Object.keys(DEMO_COMMAND_SCHEMAS)].join(", ");
        return {
          ok: false,
          status: 400,
          error: `Unknown command ${JSON.stringify(record.type)}. Commands: ${known}.`,
        };
      }
      const parsed = parseDemoCommand(record);
      if (!parsed.ok) return { ok: false, status: 400, error: parsed.error };
      const data = await runDemoCommand(parsed.command, { hub: this, track: (work) => this.track(work) });
      return { ok: true, data: data ?? null };
    } catch (error) {
      return { ok: false, status: 409, error: errorMessage(error) };
    }
  }

  /** Stops following the runtime (it does not dispose it). */
  close(): void {
    this.writer?.flush();
    this.detach?.();
    this.stopWatching();
  }
}
