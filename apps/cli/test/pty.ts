/**
 * The built `arbor` on a pseudo-terminal, for the tests that drive the real binary as a user's terminal
 * does: util-linux `script` gives it a terminal (no native module; tmux is not on CI machines).
 */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The bundled CLI the pty tests run (`pnpm --filter @arbor/cli build` makes it). */
export const BUILT_BIN = fileURLToPath(new URL("../dist/arbor.js", import.meta.url));

/** util-linux's `script`, which runs a command on a pseudo-terminal; CI machines must have it. */
export const HAS_SCRIPT = process.platform === "linux" && spawnSync("script", ["--version"]).status === 0;

/** What a terminal shows of `text`: escape sequences (colours, cursor moves, charset switches) and CRs removed. */
export function plain(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is removed
  return text.replace(/\u001b\[[0-9;?]*[A-Za-z~]|\u001b[()][A-Z0-9]|\u001b[=>]|\r/g, "");
}

/** Options of {@link spawnOnPty}. */
export interface PtyOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The terminal's size (`script`'s pseudo-terminal has none of its own: the UI would wrap at every character). */
  cols?: number;
  rows?: number;
}

/**
 * Runs the built `arbor` with `args` on a pseudo-terminal (`script -qfec`: output flushed as it comes).
 * Its stdin is the terminal's keyboard; stdout carries everything drawn.
 */
export function spawnOnPty(args: readonly string[], options: PtyOptions): ChildProcessWithoutNullStreams {
  const command = [process.execPath, BUILT_BIN, ...args]
    .map((word) => `'${word.replaceAll("'", "'\\''")}'`)
    .join(" ");
  const size = `stty cols ${options.cols ?? 100} rows ${options.rows ?? 30};`;
  return spawn("script", ["-qfec", `${size} exec ${command}`, "/dev/null"], {
    cwd: options.cwd,
    env: options.env,
  });
}
