/**
 * Validation of tool arguments against an MCP tool's JSON Schema (`inputSchema`), with ajv: MCP schemas are
 * plain JSON Schema, not TypeBox, so the agent loop's own check passes them through and this one decides.
 */
import { Ajv, type Options, type ValidateFunction } from "ajv";
import { oneLine } from "./one-line.js";

const AJV_OPTIONS: Options = { allErrors: true, strict: false, validateFormats: false };

/** One instance for every schema: each is removed again once compiled, so `$id`s never clash. */
const shared = new Ajv(AJV_OPTIONS);

/** Checks one tool's arguments; `undefined` when they are valid, else a message for the model. */
export type ArgumentValidator = (args: unknown) => string | undefined;

function compileWith(ajv: Ajv, schema: Record<string, unknown>): ValidateFunction {
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}

function compile(schema: Record<string, unknown>): ValidateFunction {
  try {
    return compileWith(shared, schema);
  } catch {
    // A fresh instance (slower) before calling the schema broken: the shared one may hold a clashing `$id`.
    return compileWith(new Ajv(AJV_OPTIONS), schema);
  }
}

/**
 * Compiles a validator for a JSON Schema.
 *
 * Contract: never throws; a schema ajv cannot compile (an unknown type, a `$ref` to nothing, a keyword of the
 * wrong shape) yields a validator that accepts everything and says why in `problem`, one line.
 */
export function compileArgumentValidator(schema: unknown): { validate: ArgumentValidator; problem?: string } {
  let check: ValidateFunction;
  try {
    const { $schema: _ignored, ...rest } = (schema ?? {}) as Record<string, unknown>;
    check = compile(rest);
  } catch (error) {
    return {
      validate: () => undefined,
      problem: oneLine(error instanceof Error ? error.message : String(error)),
    };
  }
  return {
    validate(args) {
      if (check(args)) return undefined;
      const problems = (check.errors ?? []).slice(0, 10).map((issue) => {
        const where = issue.instancePath === "" ? "arguments" : issue.instancePath;
        return `${where} ${issue.message ?? "is invalid"}`;
      });
      return problems.join("; ");
    },
  };
}
