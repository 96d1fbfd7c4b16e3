/**
 * What reading a session found, as data: each notice has a level (a warning: something is left out or
 * changed; a note: a field filled in while reading, nothing lost), a kind, the message naming its entry, and
 * the phrase that describes many of its kind at once. {@link summarizeSessionNotices} turns them into one
 * line per kind — what every user-facing list of a session's warnings prints.
 */
import type { FilledField } from "./lenient-read.js";

/** `warning`: something is left out of the session or its context, or changed; `note`: nothing is lost. */
export type SessionNoticeLevel = "warning" | "note";

/** One thing reading a session found. */
export interface SessionNotice {
  level: SessionNoticeLevel;
  /** What kind of thing it is (`invalid_entry`, `filled assistant usage.totalTokens`, `store: …`): one summary line per kind. */
  kind: string;
  /** The whole message, naming the entry or line. */
  message: string;
  /** The entry it is about, when there is one. */
  entryId?: string;
  /** What many of this kind are, after their count: "entries are invalid; they are left out of the context". */
  group: string;
  /** What names this one among others of its kind in a summary (default: {@link message}). */
  example?: string;
}

/** An example longer than this is the only one a summary line gives. */
const LONG_EXAMPLE = 80;
/** Longest example quoted in a summary line. */
const MAX_EXAMPLE = 200;

function shortened(text: string): string {
  return text.length <= MAX_EXAMPLE ? text : `${text.slice(0, MAX_EXAMPLE - 1)}…`;
}

/**
 * The notice of a field filled in while reading an entry (level `note`): e.g. "453 assistant messages had no
 * usage.totalTokens: filled from their token counts" in a summary.
 */
export function filledFieldNotice(entryId: string, fill: FilledField): SessionNotice {
  const [one, many] =
    fill.role === undefined
      ? [`${fill.entryType} entry`, `${fill.entryType} entries`]
      : [`${fill.role} message`, `${fill.role} messages`];
  return {
    level: "note",
    kind: `filled ${one} ${fill.field}`,
    message: `Entry "${entryId}" (${one}) had no ${fill.field}: ${fill.how}.`,
    entryId,
    group: `${many} had no ${fill.field}: ${fill.how}`,
    example: `entry ${entryId}`,
  };
}

/** A store's warning (plain text): warnings that differ only in the line they name are one kind. */
export function storeNotice(message: string): SessionNotice {
  const located = /^(lines? [\d,-]+): (.+)$/s.exec(message);
  if (located === null)
    return { level: "warning", kind: `store: ${message}`, message, group: `× ${message}` };
  const [, where, what] = located as unknown as [string, string, string];
  return { level: "warning", kind: `store: ${what}`, message, group: `lines: ${what}`, example: where };
}

/**
 * One line per kind of notice, in the order each kind was first found: the message itself for a kind found
 * once, else its count and group phrase with one or two examples — e.g. `453 entries are invalid; they are
 * left out of the context (e.g. Entry "dd1329f5" (message) is invalid: …; Entry "94ce9e2d" …)`. With
 * `level`, only the notices of that level.
 *
 * Contract: pure; O(notices).
 */
export function summarizeSessionNotices(
  notices: readonly SessionNotice[],
  level?: SessionNoticeLevel,
): string[] {
  const kinds = new Map<string, SessionNotice[]>();
  for (const notice of notices) {
    if (level !== undefined && notice.level !== level) continue;
    const group = kinds.get(notice.kind);
    if (group === undefined) kinds.set(notice.kind, [notice]);
    else group.push(notice);
  }
  const lines: string[] = [];
  for (const group of kinds.values()) {
    const first = group[0] as SessionNotice;
    if (group.length === 1) {
      lines.push(first.message);
      continue;
    }
    // Two examples, or one when it is long.
    const head = shortened(first.example ?? first.message);
    const second = group[1] as SessionNotice;
    const examples =
      head.length > LONG_EXAMPLE ? [head] : [head, shortened(second.example ?? second.message)];
    lines.push(`${group.length.toLocaleString("en-US")} ${first.group} (e.g. ${examples.join("; ")})`);
  }
  return lines;
}

/** The number of notices of a level. */
export function countSessionNotices(notices: readonly SessionNotice[], level: SessionNoticeLevel): number {
  let count = 0;
  for (const notice of notices) if (notice.level === level) count++;
  return count;
}
