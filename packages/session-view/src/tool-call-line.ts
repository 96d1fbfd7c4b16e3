/**
 * A tool call on one line, the one renderer of a call every view uses. Three styles of the arguments:
 * - `fields` (the transcript): `read path: src/a.ts, limit: 20` — strings as they are, other values as JSON
 *   (a file change, `edit` or `write`: its file only, `edit src/a.ts`);
 * - `json` (`arbor sessions show`, tree previews): `read({"path":"src/a.ts"})` — exact, for inspection;
 * - `main` (a narrated run): `read src/a.ts`, `grep warning in src` — only the argument that names the work.
 */
import { clipText, singleLine } from "./format.js";
import { isFileChangeTool } from "./tool-diff.js";

/** How a call's arguments show; see the module comment. */
export type ToolArgumentStyle = "fields" | "json" | "main";

/** Options of {@link toolCallLine} and {@link toolArgumentsText}. */
export interface ToolCallLineOptions {
  /** Default `fields`. */
  style?: ToolArgumentStyle;
  /** Longest result, in characters (default 160 for `fields`, 100 for `main`, unlimited for `json`). */
  max?: number;
}

/** The arguments that name what a call works on, in order of preference (`main` style). */
const MAIN_ARGUMENTS = ["command", "pattern", "path", "query", "ids"] as const;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** JSON of any value, never throwing (`undefined` and cycles become a note). */
export function safeJson(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent) ?? "undefined";
  } catch {
    return "(not JSON data)";
  }
}

function fieldValue(value: unknown): string {
  if (typeof value === "string") return value.includes("\n") ? JSON.stringify(value) : value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function fieldsText(args: unknown, max: number): string {
  if (!isRecord(args)) return clipText(fieldValue(args), max);
  const parts: string[] = [];
  let length = 0;
  for (const [key, value] of Object.entries(args)) {
    const part = `${key}: ${fieldValue(value)}`;
    parts.push(part);
    length += part.length + 2;
    if (length > max) break;
  }
  return clipText(singleLine(parts.join(", ")), max);
}

function mainText(name: string, args: unknown): string {
  if (!isRecord(args)) return "";
  const text = (value: unknown) => (typeof value === "string" ? value : safeJson(value));
  const key = MAIN_ARGUMENTS.find((candidate) => args[candidate] !== undefined && args[candidate] !== null);
  const shown = key === undefined ? "" : text(args[key]);
  const extra = name === "grep" && args.path !== undefined ? ` in ${text(args.path)}` : "";
  return `${shown}${extra}`;
}

/**
 * A call's arguments on one line, in the given style (without the tool's name).
 *
 * Contract: pure; never throws (cyclic values print as a note or `[object Object]`); the result has no
 * newline in the `fields` and `main` styles.
 */
export function toolArgumentsText(args: unknown, options: ToolCallLineOptions = {}): string {
  const style = options.style ?? "fields";
  if (style === "json") {
    const json = isRecord(args) && Object.keys(args).length === 0 ? "" : safeJson(args);
    return options.max === undefined ? json : clipText(json, options.max);
  }
  if (style === "main") return clipText(singleLine(mainText("", args)), options.max ?? 100);
  return fieldsText(args, options.max ?? 160);
}

/**
 * A tool call on one line: `read path: a.ts` (`fields`), `read({"path":"a.ts"})` (`json`), `read a.ts`
 * (`main`); cut at `max` characters.
 *
 * Contract: pure; never throws.
 */
export function toolCallLine(name: string, args: unknown, options: ToolCallLineOptions = {}): string {
  const style = options.style ?? "fields";
  if (style === "json") {
    const line = `${name}(${toolArgumentsText(args, { style })})`;
    return options.max === undefined ? line : clipText(line, options.max);
  }
  if (style === "main") {
    const shown = mainText(name, args);
    return clipText(singleLine(shown === "" ? name : `${name} ${shown}`), options.max ?? 100);
  }
  // A file change's arguments are its whole text: its file names it (the diff shows what changed).
  const file = isFileChangeTool(name) ? clipText(singleLine(mainText(name, args)), options.max ?? 160) : "";
  if (file !== "") return `${name} ${file}`;
  const fields = fieldsText(args, options.max ?? 160);
  return fields === "" ? name : `${name} ${fields}`;
}
