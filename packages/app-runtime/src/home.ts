/**
 * The Arbor home: where `settings.json`, `models.json`, skills, prompts and the default JSONL session store
 * live. It is resolved once, here, by {@link resolveArborHome}, and passed explicitly to everything that
 * needs it (the store, the harness resources, the settings loader).
 */
import { accessSync, constants, type Stats, statfsSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { ArborUserError } from "./errors.js";

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

/** `statfs` types of the virtual file systems no file can be created in (proc, sysfs, cgroup, …). */
const VIRTUAL_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, "proc"],
  [0x62656572, "sysfs"],
  [0x27e0eb, "cgroup"],
  [0x63677270, "cgroup2"],
  [0x64626720, "debugfs"],
  [0x74726163, "tracefs"],
  [0x73636673, "securityfs"],
  [0xcafe4a11, "bpf"],
  [0x1cd1, "devpts"],
]);

/** What was wrong with a directory, or `undefined` when it can hold files. */
function directoryProblem(path: string): string | undefined {
  const missing: string[] = [];
  let current = resolve(path);
  for (;;) {
    let stats: Stats;
    try {
      stats = statSync(current);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR")
        return `${current} cannot be read (${code ?? (error as Error).message})`;
      const parent = dirname(current);
      if (parent === current) return `no part of ${path} exists`;
      missing.push(current);
      current = parent;
      continue;
    }
    if (!stats.isDirectory()) {
      return current === resolve(path) ? `${current} is a file, not a directory` : `${current} is a file`;
    }
    break;
  }
  try {
    const kind = VIRTUAL_FILE_SYSTEMS.get(Number(statfsSync(current).type));
    if (kind !== undefined) return `${current} is on a virtual file system (${kind}) that holds no files`;
  } catch {
    // No statfs here: the access check below still applies.
  }
  try {
    accessSync(current, constants.W_OK | constants.X_OK);
  } catch {
    return `${current} is not writable`;
  }
  return undefined;
}

/**
 * Checks that Arbor can create its files in a directory (the Arbor home, a JSONL store's directory) before
 * anything is written: it, or the nearest part of it that exists, must be a directory, writable, and not on a
 * virtual file system such as `/proc` (where a recursive `mkdir` never returns). Creates nothing.
 *
 * Contract: reads only file metadata; throws {@link ArborUserError} (`unusable_home`) with one message that
 * names the directory (as `what` describes it), what is wrong and what to do.
 */
export function checkWritableDirectory(path: string, what: string): void {
  const problem = directoryProblem(path);
  if (problem === undefined) return;
  throw new ArborUserError(
    "unusable_home",
    `${what} cannot hold Arbor's files: ${problem}. Point it at a writable directory, or run with --no-session ` +
      "to write nothing.",
  );
}

/** The Arbor home in words for messages: `ARBOR_HOME (/x)` when the variable chose it, else `the Arbor home /x`. */
export function describeArborHome(env: Environment, home: string): string {
  return env.ARBOR_HOME !== undefined && env.ARBOR_HOME !== "" && resolve(env.ARBOR_HOME) === resolve(home)
    ? `ARBOR_HOME (${home})`
    : `the Arbor home ${home}`;
}
