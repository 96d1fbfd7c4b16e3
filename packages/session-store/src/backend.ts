/**
 * @arbor/session-store/backend — what a `SessionStore` implementation needs beyond the interface: the
 * keyset order and cursor of `listSessions`, the format migrations (versions 1 and 2 to 3), the
 * validation of headers and entries and the lenient reading of older and foreign entries, and the
 * entry-as-JSON-text helpers of the database stores (an entry kept byte for byte as its JSON text, parsed
 * lazily; a batch encoded once for the append), and the process identity their writer locks judge a
 * holder by.
 */
export {
  type EncodedEntry,
  type EncodedEntryBatch,
  encodeEntryBatch,
  entryJson,
} from "./encode-batch.js";
export { JsonTextEntry, parseEntryText, parseStoredHeader, storedMessageText } from "./json-text-entry.js";
export {
  type FilledField,
  readSessionEntry,
  repairSessionEntry,
  type SessionEntryReading,
} from "./lenient-read.js";
export {
  compareListing,
  decodeListingCursor,
  encodeListingCursor,
  type ListingCursor,
  listingTime,
} from "./listing-order.js";
export {
  migrateSessionLines,
  needsMigration,
  type SessionMigration,
  sessionVersionOf,
} from "./migrations.js";
export {
  isGone,
  isThisProcess,
  ownIdentity,
  type ProcessIdentity,
  processStartOf,
} from "./process-identity.js";
export { type SessionValidationResult, validateSessionEntry, validateSessionHeader } from "./validate.js";
