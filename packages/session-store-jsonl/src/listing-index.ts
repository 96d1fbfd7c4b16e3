/**
 * The listing index: what `listSessions` learned of each session file (its summary, or only the last
 * entry's id and time for a file not counted yet), kept in memory and in a small file beside the
 * sessions (`sessions/.listing-index.json`), so that a later listing — in this process or another —
 * costs one `stat` per file. An entry holds while the file's size, mtime and inode are unchanged; the
 * file is only a cache: a missing, damaged or foreign one is ignored and rewritten.
 */
import { closeSync, openSync, readFileSync, renameSync, type Stats, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { SessionSummary } from "@arbor/session-store";

/** Name of the index file, in the sessions directory. */
export const LISTING_INDEX_FILE = ".listing-index.json";

const FORMAT = "arbor-listing-index/1";

/** One file's entry: valid while `key` matches the file's stat. */
export interface ListingIndexEntry {
  key: string;
  summary: SessionSummary;
  /** False when `messageCount` and `name` are not known yet (only the tail was read). */
  complete: boolean;
}

/** The identity of a file's contents as far as the index is concerned. */
export function listingKey(stat: Stats): string {
  return `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
}

/** The in-memory index of a store, loaded from and saved to its file (see the module comment). */
export class ListingIndex {
  readonly entries = new Map<string, ListingIndexEntry>();
  private loaded = false;
  private dirty = false;

  constructor(
    private readonly sessionsDirectory: string,
    /** Read-only stores read the file but never write it. */
    private readonly persist: boolean,
  ) {}

  /** Loads the file once (missing or unreadable: an empty index). */
  load(): void {
    if (this.loaded) return;
    this.loaded = true;
    let data: unknown;
    try {
      data = JSON.parse(readFileSync(join(this.sessionsDirectory, LISTING_INDEX_FILE), "utf8"));
    } catch {
      return;
    }
    const file = data as { format?: unknown; entries?: unknown };
    if (typeof data !== "object" || data === null || file.format !== FORMAT || !Array.isArray(file.entries))
      return;
    for (const item of file.entries as unknown[]) {
      const [path, key, complete, summary] = Array.isArray(item) ? item : [];
      if (
        typeof path !== "string" ||
        typeof key !== "string" ||
        typeof summary !== "object" ||
        summary === null
      )
        continue;
      const value = summary as SessionSummary;
      if (typeof value.id !== "string" || typeof value.updatedAt !== "string") continue;
      this.entries.set(path, { key, complete: complete === true, summary: { ...value, location: path } });
    }
  }

  get(path: string): ListingIndexEntry | undefined {
    return this.entries.get(path);
  }

  set(path: string, entry: ListingIndexEntry): void {
    this.entries.set(path, entry);
    this.dirty = true;
  }

  delete(path: string): void {
    if (this.entries.delete(path)) this.dirty = true;
  }

  /** Writes the file when something changed (atomically: a temporary file renamed over it). */
  save(): void {
    if (!this.dirty || !this.persist) return;
    this.dirty = false;
    const entries = [...this.entries].map(([path, { key, complete, summary }]) => {
      const { location: _location, ...rest } = summary;
      return [path, key, complete, rest];
    });
    const target = join(this.sessionsDirectory, LISTING_INDEX_FILE);
    const temporary = `${target}.${process.pid}.tmp`;
    try {
      const fd = openSync(temporary, "w", 0o600);
      try {
        writeSync(fd, JSON.stringify({ format: FORMAT, entries }));
      } finally {
        closeSync(fd);
      }
      renameSync(temporary, target);
    } catch {
      // Only a cache: a listing that cannot save it (no sessions directory yet, a read-only disk) still works.
      try {
        unlinkSync(temporary);
      } catch {}
    }
  }
}
