/**
 * Recovery files: where a session's entries go when its store refused them after every retry (the harness's
 * `unsavedEntries` keeper), so that nothing that ran is unrecorded without the user being told where it is.
 *
 * A file lives at `<Arbor home>/recovery/<session id>/<timestamp>_<pid>.jsonl` (mode 0600, directories 0700;
 * under `$TMPDIR/arbor-recovery-<uid>/<hash of the home>/` when the home cannot take it, e.g. the disk that
 * filled up). Line 1 is
 * {@link RecoveryHeader} (`"type": "arbor_recovery"`); every other line is one session entry, in the order
 * they follow `expectedLastEntryId`. It is written atomically (a temporary file, `fsync`, `rename`) and
 * rewritten whole while the entries stay unsaved. `arbor sessions recover` applies it (`applyRecoveryFile`).
 */
import { createHash } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { type Static, Type } from "@arbor/ai-providers";
import type { KeptEntries, UnsavedEntries, UnsavedEntriesKeeper } from "@arbor/harness";
import type { SessionEntry, SessionHeader } from "@arbor/session-store";
import { validateConfig } from "../config-file.js";
import { ArborUserError } from "../errors.js";

/** The first line of a recovery file. */
export const RecoveryHeaderSchema = Type.Object(
  {
    type: Type.Literal("arbor_recovery"),
    version: Type.Literal(1),
    sessionId: Type.String({ minLength: 1 }),
    /** The store the entries were refused by, in words (passwords hidden). */
    store: Type.String(),
    /** The last entry the store held, which the entries follow (`null`: none). */
    expectedLastEntryId: Type.Union([Type.String(), Type.Null()]),
    /** False when the store never held the session: applying creates it from `session`. */
    sessionStored: Type.Boolean(),
    /** The session's header line. */
    session: Type.Object({ id: Type.String(), cwd: Type.String() }, { additionalProperties: true }),
    entryCount: Type.Integer({ minimum: 0 }),
    /** Why the store refused them. */
    reason: Type.String(),
    /** True when another writer appended first (the session moved on). */
    conflict: Type.Boolean(),
    /** When the save was given up (ISO 8601). */
    failedAt: Type.String(),
  },
  { additionalProperties: true },
);

/** The first line of a recovery file. */
export type RecoveryHeader = Static<typeof RecoveryHeaderSchema>;

/** A recovery file as read: where it is, its header and its entries. */
export interface RecoveryFile {
  path: string;
  header: RecoveryHeader;
  entries: SessionEntry[];
}

/** `<home>/recovery`: where recovery files live. */
export function recoveryDirectory(home: string): string {
  return join(home, "recovery");
}

/** The fallback when the home cannot take a file: `$TMPDIR/arbor-recovery-<uid>/<hash of the home>`. */
function fallbackDirectory(home: string): string {
  let user = "user";
  try {
    user = String(userInfo().uid);
  } catch {
    // No user database: one shared name is fine (the files are 0600).
  }
  const key = createHash("sha256").update(resolve(home)).digest("hex").slice(0, 16);
  return join(tmpdir(), `arbor-recovery-${user}`, key);
}

/** The directories searched for recovery files, the home's first. */
export function recoveryDirectories(home: string): string[] {
  return [recoveryDirectory(home), fallbackDirectory(home)];
}

function sessionDirectoryName(sessionId: string): string {
  return encodeURIComponent(sessionId);
}

/** The text of a recovery file (header line, then one line per entry). */
export function recoveryFileText(unsaved: UnsavedEntries, store: string): string {
  const header: RecoveryHeader = {
    type: "arbor_recovery",
    version: 1,
    sessionId: unsaved.sessionId,
    store,
    expectedLastEntryId: unsaved.expectedLastEntryId,
    sessionStored: unsaved.sessionStored,
    session: unsaved.header as RecoveryHeader["session"],
    entryCount: unsaved.entries.length,
    reason: unsaved.reason,
    conflict: unsaved.conflict,
    failedAt: unsaved.failedAt,
  };
  return [header, ...unsaved.entries].map((line) => `${JSON.stringify(line)}\n`).join("");
}

/** Writes `text` to `path` atomically: a temporary file (0600), `fsync`, `rename`, then the directory's `fsync`. */
function writeAtomically(path: string, text: string): void {
  const directory = dirname(path);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, "w", 0o600);
  try {
    const bytes = Buffer.from(text, "utf8");
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    try {
      unlinkSync(temporary);
    } catch {
      // Nothing to clean up.
    }
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, path);
  try {
    const dirFd = openSync(directory, "r");
    try {
      fsyncSync(dirFd);
    } finally {
      closeSync(dirFd);
    }
  } catch {
    // Some file systems cannot sync a directory; the rename is done.
  }
}

/** What {@link createRecoveryKeeper} needs. */
export interface RecoveryKeeperOptions {
  /** The Arbor home (files go to `<home>/recovery`). */
  home: string;
  /** The store in words (`describeStoreLocation`), written into each file. */
  store: string;
  /**
   * How to apply a session's file, as a clause (default: "`arbor sessions recover <id>` applies them, and
   * `arbor -r <id>` offers to").
   */
  howToApply?: (sessionId: string) => string;
}

/**
 * The default clause of {@link RecoveryKeeperOptions.howToApply}: "`arbor sessions recover <id>` applies them
 * (`arbor -r <id>` offers to)", each command with `storeFlag` (e.g. ` --store sqlite:/x.db`) when one is given.
 */
export function defaultHowToApply(sessionId: string, storeFlag = ""): string {
  return `\`arbor sessions recover ${sessionId}${storeFlag}\` applies them (\`arbor -r ${sessionId}${storeFlag}\` offers to)`;
}

/**
 * The harness's `unsavedEntries` keeper of Arbor's app: recovery files (see the module comment). `keep`
 * rewrites the file it wrote before for the session, or starts a new one; when the home cannot take it
 * (a full disk, a read-only mount) the file goes to the fallback directory. `release` removes the file
 * once a later save stored the entries.
 */
export function createRecoveryKeeper(options: RecoveryKeeperOptions): UnsavedEntriesKeeper {
  const howToApply = options.howToApply ?? ((sessionId: string) => defaultHowToApply(sessionId));
  return {
    async keep(unsaved, previous) {
      const text = recoveryFileText(unsaved, options.store);
      const stamp = unsaved.failedAt.replace(/[:.]/g, "-");
      const name = previous === undefined ? `${stamp}_${process.pid}.jsonl` : basename(previous.location);
      const directories = recoveryDirectories(options.home).map((directory) =>
        join(directory, sessionDirectoryName(unsaved.sessionId)),
      );
      if (previous !== undefined) directories.unshift(dirname(previous.location));
      const failures: string[] = [];
      for (const directory of [...new Set(directories)]) {
        const path = join(directory, name);
        try {
          writeAtomically(path, text);
          if (previous !== undefined && previous.location !== path) removeRecoveryFile(previous.location);
          return { location: path, howToApply: howToApply(unsaved.sessionId) };
        } catch (error) {
          failures.push(`${path}: ${(error as Error).message}`);
        }
      }
      throw new Error(`Cannot write a recovery file: ${failures.join("; ")}`);
    },
    async release(kept: KeptEntries) {
      removeRecoveryFile(kept.location);
    },
  };
}

/**
 * Removes a recovery file, and its session's directory when that is left empty.
 *
 * Contract: never throws (a file already gone is fine).
 */
export function removeRecoveryFile(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // Already gone, or not removable: nothing else to do.
  }
  try {
    rmdirSync(dirname(path));
  } catch {
    // Not empty (another file of the session), or gone.
  }
}

function invalid(path: string, detail: string): ArborUserError {
  return new ArborUserError("recovery_failed", `${path} is not a recovery file Arbor can apply: ${detail}`);
}

/**
 * Reads a recovery file.
 *
 * Contract: throws `ArborUserError` (`recovery_failed`) naming the file for a header that does not validate
 * or a line that is not an entry (an object with a string `type` and `id` and a `parentId`), and what
 * `readFileSync` throws for an unreadable file.
 */
export function readRecoveryFile(path: string): RecoveryFile {
  const lines = readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "");
  const parsed = lines.map((line, index) => {
    try {
      return JSON.parse(line) as unknown;
    } catch {
      throw invalid(path, `line ${index + 1} is not JSON`);
    }
  });
  const header = validateConfig<RecoveryHeader>(
    RecoveryHeaderSchema,
    parsed[0] ?? {},
    path,
    "recovery_failed",
    "recovery file",
  );
  const entries = parsed.slice(1) as SessionEntry[];
  for (const [index, entry] of entries.entries()) {
    const fields = entry as unknown as Record<string, unknown>;
    const parent = fields?.parentId;
    if (
      typeof fields?.type !== "string" ||
      typeof fields.id !== "string" ||
      !(parent === null || typeof parent === "string")
    ) {
      throw invalid(path, `line ${index + 2} is not a session entry`);
    }
  }
  return { path, header, entries };
}

/** A recovery file found on disk, read or not (`problem` when it could not be read). */
export interface FoundRecoveryFile {
  path: string;
  sessionId: string;
  file?: RecoveryFile;
  problem?: string;
}

/**
 * The recovery files of one session (by exact id), or of every session, oldest first (by name: the time the
 * save was given up), from the home's directory and the fallback.
 *
 * Contract: reads directories and files; never throws for a missing directory; an unreadable file is
 * listed with its `problem`.
 */
export function listRecoveryFiles(home: string, sessionId?: string): FoundRecoveryFile[] {
  const found: FoundRecoveryFile[] = [];
  for (const root of recoveryDirectories(home)) {
    let sessions: string[];
    try {
      sessions = sessionId === undefined ? readdirSync(root) : [sessionDirectoryName(sessionId)];
    } catch {
      continue;
    }
    for (const directory of sessions) {
      let names: string[];
      try {
        names = readdirSync(join(root, directory)).filter((name) => name.endsWith(".jsonl"));
      } catch {
        continue;
      }
      for (const name of names) {
        const path = join(root, directory, name);
        const id = decodeURIComponent(directory);
        try {
          found.push({ path, sessionId: id, file: readRecoveryFile(path) });
        } catch (error) {
          found.push({ path, sessionId: id, problem: (error as Error).message });
        }
      }
    }
  }
  return found.sort((a, b) => basename(a.path).localeCompare(basename(b.path)));
}

/** The session header a recovery file carries (to create a session its store never held). */
export function recoveredSessionHeader(file: RecoveryFile): SessionHeader {
  return file.header.session as unknown as SessionHeader;
}
