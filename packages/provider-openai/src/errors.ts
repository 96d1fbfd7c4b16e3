import { ArborError } from "@arbor/ai-providers";

/**
 * Typed errors for misuse of this package. Failures of a request (HTTP status, network, abort, missing
 * key) are never thrown: they end the stream as data.
 */

/** Stable machine-readable error codes of this package. */
export type OpenAIProviderErrorCode = "invalid_settings";

/** `createOpenAIProvider()` was given settings it cannot use (a base URL that does not parse, …). */
export class InvalidOpenAISettingsError extends ArborError {
  constructor(message: string) {
    super("invalid_settings", message);
    this.name = "InvalidOpenAISettingsError";
  }
}
