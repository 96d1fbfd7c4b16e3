/**
 * {@link OperationRefusedError}: a session operation refused for a reason the user can act on (a busy
 * session, an unknown entry, a message that cannot be edited). Every front end shows its message as is;
 * the protocol answers with it (`success: false`), the demo server with a 4xx status chosen by its `code`.
 */

/** Why an operation was refused. */
export type OperationRefusal =
  /** The session is running something; wait or abort. */
  | "busy"
  /** An entry or session id names nothing here. */
  | "not_found"
  /** The arguments name something the operation cannot act on (not a user message, an empty session). */
  | "invalid"
  /** A hook or the user cancelled it, or it was aborted. */
  | "cancelled"
  /** An extension command failed or does not exist. */
  | "command_failed";

const MARKER = Symbol.for("arbor.OperationRefusedError");

/** A refused operation; `code` says why (see {@link OperationRefusal}). */
export class OperationRefusedError extends Error {
  readonly [MARKER] = true;
  constructor(
    message: string,
    readonly code: OperationRefusal = "invalid",
  ) {
    super(message);
    this.name = "OperationRefusedError";
  }

  /** True for an `OperationRefusedError` of any copy of this package. */
  static isInstance(value: unknown): value is OperationRefusedError {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }
}
