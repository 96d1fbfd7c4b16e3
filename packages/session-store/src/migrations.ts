import { createHash } from "node:crypto";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "./entries.js";

/** The result of {@link migrateSessionLines}. */
export interface SessionMigration {
  /** The header, now at {@link CURRENT_SESSION_VERSION}. */
  header: SessionHeader;
  /** The entries, in the order of the input lines. */
  entries: SessionEntry[];
  /** The version the lines were at (1 when the header had no `version`). */
  fromVersion: number;
  /** What could not be migrated exactly (e.g. a compaction index pointing nowhere). */
  warnings: string[];
}

type Line = Record<string, unknown>;

function isRecord(value: unknown): value is Line {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The format version of a header; 1 when it has none (version 1 headers had no `version`). */
export function sessionVersionOf(header: unknown): number {
  if (!isRecord(header) || typeof header.version !== "number") return 1;
  return header.version;
}

/** True when a session with this header must be migrated before it is opened. */
export function needsMigration(header: unknown): boolean {
  return sessionVersionOf(header) < CURRENT_SESSION_VERSION;
}

/**
 * A deterministic 8-hex id for the entry on line `line` of session `sessionId`: migrating the same
 * file twice gives the same ids, so a reader that migrates in memory and a store that rewrites the
 * file agree.
 */
function migratedId(sessionId: string, line: number, taken: Set<string>): string {
  for (let attempt = 0; ; attempt++) {
    const id = createHash("sha256")
      .update(`${sessionId}\u0000${line}\u0000${attempt}`)
      .digest("hex")
      .slice(0, 8);
    if (!taken.has(id)) {
      taken.add(id);
      return id;
    }
  }
}

/**
 * Version 1 → 2: entries get ids and form a chain (each entry's parent is the line before it), and a
 * compaction's `firstKeptEntryIndex` (an index into the file's lines, the header being line 0) becomes
 * `firstKeptEntryId`.
 */
function migrateVersion1(header: Line, entries: Line[], warnings: string[]): void {
  const sessionId = typeof header.id === "string" ? header.id : "";
  const taken = new Set<string>();
  let parentId: string | null = null;
  for (const [index, entry] of entries.entries()) {
    const id =
      typeof entry.id === "string" && !taken.has(entry.id)
        ? entry.id
        : migratedId(sessionId, index + 1, taken);
    taken.add(id);
    entry.id = id;
    entry.parentId = parentId;
    parentId = id;
  }
  for (const [index, entry] of entries.entries()) {
    if (entry.type !== "compaction" || !("firstKeptEntryIndex" in entry)) continue;
    const lineIndex = entry.firstKeptEntryIndex;
    delete entry.firstKeptEntryIndex;
    if (typeof entry.firstKeptEntryId === "string") continue;
    // Line 0 is the header: keeping from it means keeping from the first entry.
    const usable = typeof lineIndex === "number" && Number.isInteger(lineIndex) && lineIndex >= 0;
    const target = usable && lineIndex <= index + 1 ? entries[Math.max(lineIndex, 1) - 1] : undefined;
    if (target !== undefined) {
      entry.firstKeptEntryId = target.id;
    } else {
      entry.firstKeptEntryId = entry.id;
      warnings.push(
        `Compaction "${String(entry.id)}" (line ${index + 1}) had firstKeptEntryIndex ${JSON.stringify(lineIndex)}, ` +
          "which names no earlier line; it now keeps nothing before itself.",
      );
    }
  }
}

/** Version 2 → 3: the message role `hookMessage` was renamed `custom`. */
function migrateVersion2(entries: Line[]): void {
  for (const entry of entries) {
    if (entry.type === "message" && isRecord(entry.message) && entry.message.role === "hookMessage") {
      entry.message.role = "custom";
    }
  }
}

/**
 * Brings the lines of a pi-agent / Arbor session file (parsed JSON, header first) to the current
 * format version:
 *
 * - version 1 (no `version` in the header; entries without `id`/`parentId`): each entry gets a
 *   deterministic 8-hex id (derived from the session id and the line number) unless it has a usable one,
 *   and the entries form a chain in line order; a compaction's `firstKeptEntryIndex` (index into the
 *   lines, header = 0) becomes `firstKeptEntryId`;
 * - version 2: messages with role `hookMessage` get role `custom`;
 * - the header's `version` becomes {@link CURRENT_SESSION_VERSION}.
 *
 * Lines that are not JSON objects are left out with a warning. Unknown fields and entry types are kept.
 *
 * Contract: pure — never mutates `lines` (it works on a deep copy) and returns the same output for the
 * same input, so a store may migrate a file in memory and later rewrite it with identical ids. Lines
 * already at the current version are returned as copies, unchanged. Throws `TypeError` when the first
 * line is not a session header (`type: "session"` with a string `id`). Rewriting the file (to a
 * temporary file, renamed over the original, the original kept as a backup) is the store's job.
 */
export function migrateSessionLines(lines: readonly unknown[]): SessionMigration {
  const [first, ...rest] = lines;
  if (!isRecord(first) || first.type !== "session" || typeof first.id !== "string") {
    throw new TypeError("migrateSessionLines: the first line must be a session header with a string id.");
  }
  const header = structuredClone(first);
  const warnings: string[] = [];
  const entries: Line[] = [];
  for (const [index, line] of rest.entries()) {
    if (isRecord(line)) entries.push(structuredClone(line));
    else warnings.push(`Line ${index + 1} is not a JSON object; left out.`);
  }
  const fromVersion = sessionVersionOf(header);
  if (fromVersion < 2) migrateVersion1(header, entries, warnings);
  if (fromVersion < 3) migrateVersion2(entries);
  if (fromVersion < CURRENT_SESSION_VERSION) header.version = CURRENT_SESSION_VERSION;
  return {
    header: header as SessionHeader,
    entries: entries as SessionEntry[],
    fromVersion,
    warnings,
  };
}
