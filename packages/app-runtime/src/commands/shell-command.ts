/**
 * A shell command the user runs from the editor (`!command`): run by the coding tools' `bash` tool — the
 * same shell, output cap, full-output file and process-tree kill as the model's commands — and returned as
 * the input of `HarnessSession.appendBashExecution`.
 */
import { type BashToolDetails, createBashTool } from "@arbor/coding-tools";
import type { BashExecutionInput } from "@arbor/harness";

/** The tool's closing `[Exit code: N]` line and its empty-output marker: the message carries both itself. */
function outputOf(text: string): string {
  const output = text.replace(/\n*\[Exit code: -?\d+\]$/, "");
  return output === "(no output)" ? "" : output;
}

/**
 * Runs `command` in `cwd` and resolves to what it printed and how it ended. `env` is the bash tool's
 * environment option: a front end passes the runtime's (`AppRuntime.runShellCommand` does), so the user's
 * own commands, which the session records and the model may see, never print the API keys either.
 *
 * Contract: never rejects: a command stopped through `signal` resolves with `cancelled: true`, one that
 * cannot start with its reason as output and exit code 127.
 */
export async function runUserShellCommand(
  cwd: string,
  command: string,
  signal: AbortSignal = new AbortController().signal,
  env?: Record<string, string | undefined>,
): Promise<BashExecutionInput> {
  const tool = createBashTool(cwd, env === undefined ? {} : { env });
  try {
    const result = await tool.execute({ command }, { toolCallId: "user-shell", signal, onUpdate: () => {} });
    const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
    const details = result.details as BashToolDetails | undefined;
    if (details === undefined) return { command, output: text, exitCode: 127 };
    return {
      command,
      output: outputOf(text),
      ...(details.exitCode === null ? {} : { exitCode: details.exitCode }),
      truncated: details.truncated,
      ...(details.fullOutputPath === undefined ? {} : { fullOutputPath: details.fullOutputPath }),
    };
  } catch (error) {
    if (signal.aborted) return { command, output: "", cancelled: true };
    return { command, output: error instanceof Error ? error.message : String(error), exitCode: 127 };
  }
}
