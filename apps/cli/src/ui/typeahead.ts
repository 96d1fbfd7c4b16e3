/**
 * Keys typed while a terminal front end starts. Until its UI reads the terminal, the terminal is in the line
 * mode the shell left it in: what is typed is echoed over the first frame, Enter arrives as a newline (a
 * line break in an editor, not a submit), and keys that arrive between the first frame and the UI's
 * listener are read as one such line. {@link holdTypeahead} puts the terminal in raw mode as soon as the
 * front end knows its UI will run, holds what is typed meanwhile, and hands it to the UI, which reads it
 * before anything typed later.
 */
import type { CliInput } from "../io.js";

/** Keys held while a terminal UI starts; see {@link holdTypeahead}. */
export interface Typeahead {
  /**
   * Stops holding: what was typed is put back at the front of the stream for the UI to read first, and the
   * terminal stays in raw mode for the UI (which restores line mode when it quits).
   *
   * Contract: call just before the UI starts reading the stream. Only the first `release` or `cancel`
   * does anything.
   */
  release(): void;
  /**
   * Stops holding, drops what was typed and puts the terminal back in line mode: the UI will not start
   * (an error, a usage message).
   *
   * Contract: only the first `release` or `cancel` does anything, so a `finally` may call it always.
   */
  cancel(): void;
}

/** A terminal's input: Node's `tty.ReadStream` has `isTTY` and `setRawMode`. */
export type TerminalInput = CliInput & { setRawMode?: (raw: boolean) => unknown };

const CTRL_C = 0x03;
const LINE_FEED = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * Starts holding the keys typed on `stdin` (in raw mode); undefined, doing nothing, when it is not a
 * terminal. A newline among the keys held is handed over as Enter (a carriage return, as raw mode sends
 * it): it is a line typed before raw mode. Ctrl-C while holding puts the terminal back in line mode and
 * calls `interrupt` (default: the process gets the `SIGINT` the key sends in line mode).
 */
export function holdTypeahead(
  stdin: TerminalInput,
  interrupt: () => void = () => process.kill(process.pid, "SIGINT"),
): Typeahead | undefined {
  const { setRawMode } = stdin;
  if (stdin.isTTY !== true || typeof setRawMode !== "function") return undefined;
  const held: Buffer[] = [];
  let holding = true;
  const stop = (handOver: boolean) => {
    holding = false;
    stdin.removeListener("readable", read);
    if (handOver) {
      const typed = Buffer.concat(held);
      for (let index = 0; index < typed.length; index++)
        if (typed[index] === LINE_FEED) typed[index] = CARRIAGE_RETURN;
      if (typed.length > 0) stdin.unshift(typed);
    } else {
      setRawMode.call(stdin, false);
      stdin.pause();
    }
  };
  function read(): void {
    while (holding) {
      const chunk = stdin.read() as Buffer | string | null;
      if (chunk === null) return;
      const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
      if (bytes.includes(CTRL_C)) {
        stop(false);
        interrupt();
        return;
      }
      held.push(bytes);
    }
  }
  setRawMode.call(stdin, true);
  stdin.on("readable", read);
  return {
    release() {
      if (!holding) return;
      read(); // What arrived since the last 'readable' event (it may hold a Ctrl-C).
      if (holding) stop(true);
    },
    cancel() {
      if (holding) stop(false);
    },
  };
}
