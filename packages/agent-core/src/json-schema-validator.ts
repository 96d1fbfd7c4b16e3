/**
 * Validation of tool arguments against a plain JSON Schema, with ajv: the rule of every JSON Schema tool
 * (and of MCP's, which imports it). It repairs what models commonly get wrong, as the TypeBox path does:
 * `"5"` → `5` for a number, `"true"` → `true`, and fills missing properties that have a `default`.
 */
import type { JsonSchema, ValidationIssue } from "@arbor/ai-providers";
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";

/**
 * The ajv options of tool schemas: every error is reported; unknown keywords and `format`s are no error
 * (a schema written for a provider may carry keywords ajv does not know); scalar types are coerced and
 * defaults filled in (on a copy of the arguments, never on the caller's object).
 */
export const JSON_SCHEMA_VALIDATION_OPTIONS: Readonly<Options> = {
  allErrors: true,
  strict: false,
  validateFormats: false,
  coerceTypes: true,
  useDefaults: true,
  verbose: true,
};

/** Most issues collected for one call, as on the TypeBox path. */
const MAX_ISSUES = 30;

/** Longest value excerpt in a `received` description. */
const MAX_VALUE_EXCERPT = 40;

/**
 * One instance for every schema: each is removed again once compiled, so `$id`s never clash. Made on the
 * first compilation, so an agent with TypeBox tools only never builds it.
 */
let shared: Ajv | undefined;

/** What a {@link JsonSchemaValidator} says about one value. */
export type JsonSchemaCheck =
  | { ok: true; value: unknown }
  | { ok: false; issues: ValidationIssue[]; truncated: boolean };

/**
 * Checks one value against a compiled JSON Schema.
 *
 * Contract: never throws for any JSON value; never mutates `value` (coercions and defaults apply to a
 * `structuredClone`, returned as `value`); issues list the first error per JSON-pointer path, at most 30.
 */
export type JsonSchemaValidator = (value: unknown) => JsonSchemaCheck;

function compileWith(ajv: Ajv, schema: JsonSchema): ValidateFunction {
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}

/** A JSON pointer segment (`~` → `~0`, `/` → `~1`). */
function pointerSegment(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

function excerpt(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_VALUE_EXCERPT ? `${text.slice(0, MAX_VALUE_EXCERPT)}…` : text;
}

function toIssue(error: ErrorObject): ValidationIssue {
  const params = error.params as Record<string, unknown>;
  if (error.keyword === "required" && typeof params.missingProperty === "string") {
    return {
      path: `${error.instancePath}/${pointerSegment(params.missingProperty)}`,
      message: "required property missing",
      received: "undefined (missing)",
    };
  }
  if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    return {
      path: `${error.instancePath}/${pointerSegment(params.additionalProperty)}`,
      message: "unexpected property",
    };
  }
  const received = excerpt(error.data);
  return {
    path: error.instancePath,
    message: `${error.message ?? "is invalid"}, received ${received}`,
    received,
  };
}

/**
 * Compiles a validator for a JSON Schema (a `$schema` keyword is ignored: ajv reads draft-07, and the
 * draft 2020-12 keywords tools use — `$defs`, `const`, `enum`, `anyOf` — work alike).
 *
 * Contract: throws an `Error` with ajv's message when the schema does not compile (an unknown `type`, a
 * `$ref` to nothing, a keyword of the wrong shape); the compiled validator follows
 * {@link JsonSchemaValidator}.
 */
export function compileJsonSchemaValidator(schema: JsonSchema): JsonSchemaValidator {
  const { $schema: _ignored, ...rest } = schema;
  let check: ValidateFunction;
  try {
    shared ??= new Ajv({ ...JSON_SCHEMA_VALIDATION_OPTIONS });
    check = compileWith(shared, rest);
  } catch {
    // A fresh instance (slower) before calling the schema broken: the shared one may hold a clashing `$id`.
    check = compileWith(new Ajv({ ...JSON_SCHEMA_VALIDATION_OPTIONS }), rest);
  }
  return (value) => {
    let copy: unknown;
    try {
      copy = structuredClone(value);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return {
        ok: false,
        issues: [{ path: "", message: `arguments are not plain JSON data (${reason})` }],
        truncated: false,
      };
    }
    if (check(copy)) return { ok: true, value: copy };
    const issues: ValidationIssue[] = [];
    const seen = new Set<string>();
    for (const error of check.errors ?? []) {
      const issue = toIssue(error);
      if (seen.has(issue.path)) continue;
      if (issues.length === MAX_ISSUES) return { ok: false, issues, truncated: true };
      seen.add(issue.path);
      issues.push(issue);
    }
    return { ok: false, issues, truncated: false };
  };
}
