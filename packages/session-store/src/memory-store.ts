import { InvalidArgumentError } from "@arbor/ai-providers";
import type { SessionEntry, SessionHeader } from "./entries.js";
import {
  SessionConflictError,
  SessionCorruptError,
  SessionExistsError,
  SessionNotFoundError,
} from "./errors.js";
import { storedMessageText } from "./json-text-entry.js";
import { compareListing, decodeListingCursor, encodeListingCursor } from "./listing-order.js";
import type {
  AppendOptions,
  ListSessionsQuery,
  SessionPage,
  SessionStore,
  SessionSummary,
  StoredEntry,
  StoredSession,
} from "./store.js";

/** Default page size of {@link MemorySessionStore.listSessions}. */
const DEFAULT_PAGE_SIZE = 50;

/** One stored entry: its tree fields and its JSON text. */
export interface MemoryEntryRecord {
  type: string;
  id: string;
  parentId: string | null;
  json: string;
}

/** One stored session. The summary fields are kept up to date on every write, so listing parses nothing. */
export interface MemorySessionRecord {
  /** The header's JSON text. */
  header: string;
  entries: MemoryEntryRecord[];
  cwd: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  name?: string;
  parentSession?: string;
  /** The text of the first user message (`SessionSummary.firstMessage`). */
  firstMessage?: string;
}

function toJson(value: unknown, what: string): string {
  try {
    const json = JSON.stringify(value);
    if (json === undefined) throw new TypeError("not JSON data");
    return json;
  } catch (error) {
    throw new InvalidArgumentError(
      `${what} is not JSON data: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** A {@link StoredEntry} over JSON text, parsed on first use. */
class MemoryStoredEntry implements StoredEntry {
  private parsed: SessionEntry | undefined;

  constructor(
    private readonly sessionId: string,
    private readonly record: MemoryEntryRecord,
  ) {}

  get type(): string {
    return this.record.type;
  }

  get id(): string {
    return this.record.id;
  }

  get parentId(): string | null {
    return this.record.parentId;
  }

  entry(): SessionEntry {
    if (this.parsed === undefined) {
      try {
        this.parsed = JSON.parse(this.record.json) as SessionEntry;
      } catch (error) {
        throw new SessionCorruptError(this.sessionId, `entry "${this.record.id}" is not valid JSON`, {
          cause: error,
        });
      }
    }
    return this.parsed;
  }
}

/**
 * The reference {@link SessionStore}: sessions live in this object's memory, each entry kept as its
 * JSON text — so a stored value is a deep copy that no caller can change, `undefined` fields vanish
 * exactly as they do in a JSONL file, and `entry()` parses lazily like the JSONL store does.
 *
 * Passes `describeSessionStore()`. Subclasses (tests) may reach the raw records through `sessions`.
 */
export class MemorySessionStore implements SessionStore {
  /** The stored sessions by id. */
  protected readonly sessions = new Map<string, MemorySessionRecord>();

  /**
   * Contract: throws `SessionExistsError` when the id is taken and `InvalidArgumentError` when the
   * header is not JSON data; stores a deep copy.
   */
  async createSession(header: SessionHeader): Promise<void> {
    if (this.sessions.has(header.id)) throw new SessionExistsError(header.id);
    const json = toJson(header, "The session header");
    const record: MemorySessionRecord = {
      header: json,
      entries: [],
      cwd: header.cwd,
      createdAt: header.timestamp,
      updatedAt: header.timestamp,
      messageCount: 0,
    };
    if (header.parentSession !== undefined) record.parentSession = header.parentSession;
    this.sessions.set(header.id, record);
  }

  /**
   * Contract: see {@link SessionStore.appendEntries}. The whole batch is serialized before anything is
   * stored, so a batch with a value that is not JSON data (or an entry without a string `id` / `type`)
   * throws `InvalidArgumentError` and stores nothing.
   */
  async appendEntries(
    sessionId: string,
    entries: readonly SessionEntry[],
    options?: AppendOptions,
  ): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (session === undefined) throw new SessionNotFoundError(sessionId);
    const last = session.entries.at(-1)?.id ?? null;
    const expected = options?.expectedLastEntryId;
    if (expected !== undefined && expected !== last)
      throw new SessionConflictError(sessionId, expected, last);
    if (entries.length === 0) return;
    const records = entries.map((entry, index): MemoryEntryRecord => {
      const { type, id, parentId } = entry as { type: unknown; id: unknown; parentId: unknown };
      if (
        typeof type !== "string" ||
        typeof id !== "string" ||
        (parentId !== null && typeof parentId !== "string")
      ) {
        throw new InvalidArgumentError(
          `Entry ${index} of the batch lacks a string "type" and "id" or a "parentId" (string or null).`,
        );
      }
      return { type, id, parentId, json: toJson(entry, `Entry "${id}"`) };
    });
    for (const [index, record] of records.entries()) {
      session.entries.push(record);
      const entry = entries[index] as { timestamp?: unknown; name?: unknown; message?: { role?: unknown } };
      if (record.type === "message") {
        session.messageCount += 1;
        if (session.firstMessage === undefined && entry.message?.role === "user") {
          const text = storedMessageText(record.json);
          if (text !== undefined) session.firstMessage = text;
        }
      }
      if (record.type === "session_info" && typeof entry.name === "string") {
        const name = entry.name.trim();
        if (name === "") delete session.name;
        else session.name = name;
      }
      if (typeof entry.timestamp === "string") session.updatedAt = entry.timestamp;
    }
  }

  /** Contract: see {@link SessionStore.readSession}; each `entry()` returns its own parsed copy. */
  async readSession(sessionId: string): Promise<StoredSession> {
    const session = this.sessions.get(sessionId);
    if (session === undefined) throw new SessionNotFoundError(sessionId);
    let header: SessionHeader;
    try {
      header = JSON.parse(session.header) as SessionHeader;
    } catch (error) {
      throw new SessionCorruptError(sessionId, "the header is not valid JSON", { cause: error });
    }
    if (
      typeof header !== "object" ||
      header === null ||
      header.type !== "session" ||
      header.id !== sessionId
    ) {
      throw new SessionCorruptError(sessionId, "the header is not a session header for this id");
    }
    return {
      header,
      entries: session.entries.map((record) => new MemoryStoredEntry(sessionId, record)),
      warnings: [],
    };
  }

  /** Contract: see {@link SessionStore.listSessions}; parses nothing (the summaries are kept on write). */
  async listSessions(query?: ListSessionsQuery): Promise<SessionPage> {
    const limit = query?.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new InvalidArgumentError(`listSessions: limit must be a positive integer, received ${limit}.`);
    }
    const after = query?.cursor === undefined ? undefined : decodeListingCursor(query.cursor);
    const candidates: SessionSummary[] = [];
    for (const [id, session] of this.sessions) {
      if (query?.cwd !== undefined && session.cwd !== query.cwd) continue;
      if (after !== undefined && compareListing(after, { id, updatedAt: session.updatedAt }) >= 0) continue;
      const summary: SessionSummary = {
        id,
        cwd: session.cwd,
        createdAt: session.createdAt,
        updatedAt: session.updatedAt,
        messageCount: session.messageCount,
      };
      if (session.name !== undefined) summary.name = session.name;
      if (session.parentSession !== undefined) summary.parentSession = session.parentSession;
      if (session.firstMessage !== undefined) summary.firstMessage = session.firstMessage;
      candidates.push(summary);
    }
    candidates.sort(compareListing);
    const sessions = candidates.slice(0, limit);
    const last = sessions.at(-1);
    if (candidates.length <= limit || last === undefined) return { sessions };
    return { sessions, nextCursor: encodeListingCursor({ updatedAt: last.updatedAt, id: last.id }) };
  }

  /** Contract: see {@link SessionStore.deleteSession}. */
  async deleteSession(sessionId: string): Promise<void> {
    if (!this.sessions.delete(sessionId)) throw new SessionNotFoundError(sessionId);
  }

  /** Nothing to release; harmless to call any number of times. */
  async close(): Promise<void> {}
}
