/**
 * A small checker for the JSON Schema keywords the session schemas use (`type`, `const`, `enum`, `not`,
 * `anyOf`, `properties`, `required`, `items`, `patternProperties`). TypeBox's own `Value`/`TypeCompiler`
 * are not reachable from this package (its only dependency is `@arbor/ai-providers`, which re-exports
 * `Type`, `Static` and `TSchema`); the schemas stay the single source of truth either way.
 *
 * Unions whose members are objects told apart by one property's `const` (`type`, `role`) are checked
 * against the matching member only — with at most one member without a `const` as the fallback — so a
 * bad entry is reported against its own type, not against every type.
 */

/** One problem found in a value. */
export interface SchemaIssue {
  /** JSON pointer to the offending value, e.g. `/message/usage/cost`; `""` for the value itself. */
  path: string;
  /** What is wrong, e.g. `expected number, received string "12"`. */
  message: string;
}

type JsonSchema = Record<string, unknown>;

/** Most issues reported for one value. */
const MAX_ISSUES = 8;

interface Discriminator {
  property: string;
  byValue: Map<unknown, JsonSchema>;
  fallback: JsonSchema | undefined;
}

const discriminators = new WeakMap<object, Discriminator | null>();
const patterns = new Map<string, RegExp>();

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The discriminator of a union of objects, or null when the union is not one. */
function discriminatorOf(schema: JsonSchema, members: readonly JsonSchema[]): Discriminator | null {
  const cached = discriminators.get(schema);
  if (cached !== undefined) return cached;
  let result: Discriminator | null = null;
  const first = members[0]?.properties;
  if (members.length > 1 && isRecord(first)) {
    for (const property of Object.keys(first)) {
      const byValue = new Map<unknown, JsonSchema>();
      let fallback: JsonSchema | undefined;
      let valid = true;
      for (const member of members) {
        const definition = isRecord(member.properties) ? member.properties[property] : undefined;
        const required = Array.isArray(member.required) && member.required.includes(property);
        if (!isRecord(definition) || !required || member.type !== "object") {
          valid = false;
          break;
        }
        if ("const" in definition && !byValue.has(definition.const)) byValue.set(definition.const, member);
        else if (fallback === undefined && !("const" in definition)) fallback = member;
        else {
          valid = false;
          break;
        }
      }
      if (valid && byValue.size >= members.length - 1) {
        result = { property, byValue, fallback };
        break;
      }
    }
  }
  discriminators.set(schema, result);
  return result;
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

function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "array":
      return Array.isArray(value);
    case "object":
      return isRecord(value);
    default:
      return true;
  }
}

function pattern(source: string): RegExp {
  let compiled = patterns.get(source);
  if (compiled === undefined) {
    compiled = new RegExp(source, "u");
    patterns.set(source, compiled);
  }
  return compiled;
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

class Checker {
  readonly issues: SchemaIssue[] = [];

  full(): boolean {
    return this.issues.length >= MAX_ISSUES;
  }

  report(path: string, message: string): false {
    if (!this.full()) this.issues.push({ path, message });
    return false;
  }

  check(schema: unknown, value: unknown, path: string): boolean {
    if (!isRecord(schema)) return true;
    if (Array.isArray(schema.anyOf))
      return this.checkUnion(schema, schema.anyOf as JsonSchema[], value, path);
    if ("const" in schema && value !== schema.const) {
      return this.report(path, `expected ${JSON.stringify(schema.const)}, received ${describeValue(value)}`);
    }
    if (typeof schema.type === "string" && !typeMatches(schema.type, value)) {
      return this.report(path, `expected ${schema.type}, received ${describeValue(value)}`);
    }
    if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
      return this.report(
        path,
        `expected one of ${JSON.stringify(schema.enum)}, received ${describeValue(value)}`,
      );
    }
    if (isRecord(schema.not) && new Checker().check(schema.not, value, path)) {
      return this.report(path, `must not be ${describeSchema(schema.not)}, received ${describeValue(value)}`);
    }
    if (schema.type === "array" && Array.isArray(value) && isRecord(schema.items)) {
      let ok = true;
      for (let index = 0; index < value.length && !this.full(); index++) {
        ok = this.check(schema.items, value[index], `${path}/${index}`) && ok;
      }
      return ok;
    }
    if (schema.type === "object" && isRecord(value)) return this.checkObject(schema, value, path);
    return true;
  }

  private checkObject(schema: JsonSchema, value: Record<string, unknown>, path: string): boolean {
    let ok = true;
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const properties = isRecord(schema.properties) ? schema.properties : {};
    for (const [key, property] of Object.entries(properties)) {
      if (this.full()) break;
      const where = `${path}/${escapePointer(key)}`;
      if (value[key] !== undefined) ok = this.check(property, value[key], where) && ok;
      else if (required.has(key))
        ok = this.report(where, `required property missing (expected ${describeSchema(property)})`);
    }
    for (const key of required) {
      if (!(key in properties) && value[key] === undefined) {
        ok = this.report(`${path}/${escapePointer(key)}`, "required property missing");
      }
    }
    if (isRecord(schema.patternProperties)) {
      for (const [source, property] of Object.entries(schema.patternProperties)) {
        const expression = pattern(source);
        for (const [key, item] of Object.entries(value)) {
          if (this.full()) break;
          if (expression.test(key)) ok = this.check(property, item, `${path}/${escapePointer(key)}`) && ok;
        }
      }
    }
    return ok;
  }

  private checkUnion(schema: JsonSchema, members: JsonSchema[], value: unknown, path: string): boolean {
    const discriminator = discriminatorOf(schema, members);
    if (discriminator !== null && isRecord(value)) {
      const tag = value[discriminator.property];
      const member = discriminator.byValue.get(tag) ?? discriminator.fallback;
      if (member !== undefined) return this.check(member, value, path);
      const known = [...discriminator.byValue.keys()].map((key) => JSON.stringify(key)).join(", ");
      return this.report(
        `${path}/${escapePointer(discriminator.property)}`,
        `expected one of ${known}, received ${describeValue(tag)}`,
      );
    }
    for (const member of members) {
      if (new Checker().check(member, value, path)) return true;
    }
    // When one member alone has the value's JSON type, its problems say more than "expected a | b".
    const sameType = members.filter(
      (member) => typeof member.type === "string" && typeMatches(member.type, value),
    );
    if (sameType.length === 1 && sameType[0] !== undefined) return this.check(sameType[0], value, path);
    return this.report(path, `expected ${describeSchema(schema)}, received ${describeValue(value)}`);
  }
}

/**
 * Checks a value against a JSON Schema (a TypeBox schema). Returns the problems found (at most 8; the
 * first per failing branch), an empty array when the value is valid. Fields the schema does not name
 * are allowed.
 *
 * Contract: never throws for any value, never mutates it; runs in time linear in the value's size.
 */
export function checkSchema(schema: unknown, value: unknown): SchemaIssue[] {
  const checker = new Checker();
  checker.check(schema, value, "");
  return checker.issues;
}
