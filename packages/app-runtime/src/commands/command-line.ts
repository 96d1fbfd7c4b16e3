/**
 * How a typed line names a command: `/name rest`. One rule for the slash commands, extension commands and
 * print mode's `arbor -p "/name …"`.
 */

/** `/name rest` split, or undefined when the text is not a command (a path like `/usr/bin` is not). */
export function parseCommandLine(text: string): { name: string; argumentText: string } | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (match === null) return undefined;
  const name = match[1]!;
  if (name.includes("/")) return undefined;
  return { name, argumentText: (match[2] ?? "").trim() };
}
