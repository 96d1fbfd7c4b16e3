/**
 * What a run of `arbor` talks to: its standard streams, environment and working directory. `main()` takes
 * one, so every mode can be run in-process with captured streams; the bin passes the process's own.
 */
import { createInterface } from "node:readline/promises";
import type { Readable, Writable } from "node:stream";

/** A writable stream that may be a terminal. */
export type CliOutput = Writable & { isTTY?: boolean; columns?: number };

/** A readable stream that may be a terminal. */
export type CliInput = Readable & { isTTY?: boolean };

/** The streams, environment and directory of one run. */
export interface CliIo {
  stdin: CliInput;
  /** The answer (print mode), the events (json and rpc modes), command output. Nothing else. */
  stdout: CliOutput;
  /** Diagnostics: warnings, errors, progress. */
  stderr: CliOutput;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}

/** The process's own streams, environment and working directory. */
export function processIo(): CliIo {
  return {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * Whether output to `stream` may carry colours: a terminal, and `NO_COLOR` unset or empty
 * (https://no-color.org). `FORCE_COLOR` (non-empty, not `0`) turns them on for any stream.
 */
export function colorEnabled(stream: CliOutput, env: CliIo["env"]): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "" && force !== "0") return true;
  return stream.isTTY === true;
}

/** Writes a line (a newline is added) to a stream. */
export function writeLine(stream: Writable, text = ""): void {
  stream.write(`${text}\n`);
}

/**
 * Asks a yes/no question on the terminal (stderr) and reads one line of stdin: true only for `y` or `yes`.
 *
 * Contract: for a terminal stdin only; resolves false when stdin ends without an answer.
 */
export async function askYesNo(io: CliIo, question: string): Promise<boolean> {
  const lines = createInterface({ input: io.stdin, output: io.stderr, terminal: false });
  try {
    const answer = await Promise.race([
      lines.question(question),
      new Promise<string>((resolve) => lines.once("close", () => resolve(""))),
    ]);
    return /^\s*y(es)?\s*$/i.test(answer);
  } finally {
    lines.close();
  }
}
