/**
 * Where session files live: `<home>/sessions/<encoded cwd>/<timestamp>_<id>.jsonl`, the layout of the
 * pi agent (whose `~/.pi/agent/sessions` has the same shape).
 */
import { createHash } from "node:crypto";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { InvalidStoreArgumentError } from "./errors.js";

/** File name suffix of a session file. */
export const SESSION_FILE_SUFFIX = ".jsonl";

/** Longest encoded directory name before it is shortened with a hash (file systems allow 255 bytes). */
const MAX_DIRECTORY_NAME = 180;

/**
 * Checks the store's home: a non-empty string. The store never reads the environment; the application
 * resolves its home (`$ARBOR_HOME`, else `~/.arbor`) once and passes it.
 */
export function requireHome(home: unknown): string {
  if (typeof home !== "string" || home === "") {
    throw new InvalidStoreArgumentError(
      "JsonlSessionStore: pass `home` (the Arbor home; sessions live in <home>/sessions), e.g. the " +
        "application's $ARBOR_HOME or ~/.arbor.",
    );
  }
  return home;
}

/**
 * Encodes a working directory as one directory name the way the pi agent does: the leading separator
 * dropped, every `/`, `\` and `:` replaced by `-`, and the result wrapped in `--`
 * (`/home/user/project` → `--home-user-project--`). Names longer than 180 bytes keep their start and
 * end a hash of the full path, so they stay valid and distinct. The encoding is not reversible
 * (`/a-b` and `/a/b` collide); the header's `cwd` is the truth, and listing by cwd checks it.
 */
export function encodeCwd(cwd: string): string {
  const encoded = `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
  if (Buffer.byteLength(encoded) <= MAX_DIRECTORY_NAME) return encoded;
  const hash = createHash("sha256").update(cwd).digest("hex").slice(0, 12);
  let start = encoded.slice(0, 120);
  while (Buffer.byteLength(start) > 120) start = start.slice(0, -1);
  return `${start}-${hash}--`;
}

/** Throws `InvalidStoreArgumentError` unless the id can be part of a file name. */
export function assertValidSessionId(sessionId: string): void {
  if (
    typeof sessionId !== "string" ||
    sessionId.length === 0 ||
    sessionId.length > 200 ||
    /[/\\\0]/.test(sessionId) ||
    sessionId.includes("..")
  ) {
    throw new InvalidStoreArgumentError(
      `Invalid session id ${JSON.stringify(String(sessionId))}: ids are 1-200 characters without "/", "\\", NUL or "..".`,
    );
  }
}

/** The file name of a session: `<timestamp>_<id>.jsonl`, the timestamp with `:` and `.` as `-` (like pi). */
export function sessionFileName(timestamp: string, sessionId: string): string {
  let stamp = typeof timestamp === "string" ? timestamp.replace(/[:.]/g, "-") : "";
  if (!/^[0-9A-Za-z+-]{1,40}$/.test(stamp)) stamp = new Date().toISOString().replace(/[:.]/g, "-");
  return `${stamp}_${sessionId}${SESSION_FILE_SUFFIX}`;
}

/** The session id a file name carries (`<timestamp>_<id>.jsonl`), or undefined for any other file. */
export function sessionIdOfFileName(fileName: string): string | undefined {
  if (!fileName.endsWith(SESSION_FILE_SUFFIX)) return undefined;
  const separator = fileName.indexOf("_");
  if (separator <= 0) return undefined;
  const id = fileName.slice(separator + 1, -SESSION_FILE_SUFFIX.length);
  return id.length > 0 ? id : undefined;
}

/** One session file found on disk. */
export interface SessionFileLocation {
  sessionId: string;
  path: string;
}

/** Every session file under `<sessionsDirectory>/*\/`, or only under one directory name. */
export function findSessionFiles(sessionsDirectory: string, onlyDirectory?: string): SessionFileLocation[] {
  const found: SessionFileLocation[] = [];
  const directories = onlyDirectory === undefined ? workingDirectories(sessionsDirectory) : [onlyDirectory];
  for (const directory of directories) {
    const directoryPath = join(sessionsDirectory, directory);
    for (const fileName of listDirectory(directoryPath)) {
      const sessionId = sessionIdOfFileName(fileName);
      if (sessionId !== undefined) found.push({ sessionId, path: join(directoryPath, fileName) });
    }
  }
  return found;
}

/**
 * The path of the first file of `sessionId` under `<sessionsDirectory>/*\/` (in directory order, as
 * {@link SessionPathIndex} picks it), or undefined. Reads every directory but builds nothing for the other
 * files: creating a session looks once in a home of thousands.
 */
export function findSessionFile(sessionsDirectory: string, sessionId: string): string | undefined {
  const ending = `_${sessionId}${SESSION_FILE_SUFFIX}`;
  for (const directory of workingDirectories(sessionsDirectory)) {
    const directoryPath = join(sessionsDirectory, directory);
    for (const fileName of listDirectory(directoryPath)) {
      if (fileName.endsWith(ending) && sessionIdOfFileName(fileName) === sessionId) {
        return join(directoryPath, fileName);
      }
    }
  }
  return undefined;
}

/** The working directories' folders: every entry of the sessions directory but the store's own (`.locks`, …). */
function workingDirectories(sessionsDirectory: string): string[] {
  return listDirectory(sessionsDirectory).filter((name) => !name.startsWith("."));
}

function listDirectory(path: string): string[] {
  try {
    return readdirSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return [];
    throw error;
  }
}

/**
 * The in-memory map from session id to file path, rebuilt lazily: a lookup that misses rescans the
 * directories once (another process may have created the session since).
 */
export class SessionPathIndex {
  private readonly paths = new Map<string, string>();
  private pinned = false;

  constructor(private readonly sessionsDirectory: string) {}

  /**
   * The path of a session, or undefined when it does not exist. The directories are scanned on the
   * first lookup and again on a miss, unless `scan` is false: then only the sessions seen so far are
   * looked at (a creation makes its own look, under its lock: see `createExclusively`).
   */
  find(sessionId: string, scan = true): string | undefined {
    const known = this.paths.get(sessionId);
    if (known !== undefined || !scan) return known;
    this.rescan();
    return this.paths.get(sessionId);
  }

  /** Records a session this store created. */
  add(sessionId: string, path: string): void {
    this.paths.set(sessionId, path);
  }

  /** Makes the index hold exactly one session file and never scan a directory (a store over one file). */
  pin(sessionId: string, path: string): void {
    this.paths.clear();
    this.paths.set(sessionId, path);
    this.pinned = true;
  }

  /** The one file of a pinned index (see {@link pin}), else undefined. */
  pinnedFile(): SessionFileLocation | undefined {
    if (!this.pinned) return undefined;
    const [entry] = this.paths;
    return entry === undefined ? undefined : { sessionId: entry[0], path: entry[1] };
  }

  /** Forgets a deleted session. */
  remove(sessionId: string): void {
    this.paths.delete(sessionId);
  }

  private rescan(): void {
    if (this.pinned) return;
    this.paths.clear();
    for (const { sessionId, path } of findSessionFiles(this.sessionsDirectory)) {
      // Two files with one id (a copy): the first in directory order wins, consistently.
      if (!this.paths.has(sessionId)) this.paths.set(sessionId, path);
    }
  }
}
