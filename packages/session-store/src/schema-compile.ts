/**
 * Compiles a JSON Schema (the subset `checkSchema` understands) into a fast yes/no test: a tree of
 * closures built once per schema, with no issue collection and no path strings. Validation runs the
 * test first and only walks the schema again with `checkSchema` to explain a failure — so reading a
 * valid session costs a fraction of parsing it.
 */

type JsonSchema = Record<string, unknown>;

/** A compiled test: true when the value satisfies the schema. */
export type SchemaTest = (value: unknown) => boolean;

const compiled = new WeakMap<object, SchemaTest>();
const always: SchemaTest = () => true;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeTest(type: unknown): SchemaTest | undefined {
  switch (type) {
    case "string":
      return (value) => typeof value === "string";
    case "number":
      return (value) => typeof value === "number" && Number.isFinite(value);
    case "integer":
      return (value) => typeof value === "number" && Number.isInteger(value);
    case "boolean":
      return (value) => typeof value === "boolean";
    case "null":
      return (value) => value === null;
    case "array":
      return Array.isArray;
    case "object":
      return isRecord;
    default:
      return undefined;
  }
}

/** The discriminating property of a union of objects (see `checkSchema`), with a test per tag. */
function compileDiscriminated(members: JsonSchema[]): SchemaTest | undefined {
  const first = members[0]?.properties;
  if (members.length < 2 || !isRecord(first)) return undefined;
  for (const property of Object.keys(first)) {
    const byTag = new Map<unknown, SchemaTest>();
    let fallback: SchemaTest | undefined;
    let valid = true;
    for (const member of members) {
      const definition = isRecord(member.properties) ? member.properties[property] : undefined;
      const required = Array.isArray(member.required) && member.required.includes(property);
      if (!isRecord(definition) || !required || member.type !== "object") {
        valid = false;
        break;
      }
      if ("const" in definition && !byTag.has(definition.const))
        byTag.set(definition.const, compileSchema(member));
      else if (fallback === undefined && !("const" in definition)) fallback = compileSchema(member);
      else {
        valid = false;
        break;
      }
    }
    if (valid && byTag.size >= members.length - 1) {
      const otherwise = fallback;
      return (value) => {
        if (!isRecord(value)) return false;
        const test = byTag.get(value[property]) ?? otherwise;
        return test?.(value) === true;
      };
    }
  }
  return undefined;
}

function compileObject(schema: JsonSchema): SchemaTest {
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const checks: { key: string; test: SchemaTest; required: boolean }[] = [];
  const properties = isRecord(schema.properties) ? schema.properties : {};
  for (const [key, property] of Object.entries(properties)) {
    checks.push({ key, test: compileSchema(property), required: required.has(key) });
  }
  for (const key of required) {
    if (!(key in properties)) checks.push({ key, test: always, required: true });
  }
  const patterned: { expression: RegExp; test: SchemaTest }[] = [];
  if (isRecord(schema.patternProperties)) {
    for (const [source, property] of Object.entries(schema.patternProperties)) {
      const test = compileSchema(property);
      if (test !== always) patterned.push({ expression: new RegExp(source, "u"), test });
    }
  }
  return (value) => {
    if (!isRecord(value)) return false;
    for (const check of checks) {
      const item = value[check.key];
      if (item === undefined) {
        if (check.required) return false;
      } else if (!check.test(item)) return false;
    }
    for (const { expression, test } of patterned) {
      for (const key in value) {
        if (expression.test(key) && !test(value[key])) return false;
      }
    }
    return true;
  };
}

function build(schema: JsonSchema): SchemaTest {
  const tests: SchemaTest[] = [];
  if (Array.isArray(schema.anyOf)) {
    const members = schema.anyOf as JsonSchema[];
    const discriminated = compileDiscriminated(members);
    if (discriminated !== undefined) return discriminated;
    const alternatives = members.map(compileSchema);
    return (value) => alternatives.some((test) => test(value));
  }
  if ("const" in schema) {
    const expected = schema.const;
    tests.push((value) => value === expected);
  }
  const ofType = typeTest(schema.type);
  if (ofType !== undefined && schema.type !== "object") tests.push(ofType);
  if (Array.isArray(schema.enum)) {
    const allowed = schema.enum;
    tests.push((value) => allowed.includes(value));
  }
  if (isRecord(schema.not)) {
    const excluded = compileSchema(schema.not);
    tests.push((value) => !excluded(value));
  }
  if (schema.type === "array" && isRecord(schema.items)) {
    const item = compileSchema(schema.items);
    if (item !== always) tests.push((value) => (value as unknown[]).every(item));
  }
  if (schema.type === "object") tests.push(compileObject(schema));
  if (tests.length === 0) return always;
  if (tests.length === 1) return tests[0] as SchemaTest;
  return (value) => {
    for (const test of tests) if (!test(value)) return false;
    return true;
  };
}

/**
 * The compiled test of a schema, built on first use and cached per schema object.
 *
 * Contract: agrees with `checkSchema(schema, value).length === 0` for every value; never throws.
 */
export function compileSchema(schema: unknown): SchemaTest {
  if (!isRecord(schema)) return always;
  let test = compiled.get(schema);
  if (test === undefined) {
    // A placeholder guards against (impossible here, but cheap) self-reference during the build.
    compiled.set(schema, always);
    test = build(schema);
    compiled.set(schema, test);
  }
  return test;
}
