/**
 * The Arbor home: where `settings.json`, `models.json`, skills, prompts and the default JSONL session store
 * live. It is resolved once, here, by {@link resolveArborHome}, and passed explicitly to everything that
 * needs it (the store, the harness resources, the settings loader).
 */
import { homedir } from "node:os";
import { join } from "node:path";

/** Environment variables, as a front end passes them (`process.env`, or a test's own). */
export type Environment = Readonly<Record<string, string | undefined>>;

/** The user's home directory: `$HOME` when set and non-empty, else the operating system's. */
export function userHome(env: Environment): string {
  return env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir();
}

/**
 * The Arbor home: `$ARBOR_HOME` when set and non-empty, else `~/.arbor`.
 *
 * Contract: pure apart from reading `env` (and the OS home directory when `HOME` is unset); never touches
 * the file system.
 */
export function resolveArborHome(env: Environment): string {
  if (env.ARBOR_HOME !== undefined && env.ARBOR_HOME !== "") return env.ARBOR_HOME;
  return join(userHome(env), ".arbor");
}
