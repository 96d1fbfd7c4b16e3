/**
 * Reading the CLI's JSON configuration files (`settings.json`, `models.json`) and validating them against a
 * TypeBox schema, with errors that name the file and the field.
 */
import { readFileSync } from "node:fs";
import { type TSchema, validateToolArguments } from "@arbor/ai-providers";
import { ArborUserError, type ArborUserErrorCode } from "./errors.js";

/** `/compaction/reserveTokens` → `compaction.reserveTokens`; `""` → `(the file)`. */
export function fieldName(pointer: string): string {
  if (pointer === "") return "(the whole file)";
  return pointer
    .replace(/^\//, "")
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");
}

/** The 1-based line and column of a character offset. */
function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split("\n").length;
  const column = offset - before.lastIndexOf("\n");
  return `line ${line}, column ${column}`;
}

/**
 * Reads and parses a JSON file; `undefined` when it does not exist.
 *
 * @throws {ArborUserError} with `code` naming the file and what is wrong: unreadable, or not JSON (with the
 * line and column of the problem).
 */
export function readJsonFile(path: string, code: ArborUserErrorCode, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const errno = (error as NodeJS.ErrnoException).code;
    if (errno === "ENOENT" || errno === "ENOTDIR") return undefined;
    throw new ArborUserError(code, `Cannot read ${what} ${path}: ${(error as Error).message}`, 1, {
      cause: error,
    });
  }
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const message = (error as Error).message;
    const position = /position (\d+)/.exec(message);
    const where = position === null ? "" : ` (${lineAndColumn(text, Number(position[1]))})`;
    throw new ArborUserError(code, `Invalid ${what} ${path}: not valid JSON${where}: ${message}`, 1, {
      cause: error,
    });
  }
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  return `${typeof value} ${JSON.stringify(value)}`;
}

/**
 * The places where validation had to convert a value to accept it (`42` for a string, `"5"` for a number,
 * `2.5` for an integer, a lone value for an array): a configuration file must say what it means.
 */
function conversions(raw: unknown, checked: unknown, pointer: string, found: string[]): void {
  if (Array.isArray(raw) && Array.isArray(checked)) {
    for (const [index, item] of raw.entries())
      conversions(item, checked[index], `${pointer}/${index}`, found);
    return;
  }
  const isObject = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value);
  if (isObject(raw) && isObject(checked)) {
    for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
      conversions(value, (checked as Record<string, unknown>)[key], `${pointer}/${key}`, found);
    }
    return;
  }
  const expected = Array.isArray(checked) ? "an array" : typeof checked;
  if (Array.isArray(raw) !== Array.isArray(checked) || typeof raw !== typeof checked) {
    found.push(`  ${fieldName(pointer)}: expected ${expected}, received ${describeValue(raw)}`);
  } else if (typeof raw === "number" && raw !== checked) {
    found.push(`  ${fieldName(pointer)}: expected an integer, received ${describeValue(raw)}`);
  }
}

/**
 * Validates a parsed file against its schema and returns the value (defaults filled). Unlike tool arguments,
 * nothing is converted: a value of the wrong type is a problem, even when it could be converted.
 *
 * @throws {ArborUserError} listing every problem as `<field>: <what is wrong>`, after the file's path.
 */
export function validateConfig<T>(
  schema: TSchema,
  value: unknown,
  path: string,
  code: ArborUserErrorCode,
  what: string,
  /** What to do instead of an unknown field, by its name (another tool's field a user may bring along). */
  unknownFieldHints: Readonly<Record<string, string>> = {},
): T {
  const checked = validateToolArguments({ name: what, description: what, parameters: schema }, value);
  if (checked.ok) {
    const converted: string[] = [];
    conversions(value, checked.value, "", converted);
    if (converted.length === 0) return checked.value as T;
    throw new ArborUserError(code, `Invalid ${what} ${path}:\n${converted.join("\n")}`);
  }
  const problems = checked.errors.map((issue) => {
    if (!issue.message.startsWith("unexpected property"))
      return `  ${fieldName(issue.path)}: ${issue.message}`;
    const hint = unknownFieldHints[issue.path.split("/").at(-1) ?? ""];
    const message = hint ?? issue.message.replace("unexpected property", "unknown field");
    return `  ${fieldName(issue.path)}: ${message}`;
  });
  throw new ArborUserError(code, `Invalid ${what} ${path}:\n${problems.join("\n")}`);
}
