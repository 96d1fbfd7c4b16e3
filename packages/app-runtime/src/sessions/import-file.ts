/**
 * Reading a session file to import (`arbor sessions import`): the pi agent's versions 1, 2 and 3 (and
 * Arbor's own files, whose batch framing is dropped), migrated to version 3 and checked line by line. What
 * cannot be imported as is is reported, never silently changed: lines that are not JSON and entries without
 * the tree fields a store needs are left out; invalid entries, repeated ids and missing parents are kept (a
 * session opens them, leaving them out of the context) and reported.
 */

import type { SessionEntry, SessionHeader } from "@arbor/session-store";
import {
  migrateSessionLines,
  validateSessionEntry,
  validateSessionHeader,
} from "@arbor/session-store/backend";
import { ArborUserError } from "../errors.js";

/** A session file read for import. */
export interface ImportedFile {
  header: SessionHeader;
  entries: SessionEntry[];
  /** The format version the file was written in (1 when its header has no `version`). */
  fromVersion: number;
  /** What was left out or is wrong, each naming its line or entry. */
  warnings: string[];
}

/** Most warnings of one kind listed before they are counted instead. */
const MAX_WARNINGS_PER_KIND = 20;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Collects warnings, listing at most {@link MAX_WARNINGS_PER_KIND} of each kind and counting the rest. */
class WarningList {
  readonly listed: string[] = [];
  private readonly counts = new Map<string, number>();

  add(kind: string, message: string): void {
    const count = (this.counts.get(kind) ?? 0) + 1;
    this.counts.set(kind, count);
    if (count <= MAX_WARNINGS_PER_KIND) this.listed.push(message);
  }

  result(): string[] {
    const summary: string[] = [];
    for (const [kind, count] of this.counts) {
      if (count > MAX_WARNINGS_PER_KIND) summary.push(`… and ${count - MAX_WARNINGS_PER_KIND} more: ${kind}`);
    }
    return [...this.listed, ...summary];
  }
}

/**
 * Parses, migrates and checks the text of a session file.
 *
 * Contract: pure; O(lines). Throws `ArborUserError` when line 1 is not a session header or the header has no
 * usable `id` / `cwd` (a `cwd` given in `options` replaces the header's). Everything else is reported in
 * `warnings`.
 */
export function readSessionFileForImport(
  text: string,
  source: string,
  options: { cwd?: string } = {},
): ImportedFile {
  const warnings = new WarningList();
  const values: unknown[] = [];
  const lines = text.split("\n");
  const complete = text.endsWith("\n");
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const torn = index === lines.length - 1 && !complete;
      warnings.add(
        "lines that are not JSON",
        torn
          ? `line ${index + 1} is incomplete (a write cut short); left out`
          : `line ${index + 1} is not JSON; left out`,
      );
      return;
    }
    // A `session` line after the header is the JSONL store's batch trailer: framing, not an entry.
    if (values.length > 0 && isRecord(value) && value.type === "session") return;
    values.push(value);
  });
  const first = values[0];
  if (!isRecord(first) || first.type !== "session" || typeof first.id !== "string" || first.id === "") {
    throw new ArborUserError(
      "command_failed",
      `${source} is not a session file: line 1 must be a header {"type":"session","id":…}.`,
    );
  }
  const migration = migrateSessionLines(values);
  for (const warning of migration.warnings) warnings.add("migration notes", warning);
  const header = migration.header;
  if (options.cwd !== undefined) header.cwd = options.cwd;
  if (typeof header.cwd !== "string" || header.cwd === "") {
    throw new ArborUserError(
      "command_failed",
      `${source} has no working directory in its header ("cwd"); pass --cwd <dir>.`,
    );
  }
  const checked = validateSessionHeader(header);
  if (!checked.ok) warnings.add("header problems", checked.message);

  const entries: SessionEntry[] = [];
  const seen = new Set<string>();
  for (const entry of migration.entries) {
    const { type, id, parentId } = entry as { type: unknown; id: unknown; parentId: unknown };
    if (
      typeof type !== "string" ||
      typeof id !== "string" ||
      (parentId !== null && typeof parentId !== "string")
    ) {
      warnings.add(
        "entries without type, id or parentId",
        `an entry without a string "type" and "id" and a "parentId" was left out: ${JSON.stringify(entry).slice(0, 120)}`,
      );
      continue;
    }
    if (seen.has(id))
      warnings.add("repeated ids", `entry "${id}" (${type}) repeats an earlier id; a session ignores it`);
    else if (parentId !== null && !seen.has(parentId)) {
      warnings.add(
        "missing parents",
        `entry "${id}" (${type}) names parent "${parentId}", which does not come before it; it becomes a root`,
      );
    }
    const valid = validateSessionEntry(entry);
    if (!valid.ok) warnings.add("invalid entries", `${valid.message} (kept; left out of the context)`);
    seen.add(id);
    entries.push(entry);
  }
  return { header, entries, fromVersion: migration.fromVersion, warnings: warnings.result() };
}
