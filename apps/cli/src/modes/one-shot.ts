/**
 * The one-prompt modes: print (`-p "prompt"` or a prompt piped on stdin; only the final answer on stdout)
 * and `--mode json` (one JSON event per line). Both exit 1 when the run ends in an error, is aborted (the
 * last assistant message's `stopReason`, so a failure after retries is not reported as success), was
 * stopped by Ctrl-C (also between turns, while a tool ran) or was not completely saved.
 */
import type { AssistantMessage } from "@arbor/ai-providers";
import {
  type AppRuntime,
  abortOnInterrupt,
  assistantText,
  INTERRUPTED,
  type InterruptWatch,
  JsonEventWriter,
  lastAssistantMessage,
  type PermissionDecisionEvent,
  reportRunNotices,
  sessionRecord,
  type UnsavedWorkWatch,
} from "@arbor/app-runtime";
import { builtInCommandName, runProtocolSlashCommand } from "@arbor/app-runtime/input";
import { describePermissionRecord } from "@arbor/session-view";
import type { CliIo } from "../io.js";

/**
 * The prompt of a one-shot run: what the user gave (`-p`, the words; or stdin when that is all), and the
 * input piped after it, sent as it is (its `@words` are data, not files to attach).
 */
export interface OneShotPrompt {
  text: string;
  piped?: string;
}

/** The whole text (for a `/command` check), and the session's prompt of it. */
function whole(prompt: OneShotPrompt): string {
  return prompt.piped === undefined ? prompt.text : `${prompt.text}\n\n${prompt.piped}`;
}

function runPrompt(runtime: AppRuntime, prompt: OneShotPrompt): Promise<void> {
  return runtime.session.prompt(
    prompt.text,
    prompt.piped === undefined ? {} : { followingText: prompt.piped },
  );
}

/** How a finished run ended, for the exit code. */
export interface RunOutcome {
  message: AssistantMessage | undefined;
  failed: boolean;
}

/** The outcome of the session's last run. */
export function runOutcome(runtime: AppRuntime): RunOutcome {
  const message = lastAssistantMessage(runtime.session.state.messages);
  const failed = message === undefined || message.stopReason === "error" || message.stopReason === "aborted";
  return { message, failed };
}

/**
 * Runs the prompt as an extension's command when it is one (`/name args`); resolves to the exit code then
 * (1 when the command failed), else `undefined`.
 */
async function extensionCommand(runtime: AppRuntime, prompt: string): Promise<number | undefined> {
  const failedBefore = runtime.extensions.failures.length;
  if (!(await runtime.extensions.runCommandLine(prompt))) return undefined;
  return runtime.extensions.failures.length > failedBefore ? 1 : 0;
}

/**
 * Print mode's `/name args` for a built-in command (`/name`, `/label`, `/compact`, …; the same code as the
 * terminal's and rpc's), its notices on stderr: resolves to the exit code (1 when it said an error), or to
 * undefined when the line names no built-in command (an extension's command, a template or a prompt).
 */
async function builtInCommand(
  runtime: AppRuntime,
  prompt: OneShotPrompt,
  io: CliIo,
): Promise<number | undefined> {
  const line = whole(prompt);
  if (builtInCommandName(line) === undefined) return undefined;
  let errored = false;
  await runProtocolSlashCommand(runtime, line, {
    notice: (notice) => {
      if (notice.level === "error") errored = true;
      io.stderr.write(`arbor: ${notice.message}\n`);
    },
    prompt: () => undefined,
  });
  return errored ? 1 : 0;
}

/** What to say about unsaved work: its reason, or "see above" when a warning of the runtime already said it. */
export function unsavedLine(unsaved: string, saves: UnsavedWorkWatch): string {
  return saves.alreadyWarned(unsaved) ? "the session was not saved (the store's refusal is above)" : unsaved;
}

/** The run's outcome, failed when Ctrl-C stopped it (a tool aborted between turns ends with no error). */
function outcomeOf(runtime: AppRuntime, interrupt: InterruptWatch): RunOutcome & { reason?: string } {
  const outcome = runOutcome(runtime);
  if (interrupt.interrupted) return { ...outcome, failed: true, reason: `aborted: ${INTERRUPTED}` };
  if (!outcome.failed) return outcome;
  const message = outcome.message;
  const reason = message?.errorMessage ?? "the run ended without an answer";
  return { ...outcome, reason: `${message?.stopReason === "aborted" ? "aborted" : "error"}: ${reason}` };
}

/** A refusal in one line: what was refused and by what, then how to allow it (when the mode refused it). */
function refusalLine(decision: PermissionDecisionEvent): string {
  const line = describePermissionRecord(decision);
  const hint = decision.by === "mode" ? / To allow it, (.*)$/.exec(decision.reason ?? "")?.[1] : undefined;
  return hint === undefined ? line : `${line}; to allow it, ${hint}`;
}

/**
 * Print mode: runs the prompt and writes the final answer's text to stdout (nothing else goes there).
 *
 * Contract: resolves to the exit code: 0, or 1 when the run ends in an error or abort or part of it was
 * not saved (a `save_error`, e.g. another process wrote the session first; its message on stderr, after any
 * partial answer on stdout).
 */
export async function runPrintMode(runtime: AppRuntime, prompt: OneShotPrompt, io: CliIo): Promise<number> {
  const retries = reportRunNotices(runtime.session, (line) => io.stderr.write(`arbor: ${line}\n`));
  const saves = runtime.watchUnsavedWork({ onRetry: (line) => io.stderr.write(`arbor: ${line}\n`) });
  const interrupt = abortOnInterrupt(runtime, (text) => io.stderr.write(text));
  // A refused tool call is said on stderr too (the model got the refusal as the tool's result).
  const refusals = runtime.permissions.onDecision((decision) => {
    if (decision.decision === "denied") io.stderr.write(`arbor: ${refusalLine(decision)}\n`);
  });
  let unsaved: string | undefined;
  let commandCode: number | undefined;
  try {
    commandCode =
      (await builtInCommand(runtime, prompt, io)) ?? (await extensionCommand(runtime, whole(prompt)));
    if (commandCode === undefined) await runPrompt(runtime, prompt);
  } finally {
    interrupt.restore();
    refusals();
    retries();
    unsaved = saves();
  }
  if (commandCode !== undefined) return unsaved === undefined ? commandCode : 1;
  const { message, failed, reason } = outcomeOf(runtime, interrupt);
  const text = message === undefined ? "" : assistantText(message);
  if (text !== "") io.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
  if (unsaved !== undefined) {
    io.stderr.write(`arbor: error: ${unsavedLine(unsaved, saves)}\n`);
    return 1;
  }
  if (failed) {
    io.stderr.write(`arbor: ${reason}\n`);
    return 1;
  }
  return 0;
}

/**
 * `--mode json`: runs the prompt and writes every event as one JSON line (the schema of `@arbor/app-runtime`'s `JsonEventWriter`), then a
 * `result` line.
 *
 * Contract: stdout carries only JSON lines (what was not saved is also said on stderr, with where it is
 * kept); resolves to 0, or 1 when the run ends in an error or abort or part of it was not saved.
 */
export async function runJsonMode(runtime: AppRuntime, prompt: OneShotPrompt, io: CliIo): Promise<number> {
  const writer = new JsonEventWriter((line) => io.stdout.write(line));
  writer.record(sessionRecord(runtime));
  const stopNotices = runtime.extensions.onNotice((notice) => writer.record({ type: "notice", ...notice }));
  const commandCode = await extensionCommand(runtime, whole(prompt));
  if (commandCode !== undefined) {
    stopNotices();
    writer.record({ type: "result", command: true, exitCode: commandCode });
    writer.flush();
    return commandCode;
  }
  const unsubscribe = runtime.session.subscribe((event) => writer.handle(event));
  const decisions = runtime.permissions.onDecision((decision) =>
    writer.record({ type: "permission_decision", ...decision }),
  );
  const retries = reportRunNotices(runtime.session, (line) => io.stderr.write(`arbor: ${line}\n`));
  const saves = runtime.watchUnsavedWork({ onRetry: (line) => io.stderr.write(`arbor: ${line}\n`) });
  const interrupt = abortOnInterrupt(runtime, (text) => io.stderr.write(text));
  let unsaved: string | undefined;
  try {
    await runPrompt(runtime, prompt);
  } finally {
    interrupt.restore();
    unsubscribe();
    decisions();
    retries();
    stopNotices();
    unsaved = saves();
  }
  const outcome = outcomeOf(runtime, interrupt);
  const message = outcome.message;
  const failed = outcome.failed || unsaved !== undefined;
  if (unsaved !== undefined) io.stderr.write(`arbor: error: ${unsavedLine(unsaved, saves)}\n`);
  const error = unsaved ?? (interrupt.interrupted ? INTERRUPTED : message?.errorMessage);
  writer.record({
    type: "result",
    stopReason: interrupt.interrupted ? "aborted" : (message?.stopReason ?? "error"),
    ...(failed ? { error: error ?? "the run ended without an answer" } : {}),
    exitCode: failed ? 1 : 0,
  });
  writer.flush();
  return failed ? 1 : 0;
}
