import { Kind, type TUnsafe, Type, TypeRegistry } from "@sinclair/typebox";

/**
 * Two string schemas whose JSON Schema keywords TypeBox's checker does not enforce the way the session
 * format means them, given kinds of their own (registered with TypeBox's `TypeRegistry`) so that
 * `TypeCompiler` checks them exactly. Their JSON form is unchanged: `{ "type": "string", "format":
 * "date-time" }` and `{ "type": "string", "not": { "enum": [...] } }`.
 */

/** Kind of a string whose `format: "date-time"` documents it and is not enforced. */
export const TIMESTAMP_KIND = "ArborSessionTimestamp";

/** Kind of a string that must not be one of `not.enum`. */
export const STRING_OTHER_THAN_KIND = "ArborSessionStringOtherThan";

/** The values a {@link stringOtherThan} schema excludes. */
export function excludedValues(schema: unknown): readonly unknown[] {
  const not = (schema as { not?: { enum?: unknown } }).not;
  return Array.isArray(not?.enum) ? not.enum : [];
}

function register(): void {
  if (!TypeRegistry.Has(TIMESTAMP_KIND)) {
    TypeRegistry.Set(TIMESTAMP_KIND, (_schema, value) => typeof value === "string");
  }
  if (!TypeRegistry.Has(STRING_OTHER_THAN_KIND)) {
    TypeRegistry.Set(
      STRING_OTHER_THAN_KIND,
      (schema, value) => typeof value === "string" && !excludedValues(schema).includes(value),
    );
  }
}

/**
 * An ISO 8601 timestamp: `{ "type": "string", "format": "date-time" }`. The format is documentation:
 * any string is accepted (the pi agent's files and the entries applications write are not checked
 * against RFC 3339, and a bad timestamp must never make an entry unreadable).
 */
export function timestampString(description: string): TUnsafe<string> {
  register();
  return Type.Unsafe<string>({ [Kind]: TIMESTAMP_KIND, format: "date-time", description, type: "string" });
}

/**
 * A string other than the given values: `{ "type": "string", "not": { "enum": values } }` — how an
 * entry of an unknown type, or a message of an unknown role, is told from the known ones.
 */
export function stringOtherThan(values: readonly string[]): TUnsafe<string> {
  register();
  return Type.Unsafe<string>({ [Kind]: STRING_OTHER_THAN_KIND, not: { enum: [...values] }, type: "string" });
}
