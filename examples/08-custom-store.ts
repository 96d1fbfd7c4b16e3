/**
 * 08 — a custom session store: what a third party writes to add a storage backend to Arbor, and how it
 * proves the backend right with the shared conformance suite. The backend here keeps sessions in any
 * key-value service with get / set / delete / scan (a `Map` stands in for Redis, DynamoDB, a KV
 * binding…): each session is a header key, an entries key (the JSON text of every entry, in append
 * order) and a summary key, so listing never loads a session. It implements `SessionStore` from
 * `@arbor/session-store`, shares the listing order and cursors through `compareListing` /
 * `encodeListingCursor`, and throws the shared errors (`SessionConflictError`, …).
 *
 * Running the file (offline, no API key) uses the store with `Session`, then runs
 * `describeSessionStore()` on it through vitest's Node API — the same suite the JSONL, SQLite and
 * PostgreSQL stores pass:
 *
 *   pnpm exec tsx --conditions=@arbor/source examples/08-custom-store.ts
 */
import { fileURLToPath } from "node:url";
import { InvalidArgumentError } from "@arbor/ai-providers";
import {
  type AppendOptions,
  type ListSessionsQuery,
  SessionConflictError,
  SessionCorruptError,
  type SessionEntry,
  SessionExistsError,
  type SessionHeader,
  SessionNotFoundError,
  type SessionPage,
  type SessionStore,
  type SessionSummary,
  type StoredEntry,
  type StoredSession,
} from "@arbor/session-store";
import { compareListing, decodeListingCursor, encodeListingCursor } from "@arbor/session-store/backend";

/** The storage a deployment already has: a key-value service. */
export interface KeyValue {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string): Promise<void>;
  delete(key: string): Promise<void>;
  /** Every key starting with `prefix`. */
  keys(prefix: string): Promise<string[]>;
}

/** A `Map` as the key-value service (a real one would be a network client). */
export class MapKeyValue implements KeyValue {
  readonly map = new Map<string, string>();
  async get(key: string) {
    return this.map.get(key);
  }
  async set(key: string, value: string) {
    this.map.set(key, value);
  }
  async delete(key: string) {
    this.map.delete(key);
  }
  async keys(prefix: string) {
    return [...this.map.keys()].filter((key) => key.startsWith(prefix));
  }
}

interface Row {
  type: string;
  id: string;
  parentId: string | null;
  json: string;
}

/** An entry whose body is parsed on the first `entry()` call, as the `StoredEntry` contract allows. */
class LazyEntry implements StoredEntry {
  private parsed: SessionEntry | undefined;
  constructor(
    readonly type: string,
    readonly id: string,
    readonly parentId: string | null,
    private readonly json: string,
  ) {}
  entry(): SessionEntry {
    this.parsed ??= JSON.parse(this.json) as SessionEntry;
    return this.parsed;
  }
}

function json(value: unknown, what: string): string {
  try {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  } catch {
    // Reported below.
  }
  throw new InvalidArgumentError(`${what} is not JSON data.`);
}

/** A {@link SessionStore} over a {@link KeyValue} service. */
export class KeyValueSessionStore implements SessionStore {
  /** Appends of this process, one after the other (a shared service would use its own CAS). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly kv: KeyValue) {}

  async createSession(header: SessionHeader): Promise<void> {
    if ((await this.kv.get(`h:${header.id}`)) !== undefined) throw new SessionExistsError(header.id);
    await this.kv.set(`h:${header.id}`, json(header, "The header"));
    await this.kv.set(`e:${header.id}`, "[]");
    const summary: SessionSummary = {
      id: header.id,
      cwd: header.cwd,
      createdAt: header.timestamp,
      updatedAt: header.timestamp,
      messageCount: 0,
    };
    if (header.parentSession !== undefined) summary.parentSession = header.parentSession;
    await this.kv.set(`s:${header.id}`, JSON.stringify(summary));
  }

  appendEntries(sessionId: string, entries: readonly SessionEntry[], options?: AppendOptions): Promise<void> {
    const run = this.queue.then(() => this.append(sessionId, entries, options));
    this.queue = run.catch(() => {});
    return run;
  }

  private async append(sessionId: string, entries: readonly SessionEntry[], options?: AppendOptions) {
    const stored = await this.kv.get(`e:${sessionId}`);
    const summaryText = await this.kv.get(`s:${sessionId}`);
    if (stored === undefined || summaryText === undefined) throw new SessionNotFoundError(sessionId);
    const rows = JSON.parse(stored) as Row[];
    const last = rows.at(-1)?.id ?? null;
    const expected = options?.expectedLastEntryId;
    if (expected !== undefined && expected !== last)
      throw new SessionConflictError(sessionId, expected, last);
    if (entries.length === 0) return;
    const summary = JSON.parse(summaryText) as SessionSummary;
    const added = entries.map((entry) => ({
      type: entry.type,
      id: entry.id,
      parentId: entry.parentId,
      json: json(entry, `Entry "${entry.id}"`),
    }));
    for (const entry of entries as (SessionEntry & { name?: unknown })[]) {
      if (entry.type === "message") summary.messageCount += 1;
      if (entry.type === "session_info" && typeof entry.name === "string") summary.name = entry.name.trim();
      if (typeof entry.timestamp === "string") summary.updatedAt = entry.timestamp;
    }
    await this.kv.set(`e:${sessionId}`, JSON.stringify([...rows, ...added]));
    await this.kv.set(`s:${sessionId}`, JSON.stringify(summary));
  }

  async readSession(sessionId: string): Promise<StoredSession> {
    const headerText = await this.kv.get(`h:${sessionId}`);
    const stored = await this.kv.get(`e:${sessionId}`);
    if (headerText === undefined || stored === undefined) throw new SessionNotFoundError(sessionId);
    let header: SessionHeader;
    try {
      header = JSON.parse(headerText) as SessionHeader;
    } catch (error) {
      throw new SessionCorruptError(sessionId, "the header is not JSON", { cause: error });
    }
    const rows = JSON.parse(stored) as Row[];
    const entries = rows.map((row) => new LazyEntry(row.type, row.id, row.parentId, row.json));
    return { header, entries, warnings: [] };
  }

  async listSessions(query?: ListSessionsQuery): Promise<SessionPage> {
    const limit = query?.limit ?? 50;
    const after = query?.cursor === undefined ? undefined : decodeListingCursor(query.cursor);
    const summaries: SessionSummary[] = [];
    for (const key of await this.kv.keys("s:")) {
      const summary = JSON.parse((await this.kv.get(key)) ?? "null") as SessionSummary | null;
      if (summary === null || (query?.cwd !== undefined && summary.cwd !== query.cwd)) continue;
      if (after !== undefined && compareListing(after, summary) >= 0) continue;
      if (summary.name === "") delete summary.name;
      summaries.push(summary);
    }
    summaries.sort(compareListing);
    const sessions = summaries.slice(0, limit);
    const last = sessions.at(-1);
    if (summaries.length <= limit || last === undefined) return { sessions };
    return { sessions, nextCursor: encodeListingCursor(last) };
  }

  async deleteSession(sessionId: string): Promise<void> {
    if ((await this.kv.get(`s:${sessionId}`)) === undefined) throw new SessionNotFoundError(sessionId);
    for (const prefix of ["h", "e", "s"]) await this.kv.delete(`${prefix}:${sessionId}`);
  }
}

// Inside the vitest run started below, this file registers the conformance suite on the store.
if (process.env.ARBOR_EXAMPLE_SUITE === "08") {
  const { describeSessionStore } = await import("@internal/conformance");
  const shared = new MapKeyValue(); // Instances share storage, as processes sharing a service do.
  describeSessionStore({
    name: "KeyValueSessionStore",
    create: () => new KeyValueSessionStore(shared),
    corrupt: (_store, sessionId) => shared.set(`h:${sessionId}`, "{not json"),
  });
} else {
  const { Session } = await import("@arbor/session-store");
  const store = new KeyValueSessionStore(new MapKeyValue());
  const session = await Session.create(store, { cwd: "/projects/demo" });
  session.appendMessage({ role: "user", content: [{ type: "text", text: "Hello" }], timestamp: Date.now() });
  session.appendSessionInfo("custom store demo");
  await session.flush();
  const reopened = await Session.open(store, session.id);
  console.log(`session ${session.id}: ${reopened.buildContext().messages.length} message after reopening`);
  console.log(`listing: ${JSON.stringify((await store.listSessions()).sessions.map((s) => s.name))}`);

  console.log("running describeSessionStore() on KeyValueSessionStore:");
  const { startVitest } = await import("vitest/node");
  process.env.ARBOR_EXAMPLE_SUITE = "08"; // Seen by vitest's workers: they register the suite.
  const file = fileURLToPath(import.meta.url);
  const conditions = ["@arbor/source", "import", "module", "node", "default"];
  const vitest = await startVitest(
    "test",
    [],
    { root: fileURLToPath(new URL(".", import.meta.url)), include: [file], watch: false, config: false },
    { resolve: { conditions }, ssr: { resolve: { conditions } } },
  );
  await vitest.close();
  const failed = vitest.state.getCountOfFailedTests();
  console.log(failed === 0 ? "conformance: passed" : `conformance: ${failed} failed`);
  process.exitCode = failed === 0 && process.exitCode !== 1 ? 0 : 1;
}
