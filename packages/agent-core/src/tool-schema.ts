/**
 * The three kinds of tool schema an `AgentTool` takes as `parameters`, checked when a tool is registered
 * (docs/decisions/0020-tool-schemas.md):
 *
 * - a TypeBox schema (checked by TypeBox's compiled checker, see `validateToolArguments`);
 * - a plain JSON Schema object (checked with ajv, see json-schema-validator.ts);
 * - a Standard Schema v1 (zod, valibot, arktype, …; checked by its own `~standard.validate`, which may be
 *   async) that also gives its JSON Schema (Standard JSON Schema `~standard.jsonSchema`, or
 *   {@link withJsonSchema}) — providers always receive a JSON Schema, never the schema object.
 */
import {
  type JsonSchema,
  Kind,
  type Static,
  type Tool,
  type TSchema,
  type ValidationIssue,
  type ValidationResult,
  validateToolArguments,
  validationFailure,
} from "@arbor/ai-providers";
import type { AgentTool } from "./agent-tool.js";
import { InvalidToolSchemaError } from "./errors.js";
import { compileJsonSchemaValidator, type JsonSchemaValidator } from "./json-schema-validator.js";
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "./standard-schema.js";

/** What a tool's `parameters` may be: a TypeBox schema, a plain JSON Schema or a Standard Schema v1. */
export type ToolParameters = TSchema | JsonSchema | StandardSchemaV1;

/**
 * The arguments `execute` receives for `parameters` of type `T`: TypeBox's `Static<T>`, a Standard
 * Schema's output type, and `Record<string, unknown>` for a plain JSON Schema.
 */
export type ToolArguments<T extends ToolParameters> = T extends TSchema
  ? Static<T>
  : T extends StandardSchemaV1
    ? StandardSchemaV1.InferOutput<T>
    : Record<string, unknown>;

/** The kind of a tool schema (see {@link toolSchemaKind}). */
export type ToolSchemaKind = "typebox" | "json-schema" | "standard-schema";

/** The JSON Schema targets asked of a Standard JSON Schema, in order: what providers read best first. */
const JSON_SCHEMA_TARGETS = ["draft-07", "draft-2020-12"] as const;

/** A schema as the loop uses it: the JSON Schema the model sees, and how arguments are checked. */
interface CompiledToolSchema {
  kind: ToolSchemaKind;
  /** The object schema sent to the model. */
  jsonSchema: JsonSchema;
  /** `undefined` for TypeBox: `validateToolArguments` keeps its own cache. */
  validateJson?: JsonSchemaValidator;
}

const compiled = new WeakMap<object, CompiledToolSchema>();
const modelToolCache = new WeakMap<AgentTool, Tool>();
const modelToolListCache = new WeakMap<readonly AgentTool[], Tool[]>();

function isObject(value: unknown): value is Record<string | symbol, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The kind of a tool's `parameters`: `typebox` when it carries TypeBox's `Kind` symbol, `standard-schema`
 * when it has a `~standard` member, `json-schema` for any other object; `undefined` for a non-object.
 *
 * Contract: pure; never throws.
 */
export function toolSchemaKind(parameters: unknown): ToolSchemaKind | undefined {
  if (typeof parameters === "function" && "~standard" in parameters) return "standard-schema";
  if (!isObject(parameters)) return undefined;
  if (typeof parameters[Kind] === "string") return "typebox";
  if ("~standard" in parameters) return "standard-schema";
  return "json-schema";
}

/** Why a JSON Schema cannot describe a tool's arguments (its root is no object schema), or `undefined`. */
function rootProblem(schema: JsonSchema): string | undefined {
  const type = schema.type;
  if (type === undefined || type === "object") return undefined;
  return `its root is of type ${JSON.stringify(type)}, not an object schema (a tool takes named arguments)`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The JSON Schema of a Standard Schema's input, or why there is none. */
function standardJsonSchema(schema: StandardSchemaV1): JsonSchema | string {
  const converter = (schema["~standard"] as Partial<StandardJSONSchemaV1.Props>).jsonSchema;
  if (typeof converter?.input !== "function") {
    return (
      `the ${schema["~standard"].vendor} schema gives no JSON Schema for the model (no ~standard.jsonSchema): ` +
      "use a library version that implements Standard JSON Schema (zod 4.2+, arktype 2.1.20+), or pass " +
      "withJsonSchema(schema, jsonSchema)"
    );
  }
  let lastError: unknown;
  for (const target of JSON_SCHEMA_TARGETS) {
    try {
      const json = converter.input({ target });
      if (!isObject(json))
        return `its ~standard.jsonSchema.input() returned ${typeof json}, not a JSON Schema`;
      const { $schema: _dialect, ...rest } = json as JsonSchema;
      return rest;
    } catch (error) {
      lastError = error;
    }
  }
  return `its ~standard.jsonSchema.input() failed: ${errorText(lastError)}`;
}

/** Compiles `parameters`, or returns why it cannot describe a tool's arguments. */
function compile(tool: AgentTool): CompiledToolSchema | string {
  const parameters: unknown = tool.parameters;
  const kind = toolSchemaKind(parameters);
  switch (kind) {
    case undefined:
      return `its parameters are ${parameters === null ? "null" : typeof parameters}, not a schema (TypeBox, JSON Schema or Standard Schema)`;
    case "typebox": {
      const schema = parameters as TSchema;
      const problem = rootProblem(schema as unknown as JsonSchema);
      if (problem !== undefined) return problem;
      try {
        // Compiles (and caches) TypeBox's checker; the result for `{}` does not matter.
        validateToolArguments({ name: tool.name, description: "", parameters: schema }, {});
      } catch (error) {
        return errorText(error);
      }
      return { kind, jsonSchema: schema as unknown as JsonSchema };
    }
    case "json-schema": {
      const schema = parameters as JsonSchema;
      const problem = rootProblem(schema);
      if (problem !== undefined) return problem;
      let validateJson: JsonSchemaValidator;
      try {
        validateJson = compileJsonSchemaValidator(schema);
      } catch (error) {
        return `its JSON Schema does not compile: ${errorText(error)}`;
      }
      const jsonSchema = schema.type === "object" ? schema : { type: "object", ...schema };
      return { kind, jsonSchema, validateJson };
    }
    case "standard-schema": {
      const standard = (parameters as StandardSchemaV1)["~standard"];
      if (!isObject(standard) || standard.version !== 1 || typeof standard.validate !== "function") {
        return "its ~standard member is no Standard Schema v1 (version 1 with a validate function)";
      }
      const jsonSchema = standardJsonSchema(parameters as StandardSchemaV1);
      if (typeof jsonSchema === "string") return jsonSchema;
      const problem = rootProblem(jsonSchema);
      return problem ?? { kind, jsonSchema };
    }
  }
}

/** The compiled schema of a tool, compiled once per `parameters` object. */
function compiledSchema(tool: AgentTool): CompiledToolSchema {
  const parameters = tool.parameters as object;
  const cached =
    typeof parameters === "object" || typeof parameters === "function" ? compiled.get(parameters) : undefined;
  if (cached !== undefined) return cached;
  const result = compile(tool);
  if (typeof result === "string") throw new InvalidToolSchemaError(String(tool.name), result);
  compiled.set(parameters, result);
  return result;
}

/**
 * Checks that a tool's `parameters` is a usable schema: a TypeBox schema that compiles, a JSON Schema that
 * ajv compiles, or a Standard Schema v1 that gives a JSON Schema; in each case an object schema (a root
 * `type`, if any, is `"object"`). The Agent, the harness and extension `registerTool` call it when a tool
 * is registered, so a broken schema fails there rather than when the model first calls the tool.
 *
 * Contract: throws {@link InvalidToolSchemaError} (code `invalid_tool_schema`) naming the tool and the
 * problem; otherwise returns nothing. The compiled schema is cached per `parameters` object, so checking
 * and later validating cost one compilation.
 */
export function checkToolSchema(tool: AgentTool): void {
  compiledSchema(tool);
}

/**
 * The tool as a provider receives it: `name`, `description` and the JSON Schema of its arguments. A
 * TypeBox tool, or a JSON Schema tool whose root says `type: "object"`, is returned as it is; otherwise a
 * `Tool` with the JSON Schema (a Standard Schema's, or the JSON Schema with `type: "object"` added),
 * cached per tool.
 *
 * Contract: throws {@link InvalidToolSchemaError} as {@link checkToolSchema} does.
 */
export function modelTool(tool: AgentTool): Tool {
  const schema = compiledSchema(tool);
  if (schema.jsonSchema === (tool.parameters as unknown)) return tool as unknown as Tool;
  const cached = modelToolCache.get(tool);
  if (cached !== undefined && cached.parameters === schema.jsonSchema) return cached;
  const made: Tool = { name: tool.name, description: tool.description, parameters: schema.jsonSchema };
  modelToolCache.set(tool, made);
  return made;
}

/**
 * {@link modelTool} of each tool; the same list when every tool is sent as it is. Cached per list.
 *
 * Contract: as {@link modelTool}.
 */
export function modelTools(tools: readonly AgentTool[]): Tool[] {
  const cached = modelToolListCache.get(tools);
  if (cached !== undefined) return cached;
  const mapped = tools.map(modelTool);
  const result = mapped.every((tool, index) => tool === (tools[index] as unknown))
    ? (tools as unknown as Tool[])
    : mapped;
  modelToolListCache.set(tools, result);
  return result;
}

/** A JSON pointer of a Standard Schema issue's path. */
function pointerOf(path: StandardSchemaV1.Issue["path"]): string {
  if (path === undefined) return "";
  return path
    .map((segment) => {
      const key = typeof segment === "object" && segment !== null ? segment.key : segment;
      return `/${String(key).replaceAll("~", "~0").replaceAll("/", "~1")}`;
    })
    .join("");
}

function fromStandardResult(
  tool: AgentTool,
  args: unknown,
  result: StandardSchemaV1.Result<unknown>,
): ValidationResult {
  if (result.issues === undefined || result.issues === null) {
    return { ok: true, value: result.value as Record<string, unknown> };
  }
  const issues: ValidationIssue[] = result.issues.map((issue) => ({
    path: pointerOf(issue.path),
    message: issue.message,
  }));
  return validationFailure(tool.name, args, issues);
}

function thrownByValidate(tool: AgentTool, args: unknown, error: unknown): ValidationResult {
  return validationFailure(tool.name, args, [
    { path: "", message: `the schema's validate() failed: ${errorText(error)}` },
  ]);
}

/**
 * Checks a tool call's arguments against the tool's `parameters`, whatever its kind: TypeBox through
 * `validateToolArguments` (with its repairs), a JSON Schema through ajv (the same repairs: scalar
 * coercion, defaults), a Standard Schema through its own `validate` (its output is what `execute`
 * receives). Every failure message has one format (`validationFailure`).
 *
 * Contract: synchronous for TypeBox and JSON Schema, a promise for a Standard Schema; never throws nor
 * rejects for bad arguments (a Standard Schema whose `validate` throws is a failure at the root path);
 * throws {@link InvalidToolSchemaError} only for a schema {@link checkToolSchema} rejects. Never mutates
 * `args`.
 */
export function validateAgentToolArguments(
  tool: AgentTool,
  args: unknown,
): ValidationResult | Promise<ValidationResult> {
  const schema = compiledSchema(tool);
  switch (schema.kind) {
    case "typebox":
      return validateToolArguments(tool as unknown as Tool<TSchema>, args);
    case "json-schema": {
      const check = (schema.validateJson as JsonSchemaValidator)(args);
      if (check.ok) return { ok: true, value: check.value as Record<string, unknown> };
      return validationFailure(tool.name, args, check.issues, check.truncated);
    }
    case "standard-schema": {
      const standard = (tool.parameters as StandardSchemaV1)["~standard"];
      return (async () => {
        try {
          return fromStandardResult(tool, args, await standard.validate(args));
        } catch (error) {
          return thrownByValidate(tool, args, error);
        }
      })();
    }
  }
}

/**
 * A Standard Schema that gives `jsonSchema` as its JSON Schema (Standard JSON Schema), for a library or
 * version without one (valibot without `@valibot/to-json-schema`, zod 3): validation stays the schema's
 * own, the model sees `jsonSchema`.
 *
 * Contract: pure; `jsonSchema` is returned for every target; `schema` is not modified.
 */
export function withJsonSchema<Input, Output>(
  schema: StandardSchemaV1<Input, Output>,
  jsonSchema: JsonSchema,
): StandardSchemaV1<Input, Output> & StandardJSONSchemaV1<Input, Output> {
  const standard = schema["~standard"];
  const converter: StandardJSONSchemaV1.Converter = { input: () => jsonSchema, output: () => jsonSchema };
  return {
    "~standard": {
      version: 1,
      vendor: standard.vendor,
      validate: (value, options) => standard.validate(value, options),
      ...(standard.types === undefined ? {} : { types: standard.types }),
      jsonSchema: converter,
    },
  };
}
