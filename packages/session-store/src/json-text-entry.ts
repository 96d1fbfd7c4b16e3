/**
 * For backends that keep entries and headers as JSON text (database rows): a stored entry whose tree
 * fields come from the row's columns and whose body is parsed on the first `entry()` call, and the
 * check of a stored header.
 */
import type { SessionEntry, SessionHeader } from "./entries.js";
import { SessionCorruptError } from "./errors.js";
import type { StoredEntry } from "./store.js";

/** A {@link StoredEntry} over a row's JSON text, parsed once, lazily. */
export class JsonTextEntry implements StoredEntry {
  private parsed: SessionEntry | undefined;

  /**
   * @param seq - the row's position in the session (0-based), for error messages
   */
  constructor(
    private readonly sessionId: string,
    readonly seq: number,
    readonly type: string,
    readonly id: string,
    readonly parentId: string | null,
    private readonly body: string,
  ) {}

  /**
   * The full entry, unknown fields included.
   *
   * Contract: parses the row at most once and returns the same object on every call; throws
   * `SessionCorruptError` (naming the row) when its text is not JSON or disagrees with its columns.
   */
  entry(): SessionEntry {
    if (this.parsed !== undefined) return this.parsed;
    this.parsed = parseEntryText(this.sessionId, this.body, this, `row ${this.seq}`);
    return this.parsed;
  }
}

/**
 * Parses an entry's JSON text and checks it against the tree fields a store indexed it by (its `type`,
 * `id` and `parentId` columns, or what a scanner read) — the one rule every store's lazy
 * `StoredEntry.entry()` follows.
 *
 * Contract: returns the parsed entry, unknown fields included; throws `SessionCorruptError` naming
 * `where` (e.g. `row 12`, `line 40`) when the text is not JSON or disagrees with those fields.
 */
export function parseEntryText(
  sessionId: string,
  text: string,
  expected: { readonly type: string; readonly id: string; readonly parentId: string | null },
  where: string,
): SessionEntry {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new SessionCorruptError(
      sessionId,
      `${where} (entry "${expected.id}") is not valid JSON: ${(error as Error).message}`,
      { cause: error },
    );
  }
  const entry = value as SessionEntry;
  if (
    typeof value !== "object" ||
    value === null ||
    entry.type !== expected.type ||
    entry.id !== expected.id ||
    (entry.parentId ?? null) !== expected.parentId
  ) {
    throw new SessionCorruptError(
      sessionId,
      `${where} (entry "${expected.id}") does not match its type, id and parentId`,
    );
  }
  return entry;
}

/**
 * Parses a stored header's JSON text.
 *
 * Contract: throws `SessionCorruptError` when the text is not JSON or not a `{"type":"session"}` header
 * naming `sessionId`.
 */
export function parseStoredHeader(sessionId: string, text: string): SessionHeader {
  let header: SessionHeader;
  try {
    header = JSON.parse(text) as SessionHeader;
  } catch (error) {
    throw new SessionCorruptError(sessionId, "the header is not valid JSON", { cause: error });
  }
  if (typeof header !== "object" || header === null || header.type !== "session" || header.id !== sessionId) {
    throw new SessionCorruptError(sessionId, "the header is not a session header for this id");
  }
  return header;
}

/**
 * The plain text of a stored `message` entry's JSON (`{"message":{"content":…}}`): a string content as
 * is, the `text` blocks of an array joined by spaces — what a listing shows as a session's first message.
 *
 * Contract: never throws; `undefined` for text that is not such an entry or has no text.
 */
export function storedMessageText(body: string | null | undefined): string | undefined {
  if (typeof body !== "string") return undefined;
  let content: unknown;
  try {
    content = (JSON.parse(body) as { message?: { content?: unknown } } | null)?.message?.content;
  } catch {
    return undefined;
  }
  const text =
    typeof content === "string"
      ? content
      : Array.isArray(content)
        ? content
            .filter(
              (block): block is { type: "text"; text: string } =>
                block?.type === "text" && typeof block.text === "string",
            )
            .map((block) => block.text)
            .join(" ")
        : "";
  const trimmed = text.trim();
  return trimmed === "" ? undefined : trimmed;
}
