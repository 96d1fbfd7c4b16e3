/**
 * Validation of tool arguments against an MCP tool's JSON Schema (`inputSchema`), with ajv: MCP schemas are
 * plain JSON Schema, not TypeBox, so the agent loop's own check passes them through and this one decides.
 */
import { Ajv, type ValidateFunction } from "ajv";

const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: false });

/** Checks one tool's arguments; `undefined` when they are valid, else a message for the model. */
export type ArgumentValidator = (args: unknown) => string | undefined;

/**
 * Compiles a validator for a JSON Schema.
 *
 * Contract: never throws; a schema ajv cannot compile yields a validator that accepts everything (the server
 * still validates) and says why in `problem`.
 */
export function compileArgumentValidator(schema: unknown): { validate: ArgumentValidator; problem?: string } {
  let check: ValidateFunction;
  try {
    const { $schema: _ignored, ...rest } = (schema ?? {}) as Record<string, unknown>;
    check = ajv.compile(rest);
  } catch (error) {
    return { validate: () => undefined, problem: error instanceof Error ? error.message : String(error) };
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
