/**
 * The few text styles of the tour's output, as ANSI escapes — or plain text when colours are off for the
 * output stream (not a terminal, or `NO_COLOR` set).
 */
import { type CliIo, type CliOutput, colorEnabled } from "../../io.js";

/** Functions that style a piece of text. */
export interface Style {
  prompt(text: string): string;
  heading(text: string): string;
  dim(text: string): string;
  tool(text: string): string;
  mark(text: string): string;
  error(text: string): string;
  added(text: string): string;
}

const wrap = (open: string, close: string) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

/** The styles for text written to `stream`: coloured when {@link colorEnabled} allows it, else plain. */
export function createStyle(stream: CliOutput, env: CliIo["env"]): Style {
  if (!colorEnabled(stream, env)) {
    const plain = (text: string) => text;
    return {
      prompt: plain,
      heading: plain,
      dim: plain,
      tool: plain,
      mark: plain,
      error: plain,
      added: plain,
    };
  }
  return {
    prompt: wrap("1;36", "22;39"),
    heading: wrap("1", "22"),
    dim: wrap("2", "22"),
    tool: wrap("33", "39"),
    mark: wrap("35", "39"),
    error: wrap("31", "39"),
    added: wrap("32", "39"),
  };
}
