/**
 * Reading a session file to import (`arbor sessions import`): the pi agent's versions 1, 2 and 3 (and
 * Arbor's own files, whose batch framing is dropped), migrated to version 3 and read line by line as every
 * reader reads them (`readSessionEntry`). What cannot be imported as is is reported, never silently
 * changed: lines that are not JSON and entries without the tree fields a store needs are left out; invalid
 * entries, repeated ids and missing parents are kept (a session opens them, leaving them out of the context)
 * and reported as warnings. An entry that lacks only display-only or derivable fields (an older pi agent's
 * assistant message without `usage.totalTokens`) is imported with those fields filled in — Arbor's copy holds
 * the filled entry, so the copy is valid and never needs the repair again; the file itself is never changed —
 * and each filled field is reported as a note, not a warning: nothing is lost and nothing needs doing.
 */

import {
  filledFieldNotice,
  type SessionEntry,
  type SessionHeader,
  type SessionNotice,
} from "@arbor/session-store";
import { migrateSessionLines, readSessionEntry, validateSessionHeader } from "@arbor/session-store/backend";
import { isSessionLine, NEWLINE } from "@arbor/session-store/jsonl-format";
import { ArborUserError } from "../errors.js";

/** A session file read for import. */
export interface ImportedFile {
  header: SessionHeader;
  /** The entries to store: as in the file, or with the fields a note names filled in. */
  entries: SessionEntry[];
  /** The format version the file was written in (1 when its header has no `version`). */
  fromVersion: number;
  /**
   * What was left out or is wrong (warnings), and the fields filled in (notes), each naming its line or entry,
   * in the order found; `summarizeSessionNotices` gives one line per kind.
   */
  notices: SessionNotice[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function warning(kind: string, group: string, message: string, example?: string): SessionNotice {
  const notice: SessionNotice = { level: "warning", kind, message, group };
  if (example !== undefined) notice.example = example;
  return notice;
}

/**
 * Parses, migrates and checks the text of a session file.
 *
 * Contract: pure; O(lines). Throws `ArborUserError` when line 1 is not a session header or the header has no
 * usable `id` / `cwd` (a `cwd` given in `options` replaces the header's). Everything else is reported in
 * `notices`.
 */
export function readSessionFileForImport(
  text: string,
  source: string,
  options: { cwd?: string } = {},
): ImportedFile {
  const notices: SessionNotice[] = [];
  const values: unknown[] = [];
  const lines = text.split(NEWLINE);
  const complete = text.endsWith(NEWLINE);
  lines.forEach((line, index) => {
    if (line.trim() === "") return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      const torn = index === lines.length - 1 && !complete;
      notices.push(
        torn
          ? warning(
              "torn_line",
              "lines are incomplete",
              `line ${index + 1} is incomplete (a write cut short); left out`,
            )
          : warning(
              "not_json",
              "lines are not JSON; they are left out",
              `line ${index + 1} is not JSON; left out`,
              `line ${index + 1}`,
            ),
      );
      return;
    }
    // A `session` line after the header is the JSONL store's batch trailer: framing, not an entry.
    if (values.length > 0 && isSessionLine(value)) return;
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
  for (const message of migration.warnings) {
    notices.push(warning("migration", "problems of the migration to version 3", message));
  }
  const header = migration.header;
  if (options.cwd !== undefined) header.cwd = options.cwd;
  if (typeof header.cwd !== "string" || header.cwd === "") {
    throw new ArborUserError(
      "command_failed",
      `${source} has no working directory in its header ("cwd"); pass --cwd <dir>.`,
    );
  }
  const checked = validateSessionHeader(header);
  if (!checked.ok) notices.push(warning("invalid_header", "header problems", checked.message));

  const entries: SessionEntry[] = [];
  const seen = new Set<string>();
  for (const entry of migration.entries) {
    const { type, id, parentId } = entry as { type: unknown; id: unknown; parentId: unknown };
    if (
      typeof type !== "string" ||
      typeof id !== "string" ||
      (parentId !== null && typeof parentId !== "string")
    ) {
      notices.push(
        warning(
          "no_tree_fields",
          'entries have no string "type" and "id" and a "parentId"; they are left out',
          `an entry without a string "type" and "id" and a "parentId" was left out: ${JSON.stringify(entry).slice(0, 120)}`,
        ),
      );
      continue;
    }
    if (seen.has(id)) {
      notices.push(
        warning(
          "repeated_id",
          "entries repeat an earlier id; a session ignores them",
          `entry "${id}" (${type}) repeats an earlier id; a session ignores it`,
          `entry "${id}"`,
        ),
      );
    } else if (parentId !== null && !seen.has(parentId)) {
      notices.push(
        warning(
          "missing_parent",
          "entries name a parent that does not come before them; they become roots",
          `entry "${id}" (${type}) names parent "${parentId}", which does not come before it; it becomes a root`,
          `entry "${id}"`,
        ),
      );
    }
    const reading = readSessionEntry(entry);
    if (reading.ok) {
      for (const fill of reading.filled) notices.push(filledFieldNotice(id, fill));
      entries.push(reading.value);
    } else {
      notices.push(
        warning(
          "invalid_entry",
          "entries are invalid; they are kept but left out of the context",
          `${reading.message} (kept; left out of the context)`,
        ),
      );
      entries.push(entry);
    }
    seen.add(id);
  }
  return { header, entries, fromVersion: migration.fromVersion, notices };
}
