/**
 * One session file as a store instance sees it: its lock, its append descriptor, the totals at the
 * committed end of the file, and the operations that need the lock (create, append, repair a torn
 * tail, migrate an old format).
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  openSync,
  readFileSync,
  type Stats,
  unlinkSync,
} from "node:fs";
import { basename, dirname } from "node:path";
import { SessionLockedError, SessionNotFoundError } from "@arbor/session-store";
import { needsMigration } from "@arbor/session-store/backend";
import { type EncodedBatch, emptyTally, type SessionTally } from "./batch-format.js";
import { moveTornTail, syncDirectory, tornSidecarPath, writeAll, writeText } from "./durability.js";
import { GroupCommit } from "./group-commit.js";
import { migrateSessionBytes, replaceWithBackup } from "./migration.js";
import { openRegularFile } from "./regular-file.js";
import { describeTail, parseFile, type ReadFile } from "./scanner.js";
import { readAndScan, type ScannedFile } from "./scanning-read.js";
import { acquireLock, describeHolder, lockHolder, releaseLock } from "./session-lock.js";
import { readHeader, summarizeTail } from "./tail-summary.js";

/** What a session file needs from its store. */
export interface SessionFileContext {
  /** The lock owner (the store instance). */
  readonly owner: object;
  /** Sync writes to disk (`durability: "fsync"`). */
  readonly durable: boolean;
  /** Reports a repair or a migration made while writing. */
  warn(message: string): void;
  /** Called when the file turns out to be gone (deleted by someone else). */
  vanished(file: SessionFile): void;
}

/** A session file and what this store knows and holds of it. */
export class SessionFile {
  /** This store holds (a share of) the process's lock. */
  locked = false;
  /** Read-write append descriptor, open while writing. */
  private fd: number | undefined;
  private commit: GroupCommit | undefined;
  /** Bytes known to be committed (the file's size after our last write or check); -1 when unknown. */
  private knownSize = -1;
  /** Totals at `knownSize`. */
  private knownTally: SessionTally = emptyTally();
  /** Set when a sync failed: what is on disk is unknown until the store is closed. */
  private failure: Error | undefined;

  constructor(
    readonly sessionId: string,
    readonly path: string,
    private readonly context: SessionFileContext,
  ) {}

  get lockPath(): string {
    return `${this.path}.lock`;
  }

  /** The totals at the committed end, as of the last {@link prepareAppend}. */
  get tally(): SessionTally {
    return this.knownTally;
  }

  /** Takes (or joins this process's hold of) the lock. Throws `SessionLockedError`. */
  lock(): void {
    if (this.locked) return;
    acquireLock(this.lockPath, this.context.owner, this.sessionId);
    this.locked = true;
  }

  /** Closes the descriptor and releases the lock (after syncs in flight, with {@link idle} first). */
  release(): void {
    this.closeDescriptor();
    if (this.locked) releaseLock(this.lockPath, this.context.owner);
    this.locked = false;
  }

  /** Resolves when no sync is in flight. */
  async idle(): Promise<void> {
    await this.commit?.idle();
  }

  /**
   * Creates the file holding `line` (the header) exclusively (a hard link of a written temporary file,
   * so it never appears empty), mode 0600, durably; the caller holds the lock. Returns false when a file
   * of that name exists.
   */
  create(line: Buffer): boolean {
    // The header is written to a temporary name first and linked into place (link fails when the name
    // exists), so no reader ever finds the session's file without its header.
    const temporary = `${this.path}.creating-${process.pid}`;
    const flags = constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND;
    const fd = openSync(temporary, flags, 0o600);
    try {
      writeAll(fd, line);
      if (this.context.durable) fsyncSync(fd);
      linkSync(temporary, this.path);
    } catch (error) {
      closeSync(fd);
      unlinkSync(temporary);
      if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
      throw error;
    }
    unlinkSync(temporary);
    if (this.context.durable) syncDirectory(dirname(this.path));
    this.open(fd);
    this.knownSize = line.length;
    this.knownTally = emptyTally();
    return true;
  }

  /**
   * Locks the file, opens it for appending and brings the totals up to date with what is on disk:
   * lines another program appended are counted, a torn tail is moved aside, an old format migrated.
   *
   * Contract: throws `SessionLockedError`, `SessionNotFoundError` (the file is gone), or the error of
   * an earlier failed sync.
   */
  prepareAppend(): void {
    this.lock();
    if (this.failure !== undefined) throw this.failure;
    let stat = this.fd === undefined ? undefined : fstatSync(this.fd);
    if (stat !== undefined && !this.isStillThePath(stat)) {
      // Replaced underneath (an editor saving a copy, another tool rewriting it): append to the new file.
      this.closeDescriptor();
      stat = undefined;
    }
    if (this.fd === undefined) {
      try {
        this.open(openRegularFile(this.path, constants.O_RDWR | constants.O_APPEND));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") throw this.gone();
        throw error;
      }
    }
    stat ??= fstatSync(this.fd!);
    if (this.knownSize < 0 || stat.size !== this.knownSize) this.refresh(stat.size);
  }

  /**
   * Writes a batch with one write (after {@link prepareAppend}) and, when durable, waits for the sync
   * that covers it. A failed write is cut back off the file.
   */
  async append(batch: EncodedBatch): Promise<void> {
    const fd = this.fd!;
    try {
      writeText(fd, batch.text, batch.byteLength);
    } catch (error) {
      try {
        ftruncateSync(fd, this.knownSize);
      } catch {
        this.failure = error as Error;
      }
      throw error;
    }
    this.knownSize += batch.byteLength;
    this.knownTally = batch.tally;
    if (!this.context.durable) return;
    try {
      await this.commit!.sync();
    } catch (error) {
      this.failure = error as Error;
      throw error;
    }
  }

  /** Records the totals of a full read made under the lock, when the file has not changed since. */
  remember(committedEnd: number, tally: SessionTally): void {
    if (this.fd !== undefined && fstatSync(this.fd).size === committedEnd) {
      this.knownSize = committedEnd;
      this.knownTally = tally;
    }
  }

  /** The committed totals, read from the tail without the lock (or known, when nothing changed). */
  peekTally(): SessionTally {
    if (this.fd !== undefined && this.knownSize === fstatSync(this.fd).size) return this.knownTally;
    let fd: number;
    try {
      fd = openRegularFile(this.path, constants.O_RDONLY);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw this.gone();
      throw error;
    }
    try {
      const size = fstatSync(fd).size;
      const { headerEnd } = readHeader(fd, size, this.sessionId);
      return summarizeTail(fd, size, headerEnd).tally;
    } finally {
      closeSync(fd);
    }
  }

  /**
   * Runs `action` holding the lock, taking it only for the action when not held already. Returns the
   * holder's description instead when another process holds it.
   */
  withExclusive(action: () => void): string | undefined {
    const wasLocked = this.locked;
    try {
      this.lock();
    } catch (error) {
      if (error instanceof SessionLockedError)
        return describeHolder(lockHolder(this.lockPath), this.lockPath);
      throw error;
    }
    try {
      action();
    } finally {
      if (!wasLocked) this.release();
    }
    return undefined;
  }

  /**
   * Reads the whole file, scanning its entries while the rest is still being read (see
   * `readAndScan`). Throws `SessionNotFoundError`, or `SessionCorruptError` for a bad header.
   */
  async readScanned(): Promise<ScannedFile> {
    try {
      closeSync(openRegularFile(this.path, constants.O_RDONLY));
      return await readAndScan(this.path, this.sessionId);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw this.gone();
      throw error;
    }
  }

  /** Reads the whole file. Throws `SessionNotFoundError`, or `SessionCorruptError` for a bad header. */
  read(): ReadFile {
    let buffer: Buffer;
    try {
      const fd = openRegularFile(this.path, constants.O_RDONLY);
      try {
        buffer = readFileSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") throw this.gone();
      throw error;
    }
    return parseFile(this.sessionId, buffer);
  }

  /** Rewrites an old-format file as version 3, keeping a backup (the caller holds the lock). */
  migrate(read: ReadFile, warnings: string[]): ReadFile {
    const migrated = migrateSessionBytes(read.buffer);
    const hadDescriptor = this.fd !== undefined;
    this.closeDescriptor();
    const backup = replaceWithBackup(this.path, migrated.bytes, migrated.fromVersion, this.context.durable);
    if (hadDescriptor) this.open(openRegularFile(this.path, constants.O_RDWR | constants.O_APPEND));
    warnings.push(
      `migrated from format version ${migrated.fromVersion} to 3; the original is kept as ${basename(backup)}`,
      ...migrated.warnings,
    );
    return parseFile(this.sessionId, migrated.bytes);
  }

  /** Moves the torn tail of a file just read aside (the caller holds the lock). */
  repairTail(read: ReadFile, warnings: string[]): void {
    const description = describeTail(read);
    const fd = this.fd ?? openRegularFile(this.path, constants.O_RDWR);
    try {
      moveTornTail(fd, this.path, read.committedEnd);
    } finally {
      if (this.fd === undefined) closeSync(fd);
    }
    warnings.push(
      `${description} moved to ${basename(tornSidecarPath(this.path))}; the file was truncated to ` +
        `${read.committedEnd} bytes`,
    );
    read.buffer = read.buffer.subarray(0, read.committedEnd);
    this.knownSize = -1;
  }

  /**
   * False when the open descriptor's file was unlinked: deleted, or replaced by a new file at the same
   * path (an editor saving a copy, a tool rewriting it), which is then opened instead.
   */
  private isStillThePath(stat: Stats): boolean {
    return stat.nlink > 0;
  }

  private closeDescriptor(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.commit = undefined;
    this.knownSize = -1;
  }

  private open(fd: number): void {
    this.fd = fd;
    this.commit = new GroupCommit(fd);
    this.knownSize = -1;
  }

  private gone(): SessionNotFoundError {
    this.release();
    this.context.vanished(this);
    return new SessionNotFoundError(this.sessionId);
  }

  /** Re-reads the tail of a locked file that changed (or was never read). */
  private refresh(size: number): void {
    const fd = this.fd!;
    const { header, headerEnd } = readHeader(fd, size, this.sessionId);
    if (needsMigration(header)) {
      const warnings: string[] = [];
      this.migrate(this.read(), warnings);
      for (const warning of warnings) this.context.warn(`${this.sessionId}: ${warning}`);
      this.refresh(fstatSync(this.fd!).size);
      return;
    }
    const base =
      this.knownSize >= 0 && size > this.knownSize
        ? { offset: this.knownSize, tally: this.knownTally }
        : undefined;
    const summary = summarizeTail(fd, size, headerEnd, base);
    if (summary.committedEnd < size) {
      const moved = moveTornTail(fd, this.path, summary.committedEnd);
      this.context.warn(
        `${this.sessionId}: the last ${moved} bytes (a write cut short) were moved to ` +
          `${basename(tornSidecarPath(this.path))} and the file truncated to ${summary.committedEnd} bytes`,
      );
    }
    this.knownSize = summary.committedEnd;
    this.knownTally = summary.tally;
  }
}
