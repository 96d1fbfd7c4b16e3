/**
 * Opening a pi-agent version 1 or 2 file: `migrateSessionLines()` (from `@arbor/session-store`, a pure
 * function) brings its lines to version 3, and this module writes the result to a temporary file that
 * is renamed over the original, the original kept as `<file>.v<N>.bak` (a hard link, so the session
 * file is never missing, not even for an instant).
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  linkSync,
  openSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import type { SessionEntry, SessionHeader } from "@arbor/session-store";
import { migrateSessionLines } from "@arbor/session-store/backend";
import { NEWLINE } from "@arbor/session-store/jsonl-format";
import { AppendBuffer } from "./append-buffer.js";
import { emptyTally, encodeBatch, encodeHeader } from "./batch-format.js";
import { syncDirectory } from "./durability.js";

/** A migrated session, encoded as the bytes of a version-3 file. */
export interface MigratedSession {
  bytes: Buffer;
  fromVersion: number;
  warnings: string[];
}

/**
 * Migrates the bytes of an old session file: every line is parsed (lines that are not JSON are left
 * out with a warning naming them), migrated, and encoded as a header and one committed batch.
 */
export function migrateSessionBytes(buffer: Buffer): MigratedSession {
  const lines: unknown[] = [];
  const warnings: string[] = [];
  const text = buffer.toString("utf8");
  let lineNumber = 0;
  for (const line of text.split(NEWLINE)) {
    lineNumber++;
    if (line.trim() === "") continue;
    try {
      lines.push(JSON.parse(line));
    } catch {
      warnings.push(`line ${lineNumber}: not valid JSON; left out of the migrated file (kept in the backup)`);
    }
  }
  const migration = migrateSessionLines(lines);
  const header: SessionHeader = migration.header;
  const entries: SessionEntry[] = migration.entries;
  const head = Buffer.from(encodeHeader(header), "utf8");
  let bytes = head;
  if (entries.length > 0) {
    const out = new AppendBuffer();
    encodeBatch(out, entries, emptyTally());
    bytes = Buffer.concat([head, out.bytes.subarray(0, out.length)]);
  }
  return { bytes, fromVersion: migration.fromVersion, warnings: [...warnings, ...migration.warnings] };
}

/**
 * Replaces the file at `path` with `bytes` atomically and keeps the original as a backup.
 *
 * Contract: the caller holds the session's lock. Returns the backup's path. On failure the original
 * is untouched (a temporary file may be left behind and is removed when possible).
 */
export function replaceWithBackup(
  path: string,
  bytes: Buffer,
  fromVersion: number,
  durable: boolean,
): string {
  const directory = dirname(path);
  const temporary = join(directory, `.${basename(path)}.migrating-${process.pid}`);
  let backup = `${path}.v${fromVersion}.bak`;
  if (existsSync(backup)) backup = `${path}.v${fromVersion}.${Date.now()}.bak`;
  const fd = openSync(temporary, "w", 0o600);
  try {
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
    if (durable) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temporary);
    throw error;
  }
  closeSync(fd);
  linkSync(path, backup);
  renameSync(temporary, path);
  if (durable) syncDirectory(directory);
  return backup;
}
