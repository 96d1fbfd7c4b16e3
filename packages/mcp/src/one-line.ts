/**
 * Every MCP failure a user sees is one line: what a third-party server sends (an error message with a stack
 * in it, a tool name with a newline, a schema validator's multi-line dump of issues) is flattened and clipped
 * here before it becomes part of a message.
 */

/** The longest reason a message carries (the rest is cut with `…`). */
const MAX_REASON = 300;

/** The longest name a message quotes. */
const MAX_NAME = 80;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A text on one line: runs of whitespace (newlines included) become one space, and it is cut at `max`. */
export function oneLine(text: string, max = MAX_REASON): string {
  return clip(text.replace(/\s+/g, " ").trim(), max);
}

/** A name from a server, quoted for a message: `"echo"` (control characters escaped, long names cut). */
export function quoted(name: string): string {
  return JSON.stringify(clip(name, MAX_NAME));
}

interface Issue {
  path?: readonly PropertyKey[];
  message?: string;
}

/**
 * Why something failed, in one line: an `Error`'s message, or for a schema validator's error (an `issues`
 * list, as zod throws when a server's answer does not have the protocol's shape) its first issue with its
 * path, e.g. `content: expected array, received string (and 1 more problem)`.
 *
 * Contract: pure; never throws; never returns a line break.
 */
export function describeFailure(error: unknown): string {
  const issues = (error as { issues?: unknown } | null)?.issues;
  if (Array.isArray(issues) && issues.length > 0) {
    const first = issues[0] as Issue;
    const path = (first.path ?? []).map(String).join(".");
    const more =
      issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : "";
    return oneLine(`${path === "" ? "" : `${path}: `}${first.message ?? "invalid"}${more}`);
  }
  if (error instanceof Error) return oneLine(error.message || error.name);
  return oneLine(typeof error === "string" ? error : String(error));
}
