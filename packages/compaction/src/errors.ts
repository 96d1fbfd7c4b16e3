import { ArborError } from "@arbor/ai-providers";

/**
 * Typed errors for misuse of this package. A summarizer that fails is not an error: `compact()` falls
 * back to a deterministic digest and says so in `details.fallback`; an abort by the caller's signal is
 * an `{ kind: "aborted" }` outcome. What is thrown here means the calling code or its configuration is
 * wrong.
 */

/** Stable machine-readable error codes of this package. */
export type CompactionErrorCode = "invalid_compaction_settings" | "invalid_compaction_argument";

/** Compaction settings failed validation (a wrong type, a value out of range, an unknown key). */
export class InvalidCompactionSettingsError extends ArborError {
  constructor(
    message: string,
    /** One line per problem, e.g. `reserveTokens: expected integer >= 256, received string "a lot"`. */
    readonly problems: readonly string[],
  ) {
    super("invalid_compaction_settings", message);
    this.name = "InvalidCompactionSettingsError";
  }
}

/** A function of this package was called with an argument it cannot use (e.g. a model without a window). */
export class InvalidCompactionArgumentError extends ArborError {
  constructor(message: string) {
    super("invalid_compaction_argument", message);
    this.name = "InvalidCompactionArgumentError";
  }
}
