import { InvalidArgumentError } from "@arbor/ai-providers";
import { Kind, type TSchema } from "@sinclair/typebox";
import { type TypeCheck, TypeCompiler } from "@sinclair/typebox/compiler";
import { type ValueError, type ValueErrorIterator, ValueErrorType } from "@sinclair/typebox/errors";
import { excludedValues, STRING_OTHER_THAN_KIND, TIMESTAMP_KIND } from "./schema-kinds.js";

/**
 * Checking values against the session schemas with TypeBox's `TypeCompiler` (each schema compiled once),
 * and turning TypeBox's errors into short issues: a JSON pointer, what was expected and what was found.
 *
 * TypeBox reports a failed union as one error holding the errors of every member. Unions of objects
 * told apart by one property's `const` (`type`, `role`) are explained by the matching member only —
 * with at most one member without a `const` as the fallback — so a bad entry is reported against its own
 * type, not against every type; other unions by their only member of the value's JSON type, if any.
 */

/** One problem found in a value. */
export interface SchemaIssue {
  /** JSON pointer to the offending value, e.g. `/message/usage/cost`; `""` for the value itself. */
  path: string;
  /** What is wrong, e.g. `expected number, received string "12"`. */
  message: string;
}

/** Most issues reported for one value. */
const MAX_ISSUES = 8;

/** Error types that mean "not of the expected JSON type or value". */
const MISMATCHES: ReadonlySet<ValueErrorType> = new Set([
  ValueErrorType.Array,
  ValueErrorType.Boolean,
  ValueErrorType.Integer,
  ValueErrorType.Literal,
  ValueErrorType.Null,
  ValueErrorType.Number,
  ValueErrorType.Object,
  ValueErrorType.String,
]);

type JsonSchema = Record<string, unknown>;

interface Discriminator {
  property: string;
  /** Member index by the discriminating property's `const`. */
  byValue: Map<unknown, number>;
  /** The one member without a `const`, if any. */
  fallback: number | undefined;
}

const checks = new WeakMap<object, TypeCheck<TSchema>>();
const discriminators = new WeakMap<object, Discriminator | null>();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The compiled check of a TypeBox schema, compiled on first use and cached per schema object.
 *
 * Contract: throws `InvalidArgumentError` when `schema` is not a TypeBox schema (a plain JSON Schema
 * has none of TypeBox's kinds).
 */
export function compiledCheck(schema: TSchema): TypeCheck<TSchema> {
  let check = checks.get(schema);
  if (check === undefined) {
    try {
      check = TypeCompiler.Compile(schema);
    } catch (error) {
      throw new InvalidArgumentError(
        `Not a TypeBox schema (pass the TypeBox schema, not its JSON form): ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    checks.set(schema, check);
  }
  return check;
}

function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "string") {
    const text = value.length > 30 ? `${value.slice(0, 30)}…` : value;
    return `string ${JSON.stringify(text)}`;
  }
  if (typeof value === "number" || typeof value === "boolean") return `${typeof value} ${String(value)}`;
  return typeof value;
}

/** What a schema accepts, in a few words: `string`, `"stop" | "length"`, `object with type "text"`. */
function describeSchema(schema: unknown): string {
  if (!isRecord(schema)) return "any value";
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.anyOf)) return [...new Set(schema.anyOf.map(describeSchema))].join(" | ");
  if (typeof schema.type === "string") {
    if (schema.type === "object" && isRecord(schema.properties)) {
      for (const [key, property] of Object.entries(schema.properties)) {
        if (isRecord(property) && "const" in property)
          return `object with ${key} ${JSON.stringify(property.const)}`;
      }
    }
    return schema.type;
  }
  return "any value";
}

function typeMatches(type: unknown, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
    case "integer":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    default:
      return false;
  }
}

/** The discriminator of a union of objects, or null when the union is not one. */
function discriminatorOf(union: JsonSchema, members: readonly JsonSchema[]): Discriminator | null {
  const cached = discriminators.get(union);
  if (cached !== undefined) return cached;
  let result: Discriminator | null = null;
  const first = members[0]?.properties;
  if (members.length > 1 && isRecord(first)) {
    for (const property of Object.keys(first)) {
      const byValue = new Map<unknown, number>();
      let fallback: number | undefined;
      let valid = true;
      for (const [index, member] of members.entries()) {
        const definition = isRecord(member.properties) ? member.properties[property] : undefined;
        const required = Array.isArray(member.required) && member.required.includes(property);
        if (!isRecord(definition) || !required || member.type !== "object") valid = false;
        else if ("const" in definition && !byValue.has(definition.const))
          byValue.set(definition.const, index);
        else if (fallback === undefined && !("const" in definition)) fallback = index;
        else valid = false;
        if (!valid) break;
      }
      if (valid && byValue.size >= members.length - 1) {
        result = { property, byValue, fallback };
        break;
      }
    }
  }
  discriminators.set(union, result);
  return result;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Builds the issues of one value from TypeBox's errors: the first per path, at most {@link MAX_ISSUES}. */
class IssueList {
  readonly issues: SchemaIssue[] = [];
  private readonly paths = new Set<string>();

  full(): boolean {
    return this.issues.length >= MAX_ISSUES;
  }

  add(path: string, message: string): void {
    if (this.full() || this.paths.has(path)) return;
    this.paths.add(path);
    this.issues.push({ path, message });
  }

  /**
   * TypeBox reports a missing required property twice: first with the other missing ones (before the
   * object's properties are visited), then as the property's own error. The issue is placed at the
   * second, so that issues follow the schema's property order.
   */
  collect(errors: Iterable<ValueError>): void {
    const missing = new Map<string, ValueError>();
    for (const error of errors) {
      if (this.full()) return;
      if (error.type === ValueErrorType.ObjectRequiredProperty) {
        missing.set(error.path, error);
        continue;
      }
      const required = missing.get(error.path);
      if (required === undefined) this.explain(error);
      else {
        missing.delete(error.path);
        this.add(error.path, `required property missing (expected ${describeSchema(required.schema)})`);
      }
    }
    for (const error of missing.values()) {
      this.add(error.path, `required property missing (expected ${describeSchema(error.schema)})`);
    }
  }

  private explain(error: ValueError): void {
    const { path, schema, value } = error;
    if (value === undefined && path !== "") {
      // A property set to `undefined` (which JSON cannot hold) is as good as missing.
      this.add(path, `required property missing (expected ${describeSchema(schema)})`);
    } else if (error.type === ValueErrorType.Union) {
      this.explainUnion(error);
    } else if (error.type === ValueErrorType.Kind) {
      this.add(path, describeKindError(schema, value, error.message));
    } else if (MISMATCHES.has(error.type)) {
      this.add(path, `expected ${describeSchema(schema)}, received ${describeValue(value)}`);
    } else {
      this.add(path, `${error.message.replace(/^Expected/, "expected")}, received ${describeValue(value)}`);
    }
  }

  private explainUnion(error: ValueError): void {
    const { path, value } = error;
    const union = error.schema as unknown as JsonSchema;
    const members = (Array.isArray(union.anyOf) ? union.anyOf : []) as JsonSchema[];
    const memberErrors = (index: number | undefined): ValueErrorIterator | undefined =>
      index === undefined ? undefined : error.errors[index];
    const discriminator = discriminatorOf(union, members);
    if (discriminator !== null && isRecord(value)) {
      const tag = value[discriminator.property];
      const errors = memberErrors(discriminator.byValue.get(tag) ?? discriminator.fallback);
      if (errors !== undefined) this.collect(errors);
      else {
        const known = [...discriminator.byValue.keys()].map((key) => JSON.stringify(key)).join(", ");
        this.add(
          `${path}/${escapePointer(discriminator.property)}`,
          `expected one of ${known}, received ${describeValue(tag)}`,
        );
      }
      return;
    }
    // When one member alone has the value's JSON type, its problems say more than "expected a | b".
    const sameType = members.flatMap((member, index) => (typeMatches(member.type, value) ? [index] : []));
    const only = sameType.length === 1 ? memberErrors(sameType[0]) : undefined;
    if (only !== undefined) this.collect(only);
    else this.add(path, `expected ${describeSchema(union)}, received ${describeValue(value)}`);
  }
}

function describeKindError(schema: TSchema, value: unknown, fallback: string): string {
  const kind = schema[Kind];
  if (kind === STRING_OTHER_THAN_KIND && typeof value === "string") {
    const excluded = excludedValues(schema).map((item) => JSON.stringify(item));
    return `expected a string other than ${excluded.join(", ")}, received ${describeValue(value)}`;
  }
  if (kind === STRING_OTHER_THAN_KIND || kind === TIMESTAMP_KIND) {
    return `expected string, received ${describeValue(value)}`;
  }
  return `${fallback.replace(/^Expected/, "expected")}, received ${describeValue(value)}`;
}

/** The issues of a value that failed a compiled check (at least one). */
export function issuesOf(check: TypeCheck<TSchema>, value: unknown): SchemaIssue[] {
  const list = new IssueList();
  list.collect(check.Errors(value));
  if (list.issues.length === 0) {
    const first = check.Errors(value).First();
    list.add(first?.path ?? "", first?.message ?? "invalid value");
  }
  return list.issues;
}

/**
 * Checks a value against a TypeBox schema (any of this package's, or another): TypeBox's compiled check
 * (compiled once per schema object), and when it fails, the problems found — at most 8, the first per
 * path, each with a JSON pointer and `expected …, received …`. Fields a schema does not name are
 * allowed (as in all of this package's schemas). Returns an empty array when the value is valid.
 *
 * Contract: never mutates the value; throws `InvalidArgumentError` when `schema` is not a TypeBox
 * schema — a plain JSON Schema (such as `sessionFormatJsonSchema()`'s definitions) has lost TypeBox's
 * kinds: pass the TypeBox schema it was generated from.
 */
export function checkSchema(schema: unknown, value: unknown): SchemaIssue[] {
  if (typeof schema !== "object" || schema === null) {
    throw new InvalidArgumentError(
      `checkSchema: expected a TypeBox schema, received ${describeValue(schema)}`,
    );
  }
  const check = compiledCheck(schema as TSchema);
  return check.Check(value) ? [] : issuesOf(check, value);
}
