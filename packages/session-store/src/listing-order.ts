import { InvalidArgumentError } from "@arbor/ai-providers";

/**
 * The order and cursors of `SessionStore.listSessions()`, shared by every backend so that they page
 * the same way: newest activity first, ties broken by id (a total order, so a cursor is exact).
 */

/** A position in the listing order: the page continues after this session. */
export interface ListingCursor {
  updatedAt: string;
  id: string;
}

/**
 * The milliseconds of an ISO timestamp as the listing orders them (0 when unreadable): what a database
 * backend stores in an indexed column to list in the same order.
 */
export function listingTime(timestamp: string): number {
  const value = Date.parse(timestamp);
  return Number.isNaN(value) ? 0 : value;
}

/** Newest activity first; ties by id, so that the order (and a cursor) is total. */
export function compareListing(a: ListingCursor, b: ListingCursor): number {
  return listingTime(b.updatedAt) - listingTime(a.updatedAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The opaque `nextCursor` string for a position. */
export function encodeListingCursor(cursor: ListingCursor): string {
  return Buffer.from(JSON.stringify({ updatedAt: cursor.updatedAt, id: cursor.id })).toString("base64url");
}

/**
 * Reads a `nextCursor` string back.
 *
 * Contract: throws `InvalidArgumentError` (code `invalid_argument`) for anything a listing did not
 * return.
 */
export function decodeListingCursor(text: string): ListingCursor {
  try {
    const value = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Partial<ListingCursor>;
    if (typeof value.updatedAt === "string" && typeof value.id === "string") {
      return { updatedAt: value.updatedAt, id: value.id };
    }
  } catch {
    // Reported below.
  }
  throw new InvalidArgumentError(
    `Invalid listSessions cursor ${JSON.stringify(text)}: pass a nextCursor it returned.`,
  );
}
