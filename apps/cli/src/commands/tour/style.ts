/**
 * The few text styles of the tour's output, as ANSI escapes — or plain text when colours are off (not a
 * terminal, or `NO_COLOR` set).
 */

/** Functions that style a piece of text. */
export interface Style {
  prompt(text: string): string;
  heading(text: string): string;
  dim(text: string): string;
  tool(text: string): string;
  mark(text: string): string;
  error(text: string): string;
}

const wrap = (open: string, close: string) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

/** The styles, coloured or plain. */
export function createStyle(color: boolean): Style {
  if (!color) {
    const plain = (text: string) => text;
    return { prompt: plain, heading: plain, dim: plain, tool: plain, mark: plain, error: plain };
  }
  return {
    prompt: wrap("1;36", "22;39"),
    heading: wrap("1", "22"),
    dim: wrap("2", "22"),
    tool: wrap("33", "39"),
    mark: wrap("35", "39"),
    error: wrap("31", "39"),
  };
}
