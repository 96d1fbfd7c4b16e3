/**
 * `@arbor/ai-providers/recording` — record and replay: a provider wrapper that appends every interaction
 * to a JSON Lines cassette, and a provider that answers from one. Node only (it reads and writes files),
 * so it lives behind this subpath and the main entry stays browser-safe.
 */

export {
  CASSETTE_VERSION,
  type CassetteEntry,
  CassetteError,
  normalizeRequest,
  type RecordedEvent,
  type RecordedRequest,
  readCassette,
  requestKey,
} from "./cassette.js";
export { createRecordingProvider } from "./recording-provider.js";
export {
  createReplayProvider,
  type ReplayProvider,
  type ReplayProviderOptions,
} from "./replay-provider.js";
