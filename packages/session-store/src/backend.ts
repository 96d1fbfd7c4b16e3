/**
 * @arbor/session-store/backend — what a `SessionStore` implementation needs beyond the interface: the
 * keyset order and cursor of `listSessions`, the format migrations (versions 1 and 2 to 3), and the
 * validation of headers and entries.
 */
export {
  compareListing,
  decodeListingCursor,
  encodeListingCursor,
  type ListingCursor,
} from "./listing-order.js";
export {
  migrateSessionLines,
  needsMigration,
  type SessionMigration,
  sessionVersionOf,
} from "./migrations.js";
export { type SessionValidationResult, validateSessionEntry, validateSessionHeader } from "./validate.js";
