/**
 * The one error class of a mistake or a situation the user can fix: a flag that makes no sense, a settings
 * or models file that does not validate, no provider to talk to, a session reference that names nothing
 * usable, a command that cannot run. A front end shows its message (never a stack trace); a process exits
 * with its `exitCode`.
 */
import { ArborError } from "@arbor/ai-providers";

/** Codes of {@link ArborUserError}. */
export type ArborUserErrorCode =
  | "usage"
  | "invalid_settings"
  | "invalid_models_file"
  | "no_provider"
  | "unknown_provider"
  | "unknown_model"
  | "missing_api_key"
  | "unusable_home"
  | "session_outside_store"
  | "command_failed"
  | "invalid_proxy"
  | "mcp_unavailable"
  | "recovery_pending"
  | "recovery_failed";

/** A mistake or a situation the user can fix; the message says how. */
export class ArborUserError extends ArborError {
  constructor(
    code: ArborUserErrorCode,
    message: string,
    /** The process exit code to end with. */
    readonly exitCode = 1,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.name = "ArborUserError";
  }
}
