import type { KeptEntries } from "./unsaved-entries.js";

/** A save point the store refused after its retries, and where the entries it could not store are. */
export interface SaveFailure {
  /** The store's last error. */
  readonly error: unknown;
  /** Attempts made (1: refused once, not retried). */
  readonly attempts: number;
  /** Time spent retrying, in ms. */
  readonly retriedMs: number;
  /** True when another writer appended first or holds the session (never retried). */
  readonly conflict: boolean;
  /** Entries not stored. */
  entryCount: number;
  /** Where the keeper put them (`undefined`: no keeper, or it failed: see `keptError`). */
  kept: KeptEntries | undefined;
  /** Why the keeper could not keep them. */
  keptError: unknown;
}

/** An error's message, for a sentence. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

function count(entries: number): string {
  return `${entries} ${entries === 1 ? "entry" : "entries"}`;
}

/** What was refused, in words: `<cause>` and, after retries, `(retried for 30 s)`. */
export function refusalText(failure: SaveFailure): string {
  const cause = messageOf(failure.error).replace(/[.\s]+$/, "");
  if (failure.attempts <= 1) return cause;
  const seconds = Number((failure.retriedMs / 1000).toFixed(1));
  return `${cause} (${failure.attempts} attempts over ${seconds} s)`;
}

/**
 * Where the entries that were not stored are, as a sentence: kept in a file (and how to apply it), held
 * in memory only because keeping them failed too, or held in memory because no keeper was given.
 */
export function keptText(failure: SaveFailure): string {
  const entries = count(failure.entryCount);
  const kept = failure.kept;
  if (kept !== undefined) {
    const apply = kept.howToApply === undefined ? "" : `; ${kept.howToApply}`;
    return `The ${entries} not stored ${failure.entryCount === 1 ? "is" : "are"} kept in ${kept.location}${apply}.`;
  }
  if (failure.keptError !== undefined) {
    return `The ${entries} not stored could not be kept elsewhere either (${messageOf(failure.keptError)}): they are in this process's memory only.`;
  }
  return `The ${entries} not stored stay in memory; a later save writes them.`;
}

/** The `message` of a `run_stopped` event: what stopped the run and where its unstored entries are. */
export function stoppedRunText(failure: SaveFailure): string {
  return (
    `The run stopped before running anything more: the session could not be saved (${refusalText(failure)}). ` +
    keptText(failure)
  );
}
