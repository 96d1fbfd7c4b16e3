/**
 * A shell command the user ran from the editor (`!command`, pi's bash mode), as the session records it: a
 * `bashExecution` message, which the model sees as a user message unless `excludeFromContext` (`!!command`).
 */
import type { BashExecutionMessage } from "@arbor/session-store";

/** What a front end ran and what it printed (see `HarnessSession.appendBashExecution`). */
export interface BashExecutionInput {
  command: string;
  /** What the command printed (stdout and stderr as they came; the tail when `truncated`). */
  output: string;
  /** The exit code (undefined when a signal ended the command). */
  exitCode?: number;
  /** True when the user stopped the command. */
  cancelled?: boolean;
  /** True when `output` is only the end of what was printed. */
  truncated?: boolean;
  /** A file holding everything that was printed (when truncated). */
  fullOutputPath?: string;
  /** True when the model must not see it (`!!command`): it is recorded, not sent. */
  excludeFromContext?: boolean;
}

/**
 * The `bashExecution` message of an input, written at `timestamp`.
 *
 * Contract: pure; optional fields are left out when undefined.
 */
export function bashExecutionMessage(input: BashExecutionInput, timestamp: number): BashExecutionMessage {
  return {
    role: "bashExecution",
    command: input.command,
    output: input.output,
    ...(input.exitCode === undefined ? {} : { exitCode: input.exitCode }),
    cancelled: input.cancelled === true,
    truncated: input.truncated === true,
    ...(input.fullOutputPath === undefined ? {} : { fullOutputPath: input.fullOutputPath }),
    ...(input.excludeFromContext === true ? { excludeFromContext: true } : {}),
    timestamp,
  };
}
