import { InvalidArgumentError } from "@arbor/ai-providers";
import {
  buildSessionContext,
  type SessionContext,
  type SessionSettings,
  sessionSettings,
} from "./build-context.js";
import { contextOrders } from "./context-bodies.js";
import {
  type ActiveToolsChangeEntry,
  type BranchSummaryEntry,
  type CompactionEntry,
  CURRENT_SESSION_VERSION,
  type CustomEntry,
  type CustomMessageEntry,
  type LabelEntry,
  type LeafEntry,
  type MessageEntry,
  type ModelChangeEntry,
  type PruneEntry,
  type SessionEntry,
  type SessionHeader,
  type SessionInfoEntry,
  type ThinkingLevelChangeEntry,
} from "./entries.js";
import { SessionEntryNotFoundError, UnsupportedSessionVersionError } from "./errors.js";
import { forkSession } from "./fork.js";
import { generateEntryId, generateSessionId } from "./ids.js";
import { lazyEntry } from "./lazy-entry.js";
import type { StoredMessage } from "./message-schemas.js";
import { NONE, SessionIndex } from "./session-index.js";
import { type SessionNotice, storeNotice, summarizeSessionNotices } from "./session-notices.js";
import type {
  AppendableMessage,
  BranchSummaryInput,
  CompactionInput,
  CreateSessionOptions,
  CustomMessageInput,
  ForkOptions,
  MoveResult,
  PruneInput,
  SessionOptions,
} from "./session-options.js";
import { buildTree, refOf, type SessionEntryRef, type SessionTreeNode } from "./session-tree.js";
import type { SessionStore, StoredEntry, StoredSession } from "./store.js";
import { validateSessionHeader } from "./validate.js";

/** A {@link StoredEntry} over an entry this process holds in memory. */
function heldEntry(entry: SessionEntry): StoredEntry {
  return { type: entry.type, id: entry.id, parentId: entry.parentId, entry: () => entry };
}

/**
 * A session as a tree (docs/session-format.md): the entries of a {@link SessionStore} indexed by
 * id, children, labels and name, the current leaf, the context of a path, and appends.
 *
 * Opening reads only each entry's tree fields (`type`, `id`, `parentId`) plus the small entries whose
 * effect is global (`label`, `session_info`, `leaf`); message bodies are parsed only when the context or
 * a caller needs them. Appends are synchronous in memory (the entry gets a fresh 8-hex id, the current
 * leaf as parent and an ISO timestamp, and becomes the leaf) and queued; {@link flush} writes the queue
 * in one atomic batch guarded by `expectedLastEntryId` — the save point.
 */
export class Session {
  private readonly index: SessionIndex;
  private readonly pending: SessionEntry[] = [];
  private lastStoredEntryId: string | null = null;
  private headerStored = true;
  private flushChain: Promise<void> = Promise.resolve();
  private readonly now: () => Date;
  /** The store's loader of left-out bodies (a session opened with `bodies: "context"`). */
  private loader: StoredSession["loadEntries"];

  private constructor(
    /** The store the session reads from and flushes to. */
    readonly store: SessionStore,
    /** The session's header (line 1), unknown fields included. */
    readonly header: SessionHeader,
    stored: Pick<StoredSession, "entries"> & { notices: readonly SessionNotice[] },
    options: SessionOptions | undefined,
  ) {
    this.now = options?.now ?? (() => new Date());
    this.index = new SessionIndex(stored.entries.length + 64);
    this.index.notices.push(...stored.notices);
    for (const entry of stored.entries) this.index.add(entry);
    this.lastStoredEntryId = stored.entries.at(-1)?.id ?? null;
  }

  /**
   * Creates a new, empty session in the store.
   *
   * Contract: writes the header at once (`SessionExistsError` when the id is taken), or with the first
   * flush that has entries when `createOnFirstFlush` is set (that flush then rejects with
   * `SessionExistsError` for a taken id, and nothing is stored before it).
   */
  static async create(store: SessionStore, options: CreateSessionOptions): Promise<Session> {
    const header: SessionHeader = {
      type: "session",
      version: CURRENT_SESSION_VERSION,
      id: options.id ?? generateSessionId(),
      timestamp: (options.now?.() ?? new Date()).toISOString(),
      cwd: options.cwd,
    };
    if (options.parentSession !== undefined) header.parentSession = options.parentSession;
    if (options.metadata !== undefined) header.metadata = structuredClone(options.metadata);
    if (options.createOnFirstFlush !== true) await store.createSession(header);
    const session = new Session(store, header, { entries: [], notices: [] }, options);
    session.headerStored = options.createOnFirstFlush !== true;
    return session;
  }

  /**
   * Opens a stored session.
   *
   * Contract: throws the store's `SessionNotFoundError` / `SessionCorruptError`, and
   * `UnsupportedSessionVersionError` for a version 1 or 2 session (migrate it first). Damaged entries
   * never make it fail: they are reported in {@link notices} and left out of the context; entries that
   * lack only display-only or derivable fields are read with those filled in (`repairSessionEntry`).
   * With `options.bodies: "context"` it reads the tree and only the bodies the current leaf's context
   * needs (see {@link SessionOptions.bodies} and {@link loadEntries}).
   */
  static async open(store: SessionStore, sessionId: string, options?: SessionOptions): Promise<Session> {
    const deferred = options?.bodies === "context";
    const stored = deferred
      ? await store.readSession(sessionId, { deferBodies: true })
      : await store.readSession(sessionId);
    const version = stored.header.version as unknown;
    if (typeof version !== "number" || version < CURRENT_SESSION_VERSION) {
      throw new UnsupportedSessionVersionError(sessionId, version);
    }
    const notices = stored.warnings.map(storeNotice);
    const header = validateSessionHeader(stored.header);
    if (!header.ok) {
      notices.push({ level: "warning", kind: "invalid_header", message: header.message, group: "headers" });
    }
    if (version > CURRENT_SESSION_VERSION) {
      const message = `Session "${sessionId}" has format version ${version}, newer than ${CURRENT_SESSION_VERSION}.`;
      notices.push({ level: "warning", kind: "newer_version", message, group: "headers" });
    }
    const session = new Session(store, stored.header, { entries: stored.entries, notices }, options);
    if (deferred && stored.loadEntries !== undefined) {
      session.loader = stored.loadEntries.bind(stored);
      const leaf = session.leafId === null ? undefined : session.index.orderOf(session.leafId);
      if (leaf !== undefined) await session.loadOrders(contextOrders(session.index, leaf));
    }
    return session;
  }

  /**
   * Loads entry bodies a session opened with `bodies: "context"` left out: those of `entryIds`, or of
   * every entry when none are named. A no-op for a session opened otherwise or from a store that reads
   * bodies on demand anyway.
   *
   * Contract: after it resolves, every named entry (or every entry) reads synchronously — `getEntry`,
   * `getBranch`, the tree's `entry()`, `buildContext` of a leaf whose context is loaded; loaded bodies
   * stay loaded; throws `SessionEntryNotFoundError` for an unknown id (loading nothing) and the store's
   * errors.
   */
  async loadEntries(entryIds?: Iterable<string>): Promise<void> {
    if (this.loader === undefined) return;
    if (entryIds === undefined) {
      await this.loadOrders(Array.from({ length: this.index.size }, (_, order) => order));
      return;
    }
    await this.loadOrders(Array.from(entryIds, (id) => this.nodeOf(id)));
  }

  /**
   * Loads what a walk from the root to `leafId` (default: the current leaf) reads — what `getBranch`,
   * `fork` and a context of that leaf need — for a session opened with `bodies: "context"`; a no-op
   * otherwise.
   *
   * Contract: as {@link loadEntries}.
   */
  async loadBranch(leafId: string | null = this.leafId): Promise<void> {
    if (this.loader === undefined || leafId === null) return;
    await this.loadOrders(this.index.path(this.nodeOf(leafId)));
  }

  private async loadOrders(orders: readonly number[]): Promise<void> {
    if (this.loader === undefined || orders.length === 0) return;
    await this.loader(orders.map((order) => this.index.storedAt(order)));
  }

  /** The session id. */
  get id(): string {
    return this.header.id;
  }

  /** The working directory of the session. */
  get cwd(): string {
    return this.header.cwd;
  }

  /** The current leaf: the next entry is appended as its child (`null`: before the first entry). */
  get leafId(): string | null {
    return this.index.leafId;
  }

  /** The session's display name: the latest non-empty `session_info` name. */
  get name(): string | undefined {
    return this.index.name;
  }

  /**
   * What reading the session found so far, in the order found: warnings (store warnings, damaged, invalid or
   * misplaced entries: something left out or changed) and notes (fields an older or foreign writer left out,
   * filled in while reading: nothing lost). Entries are checked when first used (the context, the tree's
   * `entry()`), so this grows as the session is read.
   */
  get notices(): readonly SessionNotice[] {
    return this.index.notices;
  }

  /**
   * The warnings among {@link notices}, for people: one line per kind, in the order each kind was first
   * found — the message itself for a kind found once, else the count with one or two examples (see
   * `summarizeSessionNotices`). Notes are not warnings: they are not listed here.
   */
  get warnings(): readonly string[] {
    return summarizeSessionNotices(this.index.notices, "warning");
  }

  /** False until the store holds the session (a session created with `createOnFirstFlush` and not flushed yet). */
  get isStored(): boolean {
    return this.headerStored;
  }

  /** Number of appended entries not yet written by {@link flush}. */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** Number of entries (stored and pending). */
  get entryCount(): number {
    return this.index.size;
  }

  /** True when the session holds an entry with this id. */
  has(entryId: string): boolean {
    return this.index.has(entryId);
  }

  /**
   * The full entry (parsed and checked against its type's schema on first use), or undefined when unknown,
   * unreadable or invalid for its type (reported once in {@link warnings}).
   */
  getEntry(entryId: string): SessionEntry | undefined {
    const order = this.index.orderOf(entryId);
    return order === undefined ? undefined : this.index.validEntry(order);
  }

  /** The current label of an entry. */
  getLabel(entryId: string): string | undefined {
    return this.index.labels.get(entryId);
  }

  /** The children of an entry (`null`: the roots), in append order. Parses nothing. */
  children(entryId: string | null): SessionEntryRef[] {
    const order = entryId === null ? NONE : this.index.orderOf(entryId);
    if (order === undefined) return [];
    return this.index.children(order).map((child) => refOf(this.index, child));
  }

  /** The whole tree, roots first, children in append order. O(entries); parses nothing. */
  getTree(): SessionTreeNode[] {
    return buildTree(this.index);
  }

  /** The path from the root to `leafId` (default: the current leaf), as references. Parses nothing. */
  getPath(leafId: string | null = this.leafId): SessionEntryRef[] {
    if (leafId === null) return [];
    return this.index.path(this.nodeOf(leafId)).map((order) => refOf(this.index, order));
  }

  /** The number of entries on the path from the root to `leafId` (default: the current leaf): `getPath().length`, in O(1). */
  pathLength(leafId: string | null = this.leafId): number {
    return leafId === null ? 0 : this.index.depthOf(this.nodeOf(leafId));
  }

  /**
   * The entries from the root to `leafId` (default: the current leaf). A walk of the index: an entry not
   * read yet is handed out unparsed, its `type`, `id` and `parentId` answered by the index, and is parsed
   * on first access to any other field (an unreadable one then shows only those three fields). For the
   * model's context use {@link buildContext}, which reads far less.
   */
  getBranch(leafId: string | null = this.leafId): SessionEntry[] {
    if (leafId === null) return [];
    return this.index.path(this.nodeOf(leafId)).map((order) => lazyEntry(this.index, order));
  }

  /**
   * The context of the path ending at `leafId` (default: the current leaf), as docs/session-format.md
   * describes it; see `buildSessionContext` for the steps.
   *
   * Contract: O(entries on the path since its latest compaction + that compaction's kept span); never
   * reads the rest of the session. Every tool call in the result has exactly one result. The messages
   * are the session's own objects: treat them as read-only.
   */
  buildContext(leafId: string | null = this.leafId): SessionContext {
    if (leafId !== null) this.nodeOf(leafId);
    return buildSessionContext(this.index, leafId);
  }

  /**
   * The thinking level, model and active tools in effect at a leaf (default: the current one) — what
   * {@link buildContext} reports — without building the messages.
   *
   * Contract: parses the path's settings entries and the messages after the context's last assistant
   * message only (see `sessionSettings`).
   */
  settingsAt(leafId: string | null = this.leafId): SessionSettings {
    if (leafId !== null) this.nodeOf(leafId);
    return sessionSettings(this.index, leafId);
  }

  /** Appends a message (user, assistant, toolResult, custom, bashExecution or an application's role). */
  appendMessage(message: AppendableMessage): MessageEntry {
    const role = (message as { role: unknown }).role;
    if (role === "compactionSummary" || role === "branchSummary") {
      throw new InvalidArgumentError(
        `appendMessage: a ${role} message is not stored as a message; use appendCompaction() or appendBranchSummary().`,
      );
    }
    return this.append({ type: "message", ...this.base(), message: message as StoredMessage });
  }

  /**
   * Appends a compaction: from now on the context starts with its summary, then the path from
   * `firstKeptEntryId`. Throws `SessionEntryNotFoundError` when that entry is not on the current path.
   */
  appendCompaction(input: CompactionInput): CompactionEntry {
    let onPath = false;
    const index = this.index;
    const leaf = this.leafId === null ? undefined : index.orderOf(this.leafId);
    for (let order = leaf ?? NONE; order !== NONE && !onPath; order = index.parentOf(order)) {
      onPath = index.idOf(order) === input.firstKeptEntryId;
    }
    if (!onPath) throw new SessionEntryNotFoundError(this.id, input.firstKeptEntryId);
    const entry: CompactionEntry = {
      type: "compaction",
      ...this.base(),
      summary: input.summary,
      firstKeptEntryId: input.firstKeptEntryId,
      tokensBefore: input.tokensBefore,
    };
    if (input.details !== undefined) entry.details = input.details;
    if (input.fromHook !== undefined) entry.fromHook = input.fromHook;
    return this.append(entry);
  }

  /**
   * Appends a prune: from now on the context shows the named tool results as one-line stubs (see
   * `prunedToolResult`); the entries themselves stay whole. Throws `InvalidArgumentError` for an empty
   * list and `SessionEntryNotFoundError` for an id that is not on the current path. O(path).
   */
  appendPrune(input: PruneInput): PruneEntry {
    if (input.entryIds.length === 0) {
      throw new InvalidArgumentError("appendPrune: name at least one tool result entry to prune.");
    }
    const missing = new Set(input.entryIds);
    const index = this.index;
    const leaf = this.leafId === null ? undefined : index.orderOf(this.leafId);
    for (let order = leaf ?? NONE; order !== NONE && missing.size > 0; order = index.parentOf(order)) {
      missing.delete(index.idOf(order));
    }
    const [first] = missing;
    if (first !== undefined) throw new SessionEntryNotFoundError(this.id, first);
    const entry: PruneEntry = {
      type: "prune",
      ...this.base(),
      entryIds: [...input.entryIds],
      tokensBefore: input.tokensBefore,
      tokensAfter: input.tokensAfter,
    };
    if (input.details !== undefined) entry.details = input.details;
    return this.append(entry);
  }

  /** Appends a branch summary as a child of the current leaf (`fromId` names where the branch starts). */
  appendBranchSummary(input: BranchSummaryInput & { fromId: string }): BranchSummaryEntry {
    return this.append(this.branchSummary(this.leafId, input.fromId, input));
  }

  /** Appends a thinking level change. */
  appendThinkingLevelChange(thinkingLevel: string): ThinkingLevelChangeEntry {
    return this.append({ type: "thinking_level_change", ...this.base(), thinkingLevel });
  }

  /** Appends a model change. */
  appendModelChange(provider: string, modelId: string): ModelChangeEntry {
    return this.append({ type: "model_change", ...this.base(), provider, modelId });
  }

  /** Appends a change of the active tools. */
  appendActiveToolsChange(activeToolNames: readonly string[]): ActiveToolsChangeEntry {
    return this.append({
      type: "active_tools_change",
      ...this.base(),
      activeToolNames: [...activeToolNames],
    });
  }

  /** Appends application state (not part of the context). */
  appendCustom(customType: string, data?: unknown): CustomEntry {
    const entry: CustomEntry = { type: "custom", ...this.base(), customType };
    if (data !== undefined) entry.data = data;
    return this.append(entry);
  }

  /** Appends an application-defined message that the model sees as a user message. */
  appendCustomMessage(input: CustomMessageInput): CustomMessageEntry {
    const entry: CustomMessageEntry = {
      type: "custom_message",
      ...this.base(),
      customType: input.customType,
      content: input.content,
      display: input.display ?? true,
    };
    if (input.details !== undefined) entry.details = input.details;
    return this.append(entry);
  }

  /**
   * Sets (or, with `undefined` or `""`, clears) the label of an entry. Throws `SessionEntryNotFoundError`
   * for an unknown entry.
   */
  appendLabel(targetId: string, label: string | undefined): LabelEntry {
    this.nodeOf(targetId);
    const entry: LabelEntry = { type: "label", ...this.base(), targetId };
    if (label !== undefined && label !== "") entry.label = label;
    return this.append(entry);
  }

  /** Sets the session's display name (trimmed; `""` clears it). */
  appendSessionInfo(name: string): SessionInfoEntry {
    return this.append({ type: "session_info", ...this.base(), name: name.trim() });
  }

  /**
   * Moves the leaf to `targetId` (`null`: before the first entry), so that the next entry starts a new
   * branch there. Without a summary it appends a `leaf` entry (`targetId`; parent: the old leaf). With
   * one it appends a `branch_summary` as a child of `targetId` (`fromId`: the target, or `root`), which
   * becomes the leaf — so the summary is on the new path and the model sees it (the pi agent's layout).
   * Moving to the current leaf without a summary appends nothing.
   *
   * Throws `SessionEntryNotFoundError` for an unknown target.
   */
  moveTo(targetId: string | null, summary?: string | BranchSummaryInput): MoveResult {
    if (targetId !== null) this.nodeOf(targetId);
    if (summary === undefined) {
      if (targetId === this.leafId) return { leafId: targetId, entries: [] };
      const entry: LeafEntry = { type: "leaf", ...this.base(), targetId };
      return { leafId: targetId, entries: [this.append(entry)] };
    }
    const input = typeof summary === "string" ? { summary } : summary;
    const entry = this.append(this.branchSummary(targetId, targetId ?? "root", input));
    return { leafId: entry.id, entries: [entry] };
  }

  /**
   * Copies the path up to an entry into a new session of the same store, whose header names this one as
   * `parentSession`. `position: "at"` (default) includes the entry, `"before"` stops at its parent (to
   * redo it differently). Entries keep their ids, timestamps and unknown fields; labels that apply to the
   * copied entries are carried over. Pending entries on the path are included.
   *
   * Contract: writes the new session at once (header, then one batch); this session is not changed.
   * Throws `SessionEntryNotFoundError` for an unknown entry and the store's errors.
   */
  async fork(entryId: string, options: ForkOptions = {}): Promise<Session> {
    this.nodeOf(entryId);
    await this.loadBranch(entryId);
    const { header, entries } = await forkSession(
      this.index,
      this.store,
      this.header,
      entryId,
      options,
      this.now,
    );
    return new Session(
      this.store,
      header,
      { entries: entries.map(heldEntry), notices: [] },
      { now: this.now },
    );
  }

  /**
   * Writes the appended entries in one `appendEntries` call with `expectedLastEntryId` set to the last
   * entry this session knows to be stored — the save point (the harness calls it at `turn_end` and
   * `agent_end`). Calls are serialized; a call with nothing pending does nothing.
   *
   * Contract: on success the entries are stored and no longer pending. On failure nothing is removed
   * from the queue and the error is thrown: `SessionConflictError` means another writer appended since —
   * reopen the session (the queued entries can be re-appended there).
   */
  flush(): Promise<void> {
    const run = this.flushChain.then(() => this.writePending());
    this.flushChain = run.catch(() => undefined);
    return run;
  }

  private async writePending(): Promise<void> {
    const batch = this.pending.slice();
    const last = batch.at(-1);
    if (last === undefined) return;
    if (!this.headerStored) {
      await this.store.createSession(this.header);
      this.headerStored = true;
    }
    await this.store.appendEntries(this.id, batch, { expectedLastEntryId: this.lastStoredEntryId });
    this.pending.splice(0, batch.length);
    this.lastStoredEntryId = last.id;
  }

  private base(): { id: string; parentId: string | null; timestamp: string } {
    return {
      id: generateEntryId(this.index),
      parentId: this.leafId,
      timestamp: this.now().toISOString(),
    };
  }

  private branchSummary(
    parentId: string | null,
    fromId: string,
    input: BranchSummaryInput,
  ): BranchSummaryEntry {
    const entry: BranchSummaryEntry = {
      type: "branch_summary",
      ...this.base(),
      parentId,
      fromId,
      summary: input.summary,
    };
    if (input.details !== undefined) entry.details = input.details;
    if (input.fromHook !== undefined) entry.fromHook = input.fromHook;
    return entry;
  }

  private append<T extends SessionEntry>(entry: T): T {
    this.index.add(heldEntry(entry), true);
    this.pending.push(entry);
    return entry;
  }

  /** The order of an entry in the index; throws `SessionEntryNotFoundError` for an unknown id. */
  private nodeOf(entryId: string): number {
    const order = this.index.orderOf(entryId);
    if (order === undefined) throw new SessionEntryNotFoundError(this.id, entryId);
    return order;
  }
}
