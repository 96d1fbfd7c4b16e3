/**
 * Errors of the CLI core a user can act on: a flag that makes no sense, a settings or models file that does
 * not validate, no provider to talk to. `main()` prints their message (never a stack trace) and exits with
 * their `exitCode`.
 */
import { ArborError } from "@arbor/ai-providers";

/** Codes of {@link ArborCliError}. */
export type ArborCliErrorCode =
  | "usage"
  | "invalid_settings"
  | "invalid_models_file"
  | "no_provider"
  | "unknown_provider"
  | "unknown_model"
  | "session_outside_store";

/** A mistake or a situation the user can fix; the message says how. */
export class ArborCliError extends ArborError {
  constructor(
    code: ArborCliErrorCode,
    message: string,
    /** The process exit code to end with. */
    readonly exitCode = 1,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.name = "ArborCliError";
  }
}
