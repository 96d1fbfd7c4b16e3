/**
 * Typed errors for misuse. Failures a caller can act on (network, HTTP, abort) are never thrown: they
 * end a stream as data. What is thrown here means the calling code is wrong.
 */

const MARKER = Symbol.for("arbor.error");

/** Stable machine-readable error codes of this package. */
export type AiProvidersErrorCode =
  | "unknown_provider"
  | "unknown_model"
  | "invalid_model_reference"
  | "duplicate_provider"
  | "stream_protocol"
  | "stream_already_iterated"
  | "invalid_argument"
  | "retry_gave_up"
  | "script_mismatch";

/**
 * Base class of every error Arbor throws. `code` is stable and machine-readable; `isInstance` works
 * across duplicate installs of the package (it checks a `Symbol.for` marker, not the prototype).
 */
export class ArborError extends Error {
  readonly code: string;
  readonly [MARKER] = true;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "ArborError";
    this.code = code;
  }

  /** True for any Arbor error, whichever copy of the package created it. */
  static isInstance(error: unknown): error is ArborError {
    return typeof error === "object" && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}

/** A provider id was asked for that the registry does not hold. */
export class UnknownProviderError extends ArborError {
  constructor(
    readonly providerId: string,
    known: readonly string[],
  ) {
    super(
      "unknown_provider",
      `Unknown provider "${providerId}". Registered providers: ${known.length ? known.join(", ") : "(none)"}.`,
    );
    this.name = "UnknownProviderError";
  }
}

/** A model id was asked for that its provider does not know. */
export class UnknownModelError extends ArborError {
  constructor(
    readonly providerId: string,
    readonly modelId: string,
    known: readonly string[],
  ) {
    const list = known.length > 12 ? `${known.slice(0, 12).join(", ")}, …` : known.join(", ");
    super(
      "unknown_model",
      `Provider "${providerId}" has no model "${modelId}". Known models: ${list || "(none)"}.`,
    );
    this.name = "UnknownModelError";
  }
}

/** A model reference was not of the form `provider/model`. */
export class InvalidModelReferenceError extends ArborError {
  constructor(readonly reference: string) {
    super(
      "invalid_model_reference",
      `Invalid model reference "${reference}": expected "provider/model", e.g. "anthropic/claude-sonnet-4-5".`,
    );
    this.name = "InvalidModelReferenceError";
  }
}

/** Two providers with one id were registered. */
export class DuplicateProviderError extends ArborError {
  constructor(readonly providerId: string) {
    super("duplicate_provider", `A provider with id "${providerId}" is already registered.`);
    this.name = "DuplicateProviderError";
  }
}

/** A stream was driven against the event protocol (e.g. a delta after the stream ended). */
export class StreamProtocolError extends ArborError {
  constructor(message: string) {
    super("stream_protocol", message);
    this.name = "StreamProtocolError";
  }
}

/** An {@link AssistantStream} was iterated twice; its events are delivered once. */
export class StreamAlreadyIteratedError extends ArborError {
  constructor() {
    super(
      "stream_already_iterated",
      "This AssistantStream is already being iterated. Events are delivered once; use result() for the final message.",
    );
    this.name = "StreamAlreadyIteratedError";
  }
}

/** A function was called with an argument it cannot accept. */
export class InvalidArgumentError extends ArborError {
  constructor(message: string) {
    super("invalid_argument", message);
    this.name = "InvalidArgumentError";
  }
}
