/**
 * A server's `tools/list` answer, read one tool at a time: a tool that cannot be offered to a model — no
 * name, listed twice, an `inputSchema` that is not an object schema or that does not compile — is skipped
 * with its reason, and the server's other tools stay usable.
 */
import { compileArgumentValidator } from "./argument-validator.js";
import { quoted } from "./one-line.js";

/** A tool as the server lists it. */
export interface McpToolInfo {
  name: string;
  description?: string;
  /** The tool's JSON Schema for its arguments (an object schema that compiles). */
  inputSchema: Record<string, unknown>;
}

/** A tool of the listing that is not offered, and why (one line). */
export interface McpSkippedTool {
  /** The tool's name (absent for an entry without one). */
  name?: string;
  /** Its position in the listing, from 1. */
  position: number;
  reason: string;
}

/** The usable tools of a listing and the skipped ones. */
export interface McpToolListing {
  tools: McpToolInfo[];
  skipped: McpSkippedTool[];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Why a schema cannot be the root of a tool's arguments, or `undefined` when it can. */
function rootProblem(schema: Record<string, unknown>): string | undefined {
  const type = schema.type;
  if (type === undefined || type === "object") return undefined;
  return `its inputSchema is of type ${typeof type === "string" ? quoted(type) : JSON.stringify(type)}, not an object schema`;
}

/**
 * Reads the `tools` of one or more `tools/list` pages.
 *
 * Contract: pure; never throws. A tool is skipped when its entry is not an object with a string `name`,
 * when an earlier tool has the same name (the first is kept), when `inputSchema` is not an object, has a
 * `type` other than `"object"`, or does not compile (an unknown type, a `$ref` to nothing, …). A missing
 * `inputSchema` is read as `{ type: "object" }` (no arguments); a `description` that is not a string is
 * left out.
 */
export function readToolList(listed: readonly unknown[]): McpToolListing {
  const tools: McpToolInfo[] = [];
  const skipped: McpSkippedTool[] = [];
  const seen = new Set<string>();
  for (const [position, entry] of listed.entries()) {
    if (!isObject(entry) || typeof entry.name !== "string") {
      skipped.push({ position: position + 1, reason: "the entry has no name" });
      continue;
    }
    const name = entry.name;
    if (seen.has(name)) {
      skipped.push({ name, position: position + 1, reason: "listed twice (the first is kept)" });
      continue;
    }
    seen.add(name);
    const inputSchema = entry.inputSchema ?? { type: "object" };
    if (!isObject(inputSchema)) {
      skipped.push({ name, position: position + 1, reason: "its inputSchema is not a JSON Schema object" });
      continue;
    }
    const problem = rootProblem(inputSchema);
    if (problem !== undefined) {
      skipped.push({ name, position: position + 1, reason: problem });
      continue;
    }
    const compiled = compileArgumentValidator(inputSchema);
    if (compiled.problem !== undefined) {
      skipped.push({
        name,
        position: position + 1,
        reason: `its inputSchema does not compile: ${compiled.problem}`,
      });
      continue;
    }
    tools.push({
      name,
      ...(typeof entry.description === "string" ? { description: entry.description } : {}),
      inputSchema,
    });
  }
  return { tools, skipped };
}
