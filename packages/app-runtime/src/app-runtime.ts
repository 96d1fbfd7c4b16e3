/**
 * {@link AppRuntime}: everything a front end (a terminal UI, print/json/rpc modes, a web server) drives —
 * the harness, the current session, the providers, the store — built by `createAppRuntime()`.
 */
import type { Model, ProviderRegistry } from "@arbor/ai-providers";
import type { AgentHarness, BashExecutionInput, HarnessSession } from "@arbor/harness";
import type { Session, SessionStore, SessionSummary } from "@arbor/session-store";
import type { ExtensionHost } from "./extensions/extension-host.js";
import type { McpConnections } from "./extensions/mcp-servers.js";
import type { SessionOperations } from "./operations/session-operations.js";
import type { PermissionGate } from "./permissions/permission-gate.js";
import type { UnsavedWorkWatch, WatchUnsavedWorkOptions } from "./unsaved-work.js";

/** The formats {@link AppRuntime.exportSession} writes. */
export type ExportFormat = "html" | "md" | "jsonl";

/**
 * Renders a session as the text of one export format. The app supplies them (`exporters` of
 * `createAppRuntime`), so app-runtime depends on no presentation package.
 *
 * Contract: pure apart from reading `store`; must not write files.
 */
export type SessionExporter = (input: {
  session: Session;
  store: SessionStore;
  /** The session's file, when the store keeps one per session. */
  location: string | undefined;
}) => string | Promise<string>;

/** Exporters by format; a format without one is refused by {@link AppRuntime.exportSession}. */
export type SessionExporters = Partial<Record<ExportFormat, SessionExporter>>;

/** Options of {@link AppRuntime.listSessions}. */
export interface ListSessionsOptions {
  /** Every working directory's sessions, not only the runtime's `cwd`. */
  all?: boolean;
  limit?: number;
}

/**
 * A wired app: the harness, the current session, the providers and the store, and the operations a user
 * can do to a session ({@link SessionOperations}: label, edit, diff, merge, navigate, fork, compact, list,
 * import), which every front end calls.
 */
export interface AppRuntime extends SessionOperations {
  readonly cwd: string;
  /** The Arbor home it was resolved with (`$ARBOR_HOME`, else `~/.arbor`, or the `home` option). */
  readonly home: string;
  /** The app's version (the `version` option). */
  readonly version: string;
  readonly harness: AgentHarness;
  /** The current session; replaced by {@link newSession}, {@link openSession} and {@link switchTo}. */
  readonly session: HarnessSession;
  /** The providers set up so far (for a model picker); {@link loadModel} adds to it. */
  readonly registry: ProviderRegistry;
  /** The model sessions start with. */
  readonly model: Model;
  readonly store: SessionStore;
  /** Where the store lives, for humans (e.g. `the JSONL store in ~/.arbor`); `undefined` when not persistent. */
  readonly storeDescription: string | undefined;
  /** Whether sessions are persisted (`false`: in memory only). */
  readonly persistent: boolean;
  /** The current session's file, when the store keeps one per session (JSONL). */
  readonly sessionFile: string | undefined;
  /**
   * The extensions: what loaded and from where (`loaded`), what failed (`failures`), their commands
   * (`commandList()`, `runCommand()`, `runCommandLine()`) and notices (`onNotice()`). Empty with
   * `extensions: false`.
   */
  readonly extensions: ExtensionHost;
  /** The MCP servers of `settings.json` (`status()` lists them); `undefined` when none is configured. */
  readonly mcp: McpConnections | undefined;
  /**
   * The permission gate every tool call passes (docs/permissions.md): its mode and rules, the questions
   * waiting (`pending`), `attachAsker` for a front end that can ask the user, `reply` to answer, and
   * `onDecision` for the decisions it records in the session.
   */
  readonly permissions: PermissionGate;
  /**
   * Runs a command the user typed (`!command`) in the cwd with the coding tools' bash tool and the same
   * environment as the model's commands: the API keys' variables removed (unless `shareKeysWithTools`), so
   * the session, which records the output, never holds a key. The result goes to
   * `session.appendBashExecution()`.
   *
   * Contract: never rejects (see `runUserShellCommand`).
   */
  runShellCommand(command: string, signal?: AbortSignal): Promise<BashExecutionInput>;
  /**
   * Starts a new session in the cwd and makes it current; the store holds it from its first entry on (a
   * session left without one leaves nothing behind).
   *
   * Contract: the previous session is closed (its pending writes flushed) first; when creating fails, the
   * previous session is reopened and stays current, and the error is rethrown.
   */
  newSession(): Promise<HarnessSession>;
  /**
   * Opens a session by full id, unique id prefix or `.jsonl` path and makes it current.
   *
   * Contract: throws an error with a message fit for the user when the reference does not resolve (not
   * found, ambiguous, a file outside the store); the current session stays current then.
   */
  openSession(reference: string): Promise<HarnessSession>;
  /**
   * Makes an already open session (e.g. a fork) current, closing the previous one.
   *
   * Contract: a no-op for the current session; listeners of {@link onSessionChange} run after the switch.
   */
  switchTo(session: HarnessSession): Promise<void>;
  /**
   * Sessions of the cwd, newest activity first (`all`: of every cwd), as the store summarizes them;
   * `listSessionPage` pages through them in the protocol's shape.
   *
   * Contract: reads the store only; one page of at most `limit` sessions.
   */
  listSessions(options?: ListSessionsOptions): Promise<SessionSummary[]>;
  /**
   * Exports the current session with the app's exporter for `format`; returns the path written.
   *
   * Contract: without `file`, writes `<session id>.<ext>` in the cwd, with mode 0600 (sessions can hold
   * secrets); throws a user error when the app supplied no exporter for `format`.
   */
  exportSession(format: ExportFormat, file?: string): Promise<string>;
  /**
   * Resolves `"provider/model"`, loading that provider first when it is not registered yet (so that
   * `anthropic/claude-sonnet-5-5` works in a session started with `--provider scripted`); `models.json` is
   * read again for a provider it did not name at the start. A bare id is a model of the current session's
   * provider, and so is a slashed id its catalog lists whole (OpenRouter's `anthropic/claude-x`). Any id of
   * a known provider is accepted: one the catalog does not list gets the provider's default limits (or
   * `modelLimits`) and a notice.
   *
   * Contract: rejects with a message for the user when the provider is unknown (naming the known ones;
   * never read as a model of the current provider), has no key, or the app
   * offers no factory for it (and for an unknown id of an offline provider); a provider it loaded stays in
   * {@link registry}.
   */
  loadModel(reference: string): Promise<Model>;
  /**
   * Registers a listener called after the current session changed (`newSession`, `openSession`,
   * `switchTo`).
   *
   * Contract: returns a function that removes it; a throwing listener is ignored.
   */
  onSessionChange(listener: (session: HarnessSession) => void): () => void;
  /**
   * Watches the saves of the current session and of every session made current after it, for a front end
   * that must tell the user when work was not stored (print and json mode exit non-zero, rpc mode too).
   * While it watches, the runtime's warnings (`onWarning`) leave out the refusals it reports.
   *
   * Contract: watches only events emitted after the call; the returned function stops watching and says
   * why the last unsaved work was not stored and where it is kept (`undefined` when everything was stored),
   * and may be called once; its `alreadyWarned(text)` tells whether this runtime already warned about a
   * message `text` carries. Watches of two runtimes never affect each other.
   */
  watchUnsavedWork(options?: WatchUnsavedWorkOptions): UnsavedWorkWatch;
  /**
   * Closes the session, the harness and the store.
   *
   * Contract: calling it twice is harmless (the second call waits for the first).
   */
  dispose(): Promise<void>;
}
