import type { Static } from "@arbor/ai-providers";
import type { BranchSummaryMessage, CompactionSummaryMessage, SessionMessage } from "./context-messages.js";
import type { CustomMessageEntrySchema, SessionEntry } from "./entries.js";

/** Options shared by `Session.create` and `Session.open`. */
export interface SessionOptions {
  /** The clock for entry timestamps (default `() => new Date()`). */
  now?: () => Date;
  /**
   * Which bodies `Session.open` reads (ignored by `Session.create`): `"all"` (default) — every entry is
   * readable at once; `"context"` — from a store that can leave bodies out (PostgreSQL), only the tree,
   * the small entries of `EAGER_BODY_TYPES` and the bodies the current leaf's context needs; reading any
   * other entry's body (`getEntry`, `getBranch`, the tree's `entry()`, the context of another leaf)
   * throws `EntryNotLoadedError` until `await session.loadEntries()` loads it. Stores that read bodies
   * lazily anyway (JSONL, SQLite, memory) open the same either way. See
   * docs/decisions/0019-deferred-entry-bodies.md.
   */
  bodies?: "all" | "context";
}

/** Options of `Session.create`. */
export interface CreateSessionOptions extends SessionOptions {
  /** The working directory the session belongs to. */
  cwd: string;
  /** The session id (default: a random UUID). */
  id?: string;
  /** The session this one continues or was forked from. */
  parentSession?: string;
  /** Application data stored in the header. */
  metadata?: Record<string, unknown>;
  /**
   * Write the header with the first {@link Session.flush} that has entries instead of at once (default
   * `false`): a session started and left without an entry leaves nothing in the store. The id is then
   * claimed at that flush, which rejects with the store's `SessionExistsError` when it is taken.
   */
  createOnFirstFlush?: boolean;
}

/** A message that may be appended: anything but the summaries, which are entries of their own. */
export type AppendableMessage = Exclude<SessionMessage, CompactionSummaryMessage | BranchSummaryMessage>;

/** Input of `Session.appendCompaction`. */
export interface CompactionInput {
  summary: string;
  /** The first entry kept verbatim; it must be on the current path. */
  firstKeptEntryId: string;
  tokensBefore: number;
  details?: unknown;
  fromHook?: boolean;
}

/** Input of `Session.appendPrune`. */
export interface PruneInput {
  /** The tool results to show as stubs: `message` entries on the current path (at least one). */
  entryIds: readonly string[];
  /** The estimated context size before the prune. */
  tokensBefore: number;
  /** The estimated context size after it. */
  tokensAfter: number;
  details?: unknown;
}

/** Input of `Session.appendBranchSummary` and of `Session.moveTo`'s summary. */
export interface BranchSummaryInput {
  summary: string;
  details?: unknown;
  fromHook?: boolean;
}

/** Input of `Session.appendCustomMessage`. */
export interface CustomMessageInput {
  customType: string;
  content: Static<typeof CustomMessageEntrySchema>["content"];
  /** Whether a UI shows it (default true). */
  display?: boolean;
  details?: unknown;
}

/** What `Session.moveTo` did. */
export interface MoveResult {
  /** The new leaf. */
  leafId: string | null;
  /** The entries it appended (a `leaf` entry, or a `branch_summary`; none when already there). */
  entries: SessionEntry[];
}

/** Options of `Session.fork`. */
export interface ForkOptions {
  /** `at`: the new session ends with the entry; `before`: with its parent. Default `at`. */
  position?: "before" | "at";
  /** The new session's id (default: a random UUID). */
  id?: string;
  /** The new session's working directory (default: this session's). */
  cwd?: string;
  metadata?: Record<string, unknown>;
}
