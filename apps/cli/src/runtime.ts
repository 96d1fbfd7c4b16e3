import type { Model, ProviderRegistry } from "@arbor/ai-providers";
import type { AgentHarness, HarnessSession } from "@arbor/harness";
import type { SessionStore, SessionSummary } from "@arbor/session-store";

/**
 * Everything an interactive or programmatic front end needs, wired by the CLI core: the harness, the
 * current session, the providers, the store. Built by `createRuntime()` (src/runtime-factory.ts);
 * consumed by the modes (print, json, rpc) and the interactive UI.
 */
export interface CliRuntime {
  readonly cwd: string;
  /** `@arbor/cli`'s version. */
  readonly version: string;
  readonly harness: AgentHarness;
  /** The current session; replaced by {@link switchTo}. */
  readonly session: HarnessSession;
  /** The providers the CLI set up (for `/model` and `arbor models`). */
  readonly registry: ProviderRegistry;
  /** The model sessions start with. */
  readonly model: Model;
  readonly store: SessionStore;
  /** Where the store lives, for humans (e.g. `~/.arbor/sessions`); `undefined` with `--no-session`. */
  readonly storeDescription: string | undefined;
  /** Whether sessions are persisted (`false` with `--no-session`). */
  readonly persistent: boolean;
  /**
   * Starts a new session in the cwd and makes it current.
   *
   * Contract: the previous session is closed (its pending writes flushed) first.
   */
  newSession(): Promise<HarnessSession>;
  /**
   * Opens a session by full id, unique id prefix or `.jsonl` path and makes it current.
   *
   * Contract: throws an `ArborError` with a message fit for the user when the reference does not
   * resolve (not found, ambiguous); the current session stays current then.
   */
  openSession(reference: string): Promise<HarnessSession>;
  /** Makes an already open session (e.g. a fork) current, closing the previous one. */
  switchTo(session: HarnessSession): Promise<void>;
  /** Sessions of the cwd, newest activity first (`all`: of every cwd). */
  listSessions(options?: { all?: boolean; limit?: number }): Promise<SessionSummary[]>;
  /**
   * Exports the current session; returns the path written.
   *
   * Contract: without `file`, writes `<session id>.<ext>` in the cwd.
   */
  exportSession(format: "html" | "md" | "jsonl", file?: string): Promise<string>;
  /** Closes the session, the harness and the store. Calling it twice is harmless. */
  dispose(): Promise<void>;
  /** The current session's file, when the store keeps one per session (JSONL). Added by the CLI core. */
  readonly sessionFile?: string | undefined;
  /**
   * Resolves `"provider/model"`, loading that provider first when the run started with another one (so that
   * `/model anthropic/claude-sonnet-5-5` works in a session started with `--provider scripted`). Added by
   * the CLI core.
   *
   * Contract: rejects with a message for the user when the provider or the model is unknown or has no key
   * configured; the registry then holds the provider.
   */
  loadModel?(reference: string): Promise<Model>;
  /**
   * Registers a listener called after the current session changed (`newSession`, `openSession`, `switchTo`).
   * Added by the CLI core.
   *
   * Contract: returns a function that removes it; a throwing listener is ignored.
   */
  onSessionChange?(listener: (session: HarnessSession) => void): () => void;
}
