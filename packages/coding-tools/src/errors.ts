/**
 * Typed errors for misuse of this package (a factory called with options that cannot work). Failures a
 * model can act on — a missing file, an ambiguous edit, a failing command — are never thrown: every tool
 * returns them as results with `isError: true`.
 */
import { ArborError } from "@arbor/ai-providers";

/** Stable machine-readable error codes of this package. */
export type CodingToolsErrorCode = "invalid_option";

/** Base class of the errors this package throws (an `ArborError`). */
export class CodingToolsError extends ArborError {
  declare readonly code: CodingToolsErrorCode;

  constructor(code: CodingToolsErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
    this.name = "CodingToolsError";
  }
}

/** A tool factory received an option it cannot work with (a missing `cwd`, a negative limit, …). */
export class InvalidToolOptionError extends CodingToolsError {
  constructor(
    /** The option, e.g. `cwd` or `read.maxLines`. */
    readonly option: string,
    message: string,
  ) {
    super("invalid_option", `Invalid option "${option}": ${message}`);
    this.name = "InvalidToolOptionError";
  }
}
