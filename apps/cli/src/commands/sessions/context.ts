/**
 * What every `arbor sessions` subcommand shares: its dependencies, the action wrapper that turns errors a
 * user can act on (`ArborUserError` and the other typed errors) into a message on stderr and an exit code,
 * and opening the store and a session for the time of a command.
 */
import type { Writable } from "node:stream";
import type { Model, StreamFn } from "@arbor/ai-providers";
import { ArborError } from "@arbor/ai-providers";
import { ArborUserError, type ResolvedSession, resolveSessionReference } from "@arbor/app-runtime";
import { Session, type SessionStore } from "@arbor/session-store";
import { type Command, InvalidArgumentError as CommanderArgumentError } from "commander";
import { STORE_FACTORIES } from "../../factories.js";

/** A model to summarize with, as the CLI's provider choice resolves it. */
export interface SummarizerChoice {
  stream: StreamFn;
  model: Model;
}

/** What `sessionsCommand` needs from the program that mounts it. */
export interface SessionsCommandDeps {
  /**
   * Opens the store a `--store` URL names (`undefined`: the default). Usually `openStore` itself, or a
   * wrapper that fills in the program's global `--store`.
   */
  openStore: (url: string | undefined, options: { readOnly?: boolean }) => Promise<SessionStore>;
  /** The working directory: `list` shows its sessions; relative paths resolve against it. */
  cwd: string;
  /** The Arbor home (`recover` reads its recovery files); default `$ARBOR_HOME`, else `~/.arbor`. */
  home?: string;
  /** The environment (`merge`'s app runtime reads its settings and keys from it); default none. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where results go (the only output of `list --json`, `export` without `-o`, …). */
  stdout: Writable;
  /** Where messages, warnings and errors go. */
  stderr: Writable;
  /**
   * The model `merge` summarizes with: `recorded` (the session's model, `{ provider, id }`) when it can be
   * loaded, else the configured default; `undefined` (or no function) means the deterministic summary.
   *
   * Contract: must not throw for a missing configuration (resolve to `undefined`); called at most once
   * per command, and only by `merge` without `--no-summarize`.
   */
  resolveSummarizer?: (recorded?: { provider: string; id: string }) => Promise<SummarizerChoice | undefined>;
  /**
   * Asks the user a yes/no question (`delete` and `prune` before deleting); absent when no one can answer
   * (stdin is not a terminal): those commands then need `--yes`.
   *
   * Contract: resolves to true only for an explicit yes.
   */
  confirm?: (question: string) => Promise<boolean>;
  /**
   * Receives the exit code of a failed command (default: sets `process.exitCode`).
   *
   * Contract: must not throw.
   */
  setExitCode?: (code: number) => void;
}

/** True for errors a user can act on: Arbor's typed errors and failed file-system calls (`ENOENT`, …). */
function isUserFacing(error: unknown): error is Error {
  if (ArborError.isInstance(error)) return true;
  const system = error as NodeJS.ErrnoException | undefined;
  return error instanceof Error && typeof system?.code === "string" && typeof system.syscall === "string";
}

/**
 * Wraps a subcommand's action: errors a user can act on (see `isUserFacing`) become
 * `arbor sessions <name>: <message>` on stderr and an exit code (1, or an `ArborUserError`'s own), never a stack
 * trace. Other errors are bugs and are rethrown.
 */
export function runAction<Args extends unknown[]>(
  deps: SessionsCommandDeps,
  name: string,
  action: (...args: Args) => Promise<void>,
): (...args: Args) => Promise<void> {
  return async (...args: Args) => {
    try {
      await action(...args);
    } catch (error) {
      if (!isUserFacing(error)) throw error;
      deps.stderr.write(`arbor sessions ${name}: ${error.message}\n`);
      const code = error instanceof ArborUserError ? error.exitCode : 1;
      if (deps.setExitCode !== undefined) deps.setExitCode(code);
      else process.exitCode = code;
    }
  };
}

/** Writes lines to a stream, each ending with a newline. */
export function writeLines(stream: Writable, lines: readonly string[]): void {
  if (lines.length > 0) stream.write(`${lines.join("\n")}\n`);
}

/** The `--store` URL in effect for a command (its own option or a parent's). */
export function storeUrlOf(command: Command): string | undefined {
  const value = command.optsWithGlobals().store;
  return typeof value === "string" ? value : undefined;
}

/** Opens the command's store, runs `body`, and closes the store (releasing its locks) whatever happens. */
export async function withStore<T>(
  deps: SessionsCommandDeps,
  command: Command,
  options: { readOnly: boolean },
  body: (store: SessionStore) => Promise<T>,
): Promise<T> {
  const store = await deps.openStore(storeUrlOf(command), { readOnly: options.readOnly });
  try {
    return await body(store);
  } finally {
    await store.close?.();
  }
}

/**
 * Resolves a `<id|path>` reference in the command's store, opens the session, runs `body`, then releases
 * everything (the temporary store of an outside file included).
 */
export async function withSession<T>(
  deps: SessionsCommandDeps,
  command: Command,
  reference: string,
  options: { readOnly: boolean },
  body: (session: Session, resolved: ResolvedSession) => Promise<T>,
): Promise<T> {
  return withStore(deps, command, options, async (store) => {
    const resolved = await resolveSessionReference(store, reference, {
      cwd: deps.cwd,
      stores: STORE_FACTORIES,
    });
    try {
      const session = await Session.open(resolved.store, resolved.sessionId);
      return await body(session, resolved);
    } finally {
      await resolved.release();
    }
  });
}

/** Commander parser of a positive integer option (`--limit 20`). */
export function parsePositiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw new CommanderArgumentError("expected a positive integer.");
  }
  return number;
}
