/**
 * Validation of tool arguments against an MCP tool's JSON Schema (`inputSchema`): agent-core's rule for every
 * plain JSON Schema tool (`compileJsonSchemaValidator`, ajv), so an MCP tool is checked as any other.
 */
import { compileJsonSchemaValidator, type JsonSchemaValidator } from "@arbor/agent-core";
import { oneLine } from "./one-line.js";

/** Checks one tool's arguments; `undefined` when they are valid, else a message for the model. */
export type ArgumentValidator = (args: unknown) => string | undefined;

/**
 * Compiles a validator for a JSON Schema.
 *
 * Contract: never throws; a schema ajv cannot compile (an unknown type, a `$ref` to nothing, a keyword of the
 * wrong shape) yields a validator that accepts everything and says why in `problem`, one line. The message of
 * invalid arguments lists at most 10 problems, `<JSON pointer> <problem>`, joined by `; `.
 */
export function compileArgumentValidator(schema: unknown): { validate: ArgumentValidator; problem?: string } {
  let check: JsonSchemaValidator;
  try {
    check = compileJsonSchemaValidator((schema ?? {}) as Record<string, unknown>);
  } catch (error) {
    return {
      validate: () => undefined,
      problem: oneLine(error instanceof Error ? error.message : String(error)),
    };
  }
  return {
    validate(args) {
      const result = check(args);
      if (result.ok) return undefined;
      return result.issues
        .slice(0, 10)
        .map((issue) => `${issue.path === "" ? "arguments" : issue.path} ${issue.message}`)
        .join("; ");
    },
  };
}
