import { stat } from "node:fs/promises";
import { type AgentTool, type Static, Type } from "@arbor/agent-core";
import { InvalidToolOptionError } from "./errors.js";
import { type CapturedOutput, OutputCapture } from "./output-capture.js";
import { checkCwd, checkPositiveInteger } from "./paths.js";
import { findDefaultShell, runShellCommand, type ShellExit } from "./shell-process.js";
import { errorResult, textResult } from "./tool-support.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatBytes } from "./truncate.js";

/** Default timeout of one command, in seconds. */
export const DEFAULT_BASH_TIMEOUT_SECONDS = 120;

/** Options of {@link createBashTool}. */
export interface BashToolOptions {
  /** The shell, run as `shell -c command` (default: bash when installed, else `$SHELL`, else `/bin/sh`). */
  shell?: string;
  /** Variables added to (or, when `undefined`, removed from) the environment of `process.env`. */
  env?: Record<string, string | undefined>;
  /** Timeout when the call gives none, in seconds (default 120). */
  defaultTimeoutSeconds?: number;
  /** Most lines of output shown (the last ones; default 2,000). */
  maxLines?: number;
  /** Most UTF-8 bytes of output shown (the last ones; default 50 KB). */
  maxBytes?: number;
  /** Milliseconds between SIGTERM and SIGKILL when the process tree is killed (default 2,000). */
  killGraceMs?: number;
  /** Directory of the full-output files (default `os.tmpdir()`). */
  tempDirectory?: string;
  /** Least milliseconds between two `onUpdate` calls while output streams (default 100). */
  updateIntervalMs?: number;
}

const bashParameters = Type.Object({
  command: Type.String({ description: "The shell command to run" }),
  timeout: Type.Optional(
    Type.Number({ exclusiveMinimum: 0, description: "Timeout in seconds (default: the tool's, e.g. 120)" }),
  ),
});

/** Arguments of the `bash` tool. */
export type BashToolArguments = Static<typeof bashParameters>;

/** `details` of a `bash` result (and of its streamed updates, without `exitCode`). */
export interface BashToolDetails {
  /** The shell's exit code (`null` when a signal ended it or it is still running). */
  exitCode: number | null;
  /** The signal that ended the shell, if one did. */
  signal?: string;
  /** The timeout fired and the process tree was killed. */
  timedOut?: boolean;
  /** Lines and UTF-8 bytes printed in all. */
  totalLines: number;
  totalBytes: number;
  /** Whether the output shown is only the tail. */
  truncated: boolean;
  /** The file holding the complete output (set when truncated). */
  fullOutputPath?: string;
  /** Wall time of the command in milliseconds. */
  durationMs: number;
}

/**
 * The `bash` tool: runs a command with the user's shell in the working directory. stdout and stderr are
 * interleaved in arrival order and streamed through `onUpdate`; the result shows the last 2,000 lines /
 * 50 KB and, when that cut anything, names a temp file holding the complete output. The exit code is in
 * the text and in `details`; a non-zero exit, a kill by signal or a timeout is an error result. On abort
 * or timeout the command's whole process tree is killed (SIGTERM, then SIGKILL after a grace period);
 * on abort `execute` rejects, as the agent loop expects.
 */
export function createBashTool(
  cwd: string,
  options: BashToolOptions = {},
): AgentTool<typeof bashParameters, BashToolDetails> {
  const root = checkCwd(cwd);
  const limits = {
    maxLines: checkPositiveInteger("bash.maxLines", options.maxLines, DEFAULT_MAX_LINES),
    maxBytes: checkPositiveInteger("bash.maxBytes", options.maxBytes, DEFAULT_MAX_BYTES),
  };
  const defaultTimeout = options.defaultTimeoutSeconds ?? DEFAULT_BASH_TIMEOUT_SECONDS;
  if (!(defaultTimeout > 0)) {
    throw new InvalidToolOptionError("bash.defaultTimeoutSeconds", "expected a positive number of seconds.");
  }
  const killGraceMs = options.killGraceMs ?? 2000;
  const updateIntervalMs = options.updateIntervalMs ?? 100;
  return {
    name: "bash",
    label: "Bash",
    description:
      `Run a shell command in the working directory. Returns stdout and stderr (interleaved) and the exit ` +
      `code; output over ${limits.maxLines} lines or ${formatBytes(limits.maxBytes)} is cut to its end, with ` +
      `the full output saved to a file. Timeout: ${defaultTimeout} s unless given (in seconds).`,
    parameters: bashParameters,
    async execute(args, { signal, onUpdate }) {
      signal.throwIfAborted();
      try {
        if (!(await stat(root)).isDirectory()) throw new Error("not a directory");
      } catch {
        return errorResult(`The working directory ${root} does not exist; cannot run commands in it.`);
      }
      const started = Date.now();
      const capture = new OutputCapture({ ...limits, tempDirectory: options.tempDirectory });
      let updateTimer: NodeJS.Timeout | undefined;
      const sendUpdate = () => {
        updateTimer = undefined;
        const output = capture.snapshot();
        onUpdate({
          content: [{ type: "text", text: output.tail.text }],
          details: detailsOf(output, null, Date.now() - started),
        });
      };
      const timeoutSeconds = args.timeout ?? defaultTimeout;
      let exit: ShellExit;
      try {
        exit = await runShellCommand({
          command: args.command,
          shell: options.shell ?? findDefaultShell(),
          cwd: root,
          env: environment(options.env),
          timeoutMs: Math.min(timeoutSeconds * 1000, 2 ** 31 - 1),
          killGraceMs,
          signal,
          onData: (chunk) => {
            capture.append(chunk);
            updateTimer ??= setTimeout(sendUpdate, updateIntervalMs);
          },
        });
      } catch (error) {
        return errorResult(
          `Cannot start the shell (${options.shell ?? findDefaultShell()}): ${error instanceof Error ? error.message : String(error)}`,
        );
      } finally {
        clearTimeout(updateTimer);
      }
      const output = await capture.finish();
      const details = detailsOf(output, exit, Date.now() - started);
      if (exit.aborted) {
        throw new Error(`The command was aborted; its process tree was killed.${fullOutputNote(output)}`);
      }
      const text = formatOutput(output, limits.maxBytes) + statusLine(exit, timeoutSeconds);
      const failed = exit.timedOut || exit.exitCode !== 0;
      return failed ? errorResult(text, details) : textResult(text, details);
    },
  };
}

function environment(extra: BashToolOptions["env"]): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [name, value] of Object.entries(extra ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

function detailsOf(output: CapturedOutput, exit: ShellExit | null, durationMs: number): BashToolDetails {
  const details: BashToolDetails = {
    exitCode: exit?.exitCode ?? null,
    totalLines: output.totalLines,
    totalBytes: output.totalBytes,
    truncated: output.tail.truncated,
    durationMs,
  };
  if (exit?.signal) details.signal = exit.signal;
  if (exit?.timedOut) details.timedOut = true;
  if (output.fullOutputPath !== undefined) details.fullOutputPath = output.fullOutputPath;
  return details;
}

/** The visible output plus, when cut, which part is shown and where the rest is. */
function formatOutput(output: CapturedOutput & { fileError?: Error }, maxBytes: number): string {
  const { tail, totalLines } = output;
  const body = output.totalBytes === 0 ? "(no output)" : tail.text;
  if (!tail.truncated) return body;
  const first = totalLines - tail.shownLines + 1;
  let range: string;
  if (tail.partialLine) range = `the last ${formatBytes(maxBytes)} of line ${totalLines} (of ${totalLines})`;
  else if (tail.truncatedBy === "bytes") {
    range = `lines ${first}-${totalLines} of ${totalLines} (last ${formatBytes(maxBytes)})`;
  } else range = `lines ${first}-${totalLines} of ${totalLines}`;
  return `${body}\n\n[Showing ${range}.${fullOutputNote(output)}]`;
}

function fullOutputNote(output: CapturedOutput & { fileError?: Error }): string {
  if (output.fullOutputPath === undefined) return "";
  if (output.fileError !== undefined)
    return ` The full output could not be saved: ${output.fileError.message}`;
  return ` Full output: ${output.fullOutputPath}`;
}

function statusLine(exit: ShellExit, timeoutSeconds: number): string {
  if (exit.timedOut) {
    return (
      `\n\n[Timed out after ${timeoutSeconds} s; the command and its child processes were killed. ` +
      "Pass a larger timeout (seconds) if it needs longer, or run it in the background.]"
    );
  }
  if (exit.exitCode === null) return `\n\n[Killed by signal ${exit.signal ?? "unknown"}]`;
  return `\n\n[Exit code: ${exit.exitCode}]`;
}
