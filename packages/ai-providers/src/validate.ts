import { Kind, type TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { type ValueError, ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import { InvalidArgumentError } from "./errors.js";
import type { Tool } from "./types.js";

/** One problem found in a tool call's arguments. */
export interface ValidationIssue {
  /** JSON pointer to the offending value, e.g. `/edits/0/oldText`; `""` for the arguments themselves. */
  path: string;
  /** What is wrong, e.g. `expected string, received number 5` or `required property missing`. */
  message: string;
  /** What the schema wants at `path`, e.g. `string`, `integer >= 1`, `one of "a" | "b"`. */
  expected?: string;
  /** A short description of the value found, e.g. `number 5`, `string "abc…"`, `undefined (missing)`. */
  received?: string;
}

/**
 * The outcome of {@link validateToolArguments}: the arguments to run the tool with, or a message the
 * model can act on together with the issues it lists.
 */
export type ValidationResult =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; message: string; errors: ValidationIssue[] };

/** Most issues collected for one call; a model fixes the first ones first anyway. */
const MAX_ISSUES = 30;

/** Longest echo of the received arguments in the message. */
const MAX_ARGUMENTS_ECHO = 500;

/** Longest value excerpt in a `received` description. */
const MAX_VALUE_EXCERPT = 40;

const checkers = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** A tool whose parameters are (expected to be) a TypeBox schema. */
type TypeBoxTool = Pick<Tool<TSchema>, "name" | "parameters">;

/** The compiled checker of a schema, compiled on first use. */
function checkerFor(tool: TypeBoxTool): TypeCheck<TSchema> {
  let checker = checkers.get(tool.parameters);
  if (checker === undefined) {
    try {
      checker = TypeCompiler.Compile(tool.parameters);
    } catch (error) {
      throw new InvalidArgumentError(
        `The parameters of tool "${tool.name}" are not a valid TypeBox schema: ${errorText(error)}`,
      );
    }
    checkers.set(tool.parameters, checker);
  }
  return checker;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** `JSON.stringify` that never throws (cycles, BigInt) and never returns `undefined`. */
function toJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

function cut(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length)}…` : text;
}

/** A short description of a value: its JSON type and an excerpt, e.g. `string "abc…"`. */
function describeValue(value: unknown): string {
  if (value === undefined) return "undefined";
  if (value === null) return "null";
  if (Array.isArray(value)) return `array ${cut(toJson(value), MAX_VALUE_EXCERPT)}`;
  switch (typeof value) {
    case "string":
      return value.length > MAX_VALUE_EXCERPT
        ? `string ${JSON.stringify(value.slice(0, MAX_VALUE_EXCERPT)).slice(0, -1)}…"`
        : `string ${JSON.stringify(value)}`;
    case "number":
    case "boolean":
    case "bigint":
      return `${typeof value} ${String(value)}`;
    case "object":
      return `object ${cut(toJson(value), MAX_VALUE_EXCERPT)}`;
    default:
      return typeof value;
  }
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function numberBounds(schema: Record<string, unknown>): string[] {
  const bounds: string[] = [];
  if (typeof schema.minimum === "number") bounds.push(`>= ${schema.minimum}`);
  if (typeof schema.exclusiveMinimum === "number") bounds.push(`> ${schema.exclusiveMinimum}`);
  if (typeof schema.maximum === "number") bounds.push(`<= ${schema.maximum}`);
  if (typeof schema.exclusiveMaximum === "number") bounds.push(`< ${schema.exclusiveMaximum}`);
  if (typeof schema.multipleOf === "number") bounds.push(`multiple of ${schema.multipleOf}`);
  return bounds;
}

function stringBounds(schema: Record<string, unknown>): string[] {
  const bounds: string[] = [];
  const { minLength, maxLength } = schema;
  if (typeof minLength === "number" && typeof maxLength === "number") {
    bounds.push(`of ${minLength} to ${plural(maxLength, "character")}`);
  } else if (typeof minLength === "number") {
    bounds.push(`of at least ${plural(minLength, "character")}`);
  } else if (typeof maxLength === "number") {
    bounds.push(`of at most ${plural(maxLength, "character")}`);
  }
  if (typeof schema.pattern === "string") bounds.push(`matching /${schema.pattern}/`);
  if (typeof schema.format === "string") bounds.push(`in format "${schema.format}"`);
  return bounds;
}

/** An array type, e.g. `array of string` or `array of at least 1 item, each string`. */
function describeArray(schema: Record<string, unknown>): string {
  const { minItems, maxItems, items } = schema;
  let count = "";
  if (typeof minItems === "number" && typeof maxItems === "number") {
    count = `of ${minItems} to ${plural(maxItems, "item")}`;
  } else if (typeof minItems === "number") {
    count = `of at least ${plural(minItems, "item")}`;
  } else if (typeof maxItems === "number") {
    count = `of at most ${plural(maxItems, "item")}`;
  }
  const unique = schema.uniqueItems === true ? " (unique)" : "";
  const item = items === undefined || Array.isArray(items) ? undefined : describeSchema(items);
  if (item === undefined) return `array${count === "" ? "" : ` ${count}`}${unique}`;
  return count === "" ? `array of ${item}${unique}` : `array ${count}${unique}, each ${item}`;
}

function withBounds(base: string, bounds: string[]): string {
  return bounds.length > 0 ? `${base} ${bounds.join(", ")}` : base;
}

/** An object described by its literal-valued properties (discriminators), e.g. `object with kind "a"`. */
function describeObject(schema: Record<string, unknown>): string {
  const properties = schema.properties;
  if (typeof properties !== "object" || properties === null) return "object";
  const literals: string[] = [];
  for (const [key, property] of Object.entries(properties)) {
    if (typeof property === "object" && property !== null && "const" in property) {
      literals.push(`${key} ${JSON.stringify(property.const)}`);
    }
  }
  return literals.length > 0 ? `object with ${literals.join(", ")}` : "object";
}

/** The alternatives of a union or enum, e.g. `one of "a" | "b"` or `number | null`. */
function describeAlternatives(variants: readonly unknown[]): string {
  const described = [...new Set(variants.map(describeSchema))];
  const allLiterals = variants.every(
    (variant) => typeof variant !== "object" || variant === null || "const" in variant,
  );
  return allLiterals ? `one of ${described.join(" | ")}` : described.join(" | ");
}

/**
 * What a schema accepts, in a few words: `string`, `integer >= 1`, `one of "a" | "b"`,
 * `array of string with at least 1 item`, …
 */
function describeSchema(schema: unknown): string {
  if (typeof schema !== "object" || schema === null) return "any value";
  const record = schema as Record<string | symbol, unknown>;
  if ("const" in record) return toJson(record.const);
  if (Array.isArray(record.enum)) return `one of ${record.enum.map(toJson).join(" | ")}`;
  if (Array.isArray(record.anyOf)) return describeAlternatives(record.anyOf);
  if (Array.isArray(record.oneOf)) return describeAlternatives(record.oneOf);
  if (Array.isArray(record.allOf)) return record.allOf.map(describeSchema).join(" and ");
  const type = record.type;
  if (Array.isArray(type)) return type.map(String).join(" | ");
  switch (type) {
    case "string":
      return withBounds("string", stringBounds(record));
    case "number":
    case "integer":
      return withBounds(type, numberBounds(record));
    case "array":
      return describeArray(record);
    case "object":
      return describeObject(record);
    case "boolean":
    case "null":
      return type;
  }
  if (record.not !== undefined) return `anything but ${describeSchema(record.not)}`;
  if (typeof record.$ref === "string") return `a value of type ${record.$ref}`;
  const kind = record[Kind];
  if (kind === "Never") return "no value";
  if (kind === "Undefined") return "undefined";
  return "any value";
}

/** Names of an object schema's properties, for the "unexpected property" issue. */
function allowedProperties(schema: TSchema): string {
  const properties = (schema as { properties?: unknown }).properties;
  if (typeof properties !== "object" || properties === null) return "none";
  const names = Object.keys(properties);
  return names.length > 0 ? names.join(", ") : "none";
}

/** Turns one TypeBox error into an issue. */
function toIssue(error: ValueError): ValidationIssue {
  const path = error.path;
  if (error.type === ValueErrorType.ObjectRequiredProperty) {
    const expected = describeSchema(error.schema);
    return {
      path,
      message: `required property missing (expected ${expected})`,
      expected,
      received: "undefined (missing)",
    };
  }
  if (
    error.type === ValueErrorType.ObjectAdditionalProperties ||
    error.type === ValueErrorType.IntersectUnevaluatedProperties
  ) {
    const received = describeValue(error.value);
    return {
      path,
      message: `unexpected property (allowed properties: ${allowedProperties(error.schema)})`,
      received,
    };
  }
  const expected = describeSchema(error.schema);
  const received = describeValue(error.value);
  return { path, message: `expected ${expected}, received ${received}`, expected, received };
}

/** The first issue per path, at most {@link MAX_ISSUES}. */
function collectIssues(errors: Iterable<ValueError>): { issues: ValidationIssue[]; truncated: boolean } {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (seen.has(error.path)) continue;
    if (issues.length === MAX_ISSUES) return { issues, truncated: true };
    seen.add(error.path);
    issues.push(toIssue(error));
  }
  return { issues, truncated: false };
}

/**
 * The failed {@link ValidationResult} of a call of `toolName` with `args`: the message lists each issue on
 * its own line under `Invalid arguments for tool "<name>":`, then an excerpt of the arguments received —
 * the one message format of every schema kind (TypeBox here; JSON Schema and Standard Schema in agent-core).
 *
 * Contract: pure; never throws (arguments that cannot be serialized are shown with `String`).
 */
export function validationFailure(
  toolName: string,
  args: unknown,
  issues: ValidationIssue[],
  truncated = false,
): Extract<ValidationResult, { ok: false }> {
  const lines = [`Invalid arguments for tool "${toolName}":`];
  for (const issue of issues)
    lines.push(`  - ${issue.path === "" ? "(root)" : issue.path}: ${issue.message}`);
  if (truncated) lines.push("  - (further issues omitted)");
  lines.push(`Received arguments: ${cut(toJson(args), MAX_ARGUMENTS_ECHO)}`);
  return { ok: false, message: lines.join("\n"), errors: issues };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Checks a tool call's arguments against the tool's TypeBox schema, repairing what models commonly get
 * wrong first: values are converted where TypeBox's `Value.Convert` can (`"5"` → `5` for a number,
 * `"true"` → `true`, `5` → `"5"` for a string; note it also truncates `2.5` → `2` for an integer and
 * wraps a lone value into a one-item array), then missing properties with a `default` are filled.
 *
 * Contract: never mutates `args` (it works on a `structuredClone`) and never throws for bad arguments —
 * arguments that are not a JSON object (null, an array, a string, `undefined`) or cannot be cloned are
 * an issue at the root path `""`. Issues list the first error per JSON-pointer path, at most 30. The
 * compiled checker is cached per schema object, so validating against one tool again is cheap. Throws
 * {@link InvalidArgumentError} only when `tool.parameters` is not a TypeBox schema (a plain JSON schema
 * without TypeBox's kinds, or one with unresolved references): agent-core's `validateAgentToolArguments`
 * takes every schema kind.
 */
export function validateToolArguments(
  tool: { readonly name: string; readonly description?: string; readonly parameters: object },
  args: unknown,
): ValidationResult {
  const typed = tool as TypeBoxTool;
  const checker = checkerFor(typed);
  let value: unknown;
  try {
    value = structuredClone(args);
  } catch (error) {
    return validationFailure(tool.name, args, [
      {
        path: "",
        message: `arguments are not plain JSON data (${errorText(error)})`,
        expected: "object",
        received: describeValue(args),
      },
    ]);
  }
  try {
    value = Value.Convert(typed.parameters, value);
    value = Value.Default(typed.parameters, value);
  } catch {
    // Repairs are best effort: the check below reports what they could not fix.
  }
  if (!isPlainObject(value)) {
    const received = describeValue(value);
    return validationFailure(tool.name, args, [
      { path: "", message: `expected object, received ${received}`, expected: "object", received },
    ]);
  }
  if (checker.Check(value)) return { ok: true, value };
  const { issues, truncated } = collectIssues(checker.Errors(value));
  return validationFailure(tool.name, args, issues, truncated);
}
