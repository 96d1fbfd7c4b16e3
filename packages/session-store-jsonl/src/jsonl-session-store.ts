/**
 * `JsonlSessionStore`: one append-only JSONL file per session under
 * `<home>/sessions/<encoded cwd>/<timestamp>_<id>.jsonl`, in the pi agent's version-3 format.
 */
import { mkdirSync, readdirSync, unlinkSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import {
  type AppendOptions,
  type ListSessionsQuery,
  type SessionAppendListener,
  SessionConflictError,
  type SessionEntry,
  SessionExistsError,
  type SessionHeader,
  SessionNotFoundError,
  type SessionPage,
  type SessionStore,
  type SessionWatch,
  type SessionWriterLease,
  type StoredSession,
} from "@arbor/session-store";
import { needsMigration } from "@arbor/session-store/backend";
import { type EncodedBatch, encodeHeader } from "./batch-format.js";
import { syncDirectory } from "./durability.js";
import { InvalidStoreArgumentError, SessionReadOnlyError } from "./errors.js";
import { createExclusively } from "./exclusive-create.js";
import { readSessionFileHeader } from "./file-header.js";
import { JsonlWatch } from "./jsonl-watch.js";
import { assertValidSessionId, encodeCwd, requireHome, SessionPathIndex, sessionFileName } from "./layout.js";
import { listSessionFiles } from "./listing.js";
import { ListingIndex } from "./listing-index.js";
import { migrateSessionBytes } from "./migration.js";
import { describeTail, parseFile, scanEntries } from "./scanner.js";
import { SessionFile, type SessionFileHost } from "./session-file.js";
import { acquireJsonlLease } from "./writer-lease.js";

/** Options of {@link JsonlSessionStore.openFile}: those of the store, without its home. */
export type JsonlOpenFileOptions = Omit<JsonlSessionStoreOptions, "home">;

/** What {@link JsonlSessionStore.openFile} opened. */
export interface JsonlSessionFile {
  /** A store whose only session is the file (it lists only that file and creates no session). */
  store: JsonlSessionStore;
  /** The session's id (its header's `id`): pass it to `Session.open(store, sessionId)`. */
  sessionId: string;
  /** The header as line 1 holds it (before any migration). */
  header: SessionHeader;
  /** The file's absolute path. */
  path: string;
}

/** Options of {@link JsonlSessionStore}. */
export interface JsonlSessionStoreOptions {
  /**
   * The Arbor home; sessions live in `<home>/sessions`. Required: the store never reads the environment.
   * Resolving it (`$ARBOR_HOME`, else `~/.arbor`) is the application's job, done once.
   */
  home: string;
  /**
   * `"fsync"` (default): an append resolves once its batch is on disk (`fdatasync`; appends in flight
   * together share one sync). `"flush"`: it resolves once the batch is written to the OS, which survives
   * a crash of the process but not of the machine.
   */
  durability?: "fsync" | "flush";
  /** Open without locks; every write throws `SessionReadOnlyError`, and damaged files are left as they are. */
  readOnly?: boolean;
  /**
   * Receives every warning (a torn tail moved aside, a bad line skipped, a migration).
   *
   * Contract: must not throw.
   */
  onWarning?: (message: string) => void;
}

/** The file {@link JsonlSessionStore.openFile} is constructing a store for (read by the constructor). */
let pendingFile: { sessionId: string; path: string } | undefined;

/**
 * The embedded default {@link SessionStore}: one JSONL file per session, append-only, in the pi agent's
 * format (it opens, lists and continues pi's own files, and pi can read the files it writes).
 *
 * A batch is one `write` (and one `fdatasync`) and is all-or-nothing on reopen; a torn tail is moved to
 * `<file>.torn` and cut off; writers hold `<file>.lock`; listing reads each file's header and tail only;
 * opening a file scans only the tree fields of each line and parses bodies when `entry()` asks.
 */
export class JsonlSessionStore implements SessionStore {
  /** `<home>/sessions` (for a store from {@link JsonlSessionStore.openFile}: the file's directory). */
  readonly sessionsDirectory: string;
  private readonly readOnly: boolean;
  private readonly context: SessionFileHost;
  private readonly index: SessionPathIndex;
  private readonly files = new Map<string, SessionFile>();
  private readonly summaries: ListingIndex;
  private readonly watches = new Set<JsonlWatch>();
  private readonly leases = new Set<SessionWriterLease>();

  constructor(options: JsonlSessionStoreOptions) {
    const single = pendingFile;
    pendingFile = undefined;
    this.sessionsDirectory =
      single === undefined ? join(requireHome(options?.home), "sessions") : dirname(single.path);
    this.readOnly = options.readOnly ?? false;
    // A store over one file (`openFile`) keeps its listing in memory only; so does a read-only store.
    this.summaries = new ListingIndex(this.sessionsDirectory, !this.readOnly && single === undefined);
    const onWarning = options.onWarning;
    this.context = {
      owner: this,
      durable: (options.durability ?? "fsync") === "fsync",
      warn: (message) => onWarning?.(message),
      vanished: (file) => {
        this.forget(file);
        this.index.remove(file.sessionId);
      },
    };
    this.index = new SessionPathIndex(this.sessionsDirectory);
    if (single !== undefined) this.index.pin(single.sessionId, single.path);
  }

  /**
   * Opens one session file anywhere on disk — one of this store's, another Arbor home's, or a pi agent
   * file (versions 1 to 3, any file name) — as a store whose only session it is. Line 1 is read and
   * checked by the store's own rules (a session header whose id can name a session); the entries are read
   * as the store reads its files (bodies parsed on demand, a torn tail left out and reported).
   *
   * Contract: with `readOnly` nothing is ever written, created, renamed or locked: an old-format file is
   * migrated in memory only, a torn tail is only left out, every write throws `SessionReadOnlyError`.
   * Without it, appends take `<file>.lock` and go to the file itself, and a read repairs and migrates as
   * the store does; `createSession` throws `InvalidStoreArgumentError` (the store holds that file only).
   * Throws `SessionCorruptError` when line 1 is not a session header, `InvalidStoreArgumentError` when
   * its id cannot name a session, and the file system's error when the file cannot be opened.
   */
  static async openFile(path: string, options: JsonlOpenFileOptions = {}): Promise<JsonlSessionFile> {
    const absolute = resolve(path);
    const header = readSessionFileHeader(absolute);
    pendingFile = { sessionId: header.id, path: absolute };
    let store: JsonlSessionStore;
    try {
      store = new JsonlSessionStore({ ...options, home: dirname(absolute) });
    } finally {
      pendingFile = undefined;
    }
    return { store, sessionId: header.id, header, path: absolute };
  }

  /** The file of a session, or undefined when the store has no such session. */
  pathOf(sessionId: string): string | undefined {
    assertValidSessionId(sessionId);
    return this.index.find(sessionId);
  }

  /**
   * Creates `<home>/sessions/<encoded cwd>/<timestamp>_<id>.jsonl` (mode 0600, directories 0700) holding
   * the header line, durably, and takes the session's lock.
   *
   * Contract: throws `SessionExistsError` when the id is taken, `SessionReadOnlyError` on a read-only
   * store, `InvalidStoreArgumentError` for an id that cannot name a file or a header without a string
   * `cwd`.
   */
  async createSession(header: SessionHeader): Promise<void> {
    if (this.readOnly) throw new SessionReadOnlyError(String(header?.id), "create");
    if (typeof header !== "object" || header === null) {
      throw new InvalidStoreArgumentError("createSession: the header must be an object.");
    }
    assertValidSessionId(header.id);
    if (typeof header.cwd !== "string" || header.cwd.includes("\0")) {
      throw new InvalidStoreArgumentError(
        `createSession: the header of "${header.id}" needs a string cwd without NUL characters.`,
      );
    }
    if (this.index.pinnedFile() !== undefined) {
      throw new InvalidStoreArgumentError(
        `createSession: this store was opened on one file (openFile) and holds only that session; ` +
          "open a store over a home to create sessions.",
      );
    }
    if (this.index.find(header.id, false) !== undefined) throw new SessionExistsError(header.id);
    let line: Buffer;
    try {
      line = Buffer.from(encodeHeader(header), "utf8");
    } catch (error) {
      throw new InvalidStoreArgumentError(
        `createSession: the header is not JSON data: ${(error as Error).message}`,
      );
    }
    const directory = join(this.sessionsDirectory, encodeCwd(header.cwd));
    this.ensureDirectory(directory);
    const path = join(directory, sessionFileName(header.timestamp, header.id));
    let created = false;
    const existing = createExclusively(this.sessionsDirectory, header.id, this, () => {
      const file = this.fileOf(header.id, path);
      file.lock();
      try {
        created = file.create(line);
      } finally {
        if (!created) this.forget(file);
      }
    });
    if (existing !== undefined) this.index.add(header.id, existing);
    if (!created) throw new SessionExistsError(header.id);
    this.index.add(header.id, path);
  }

  /**
   * Appends a batch: one write of every entry line and the batch trailer, then (with `"fsync"`) one
   * `fdatasync`, shared with appends in flight at the same time.
   *
   * Contract: see {@link SessionStore.appendEntries}. The check of `expectedLastEntryId` is made against
   * the file's real last entry under the lock (lines another program appended are read first). Throws
   * `SessionLockedError` naming the process that holds the session, `SessionReadOnlyError` on a
   * read-only store, and `InvalidStoreArgumentError` (storing nothing) for an entry without a string
   * `type` and `id` and a `parentId`, or that is not JSON data.
   */
  async appendEntries(
    sessionId: string,
    entries: readonly SessionEntry[],
    options?: AppendOptions,
  ): Promise<void> {
    if (this.readOnly) throw new SessionReadOnlyError(sessionId, "append to");
    assertValidSessionId(sessionId);
    const expected = options?.expectedLastEntryId;
    const file = this.fileOf(sessionId, this.requirePath(sessionId));
    if (entries.length === 0) {
      const last = expected === undefined ? undefined : file.peekTally().lastEntryId;
      if (expected !== undefined && last !== expected)
        throw new SessionConflictError(sessionId, expected, last ?? null);
      return;
    }
    validateEntries(sessionId, entries);
    file.prepareAppend();
    const last = file.tally.lastEntryId;
    if (expected !== undefined && expected !== last)
      throw new SessionConflictError(sessionId, expected, last);
    let batch: EncodedBatch;
    try {
      batch = file.encode(entries);
    } catch (error) {
      throw new InvalidStoreArgumentError(
        `appendEntries: a batch for "${sessionId}" is not JSON data: ${(error as Error).message}`,
      );
    }
    await file.append(batch);
  }

  /**
   * Reads a session. Its header and every line's tree fields are read; bodies are parsed when
   * `entry()` is called.
   *
   * Contract: see {@link SessionStore.readSession}. A torn tail (a last line without its newline, or a
   * batch without its trailer) is moved to `<file>.torn` and cut off, unless the store is read-only or
   * another process holds the session (then it is only left out); a version 1 or 2 file is migrated and
   * rewritten (the original kept as `<file>.v<N>.bak`) under the same conditions. Each is reported in
   * `warnings`, as is every skipped line (by its line number).
   */
  async readSession(sessionId: string): Promise<StoredSession> {
    assertValidSessionId(sessionId);
    const file = this.fileOf(sessionId, this.requirePath(sessionId));
    const warnings: string[] = [];
    const scanned = await file.readScanned();
    if (scanned.scan !== undefined) {
      // The common case: a committed file in the current format, scanned without keeping its bytes.
      const { scan } = scanned;
      file.remember(scanned.size, scan.tally);
      for (const warning of scan.warnings) this.context.warn(`${sessionId}: ${warning}`);
      return { header: scanned.header, entries: scan.entries, warnings: [...scan.warnings] };
    }
    // A torn tail, a batch without its trailer at the end, or an old format: read whole.
    let read = file.read();
    if (!this.readOnly && (read.committedEnd < read.buffer.length || needsMigration(read.header))) {
      const holder = file.withExclusive(() => {
        read = file.read(); // Again, now that no other writer can be in the middle of a batch.
        if (needsMigration(read.header)) read = file.migrate(read, warnings);
        if (read.committedEnd < read.buffer.length) file.repairTail(read, warnings);
      });
      if (holder !== undefined) warnings.push(`not repaired: the session is open for writing by ${holder}`);
    }
    if (needsMigration(read.header)) {
      const migrated = migrateSessionBytes(read.buffer.subarray(0, read.committedEnd));
      warnings.push(
        `migrated from format version ${migrated.fromVersion} to 3 in memory only (the file is unchanged)`,
        ...migrated.warnings,
      );
      read = parseFile(sessionId, migrated.bytes);
    }
    if (read.committedEnd < read.buffer.length)
      warnings.push(`${describeTail(read)} left out (the file is unchanged)`);
    const scan = scanEntries(sessionId, read.buffer, read.headerEnd, read.committedEnd);
    warnings.push(...scan.warnings);
    file.remember(read.committedEnd, scan.tally);
    for (const warning of warnings) this.context.warn(`${sessionId}: ${warning}`);
    return { header: read.header, entries: scan.entries, warnings };
  }

  /**
   * Lists sessions, newest activity first.
   *
   * Contract: see {@link SessionStore.listSessions}. Reads each file's header and tail (the last batch
   * trailer holds the totals); memory stays bounded by the number of sessions, not their size.
   */
  async listSessions(query?: ListSessionsQuery): Promise<SessionPage> {
    return listSessionFiles(
      this.sessionsDirectory,
      query,
      this.summaries,
      this.context.warn,
      this.index.pinnedFile(),
    );
  }

  /**
   * Deletes a session's file and its sidecars (`.torn`, migration backups).
   *
   * Contract: see {@link SessionStore.deleteSession}; throws `SessionLockedError` when another process
   * holds the session and `SessionReadOnlyError` on a read-only store.
   */
  async deleteSession(sessionId: string): Promise<void> {
    if (this.readOnly) throw new SessionReadOnlyError(sessionId, "delete");
    assertValidSessionId(sessionId);
    const file = this.fileOf(sessionId, this.requirePath(sessionId));
    file.lock();
    await file.idle();
    const { path } = file;
    try {
      unlinkSync(path);
    } catch (error) {
      this.forget(file);
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      this.index.remove(sessionId);
      throw new SessionNotFoundError(sessionId);
    }
    const directory = dirname(path);
    const name = basename(path);
    for (const sibling of readdirSync(directory)) {
      if (sibling === `${name}.torn` || (sibling.startsWith(`${name}.v`) && sibling.endsWith(".bak"))) {
        unlinkSync(join(directory, sibling));
      }
    }
    if (this.context.durable) syncDirectory(directory);
    this.forget(file);
    this.index.remove(sessionId);
    this.summaries.delete(path);
  }

  /**
   * Follows a session file: `fs.watch` (and a 500 ms size poll behind it) and a read of the batches
   * committed after the last one delivered, whichever process appended them. Takes no lock.
   *
   * Contract: see {@link SessionStore.watch}.
   */
  async watch(sessionId: string, onAppend: SessionAppendListener): Promise<SessionWatch> {
    assertValidSessionId(sessionId);
    const watch = new JsonlWatch(
      sessionId,
      this.requirePath(sessionId),
      onAppend,
      (closed) => {
        this.watches.delete(closed);
      },
      this.context.warn,
    );
    this.watches.add(watch);
    return watch;
  }

  /**
   * Takes the session's writer lease: its `<file>.lock` (the lock appends take), held until the lease is
   * released or the store closed, so another process is refused when it opens the session rather than
   * at its first append. A lock whose process is gone (same host, pid not running or reused) is taken
   * over; the lock file is removed on release and when the process exits.
   *
   * Contract: see {@link SessionStore.acquireWriterLease}; throws `SessionReadOnlyError` on a read-only
   * store.
   */
  async acquireWriterLease(sessionId: string): Promise<SessionWriterLease> {
    if (this.readOnly) throw new SessionReadOnlyError(sessionId, "take the writer lease of");
    assertValidSessionId(sessionId);
    const lease = acquireJsonlLease(`${this.requirePath(sessionId)}.lock`, sessionId, (released) => {
      this.leases.delete(released);
    });
    this.leases.add(lease);
    return lease;
  }

  /**
   * Waits for syncs in flight, closes descriptors, stops every watch and releases every lock and lease
   * this store holds. Idempotent.
   */
  async close(): Promise<void> {
    await Promise.all([...this.watches].map((watch) => watch.close()));
    const files = [...this.files.values()];
    await Promise.all(files.map((file) => file.idle()));
    for (const file of files) this.forget(file);
    await Promise.all([...this.leases].map((lease) => lease.release()));
  }

  private requirePath(sessionId: string): string {
    const path = this.index.find(sessionId);
    if (path === undefined) throw new SessionNotFoundError(sessionId);
    return path;
  }

  private fileOf(sessionId: string, path: string): SessionFile {
    let file = this.files.get(sessionId);
    if (file !== undefined && file.path !== path) {
      this.forget(file);
      file = undefined;
    }
    if (file === undefined) {
      file = new SessionFile(sessionId, path, this.context);
      this.files.set(sessionId, file);
    }
    return file;
  }

  /** Releases a file (descriptor, lock) and forgets what this store knew of it. */
  private forget(file: SessionFile): void {
    file.release();
    if (this.files.get(file.sessionId) === file) this.files.delete(file.sessionId);
  }

  private ensureDirectory(directory: string): void {
    const created = mkdirSync(directory, { recursive: true, mode: 0o700 });
    if (created !== undefined && this.context.durable) syncDirectory(dirname(created));
  }
}

function validateEntries(sessionId: string, entries: readonly SessionEntry[]): void {
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index] as { type?: unknown; id?: unknown; parentId?: unknown } | undefined;
    if (
      typeof entry !== "object" ||
      entry === null ||
      typeof entry.type !== "string" ||
      typeof entry.id !== "string" ||
      (entry.parentId !== null && typeof entry.parentId !== "string")
    ) {
      throw new InvalidStoreArgumentError(
        `appendEntries: entry ${index} of the batch for "${sessionId}" lacks a string "type" and "id" or a ` +
          `"parentId" (string or null).`,
      );
    }
  }
}
