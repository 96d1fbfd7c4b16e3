/**
 * One session file as a store instance sees it: its lock, its append descriptor, the totals at the
 * committed end of the file, and the operations that need the lock (create, append, repair a torn
 * tail, migrate an old format).
 */
import { closeSync, constants, fstatSync, ftruncateSync, readFileSync, type Stats } from "node:fs";
import { basename, dirname } from "node:path";
import { type SessionEntry, SessionLockedError, SessionNotFoundError } from "@arbor/session-store";
import { needsMigration } from "@arbor/session-store/backend";
import { AppendBuffer } from "./append-buffer.js";
import { type EncodedBatch, emptyTally, encodeBatch, type SessionTally } from "./batch-format.js";
import { createFilled } from "./create-filled.js";
import { moveTornTail, syncDirectory, tornSidecarPath, writeAll } from "./durability.js";
import { GroupCommit } from "./group-commit.js";
import { migrateSessionBytes, replaceWithBackup } from "./migration.js";
import { openRegularFile } from "./regular-file.js";
import { describeTail, parseFile, type ReadFile } from "./scanner.js";
import { readAndScan, type ScannedFile } from "./scanning-read.js";
import { acquireLock, describeHolder, lockHolder, releaseLock } from "./session-lock.js";
import { readHeader, summarizeTail } from "./tail-summary.js";

/** What a session file needs from its store. */
export interface SessionFileHost {
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
  /**
   * Bytes known to be committed (the file's size after our last write or check, plus the batches held
   * back in {@link out}); -1 when unknown.
   */
  private knownSize = -1;
  /** Totals at `knownSize`. */
  private knownTally: SessionTally = emptyTally();
  /** The file's size once its batches before those held back were written. */
  private writtenSize = -1;
  /** Totals at `writtenSize`. */
  private writtenTally: SessionTally = emptyTally();
  /**
   * Encoded batches not yet written: durable appends are held back here and written in one piece just
   * before the sync that covers them starts.
   */
  private readonly out = new AppendBuffer();
  /** The error of the last failed write (it does not make the file's state unknown). */
  private writeError: unknown;
  /** Set when a sync failed: what is on disk is unknown until the store is closed. */
  private failure: Error | undefined;

  constructor(
    readonly sessionId: string,
    readonly path: string,
    private readonly context: SessionFileHost,
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
   * Creates the file holding `line` (the header) exclusively, never visible empty ({@link createFilled}),
   * mode 0600, durably; the caller holds the lock. Returns false when a file of that name exists.
   */
  create(line: Buffer): boolean {
    const fd = createFilled(this.path, line, this.context.durable);
    if (fd === undefined) return false;
    if (this.context.durable) syncDirectory(dirname(this.path));
    this.open(fd);
    this.settle(line.length, emptyTally());
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
    // Batches held back for the next sync: this one joins them (the file is checked when they are written).
    if (this.out.length > 0) return;
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
   * Encodes a batch after the committed totals (after {@link prepareAppend}), ready for
   * {@link append}. Throws, keeping nothing of it, when an entry is not JSON data.
   */
  encode(entries: readonly SessionEntry[]): EncodedBatch {
    return encodeBatch(this.out, entries, this.knownTally);
  }

  /**
   * Commits the batch just encoded: writes it and, when durable, waits for the sync that covers it.
   * When durable, the batch is held back and written (with every batch held back with it, in one
   * write) just before the sync that covers it starts. A failed write is cut back off the file.
   */
  async append(batch: EncodedBatch): Promise<void> {
    this.knownSize += batch.byteLength;
    this.knownTally = batch.tally;
    if (!this.context.durable) {
      this.writeHeldBack();
      return;
    }
    try {
      await this.commit!.sync();
    } catch (error) {
      if (error !== this.writeError) this.failure = error as Error;
      throw error;
    }
  }

  /** Records the totals of a full read made under the lock, when the file has not changed since. */
  remember(committedEnd: number, tally: SessionTally): void {
    if (this.fd !== undefined && this.out.length === 0 && fstatSync(this.fd).size === committedEnd) {
      this.settle(committedEnd, tally);
    }
  }

  /** The committed totals, read from the tail without the lock (or known, when nothing changed). */
  peekTally(): SessionTally {
    if (this.out.length > 0) return this.knownTally;
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
    this.commit?.close();
    this.out.clear();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.commit = undefined;
    this.knownSize = -1;
  }

  private open(fd: number): void {
    this.fd = fd;
    this.commit = new GroupCommit(fd, (later) => this.writeBeforeSync(later));
    this.knownSize = -1;
  }

  /** The file's state after a write or a check: nothing held back, `size` bytes with `tally`. */
  private settle(size: number, tally: SessionTally): void {
    this.knownSize = this.writtenSize = size;
    this.knownTally = this.writtenTally = tally;
  }

  /**
   * Writes the batches held back, in one write. On failure what was written of them is cut back off
   * the file and they are forgotten (their callers are rejected).
   */
  private writeHeldBack(): void {
    const out = this.out;
    if (out.length === 0) return;
    try {
      writeAll(this.fd!, out.bytes, out.length);
    } catch (error) {
      try {
        ftruncateSync(this.fd!, this.writtenSize);
      } catch {
        this.failure = error as Error;
      }
      out.clear();
      this.knownSize = this.writtenSize;
      this.knownTally = this.writtenTally;
      this.writeError = error;
      throw error;
    }
    out.clear();
    this.settle(this.knownSize, this.knownTally);
  }

  /**
   * The group commit's hook: writes the batches held back for the sync. When they waited for another
   * sync to complete, the file is checked first: if it grew meanwhile (another program appended
   * without the lock), they are still written, after those lines, and the totals are read again from
   * the file before the next append. (Batches written in the turn they were appended in were checked
   * by {@link prepareAppend}.)
   */
  private writeBeforeSync(later: boolean): void {
    if (this.out.length === 0) return;
    const size = later ? fstatSync(this.fd!).size : this.writtenSize;
    if (size === this.writtenSize) {
      this.writeHeldBack();
      return;
    }
    this.writtenSize = size;
    try {
      this.writeHeldBack();
    } finally {
      this.knownSize = -1;
    }
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
    this.settle(summary.committedEnd, summary.tally);
  }
}
