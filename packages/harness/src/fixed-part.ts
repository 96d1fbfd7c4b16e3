import type { Tool } from "@arbor/ai-providers";
import { tokensOfChars } from "@arbor/compaction";

/**
 * The fixed part of every request — the system prompt and the tool definitions — budgeted like the rest
 * (docs/context-budget.md, "The fixed part"). At 200k tokens it is a few per cent of the window and stays
 * as it is; at 4k–8k the system prompt and eight tool definitions alone would take half of it. When the
 * fixed part is over its budget (a quarter of the window), the tools are sent shorter, in two steps:
 *
 * 1. **short**: each description cut to its first sentence, and the descriptions inside the parameter
 *    schemas left out (names, types, enums and `required` stay, so calls validate as before);
 * 2. **fewer**: then tools are left out, the least essential first — tools from MCP servers and
 *    extensions (the last added first), then `ls`, `find`, `grep`, `recall`, `write` — until it fits or
 *    only `read`, `bash` and `edit` (or one tool) remain.
 *
 * The system prompt is never changed: it is the user's and the project's.
 */

/** How a request's tools were sent. */
export type FixedPartLevel = "full" | "short" | "fewer";

/** What {@link fitFixedPart} returns. */
export interface FixedPartFit {
  /** The tools to send (the input itself at level `full`). */
  tools: Tool[];
  /** Estimated tokens of the system prompt and these tools. */
  tokens: number;
  level: FixedPartLevel;
  /** The tools left out (level `fewer`), by name. */
  dropped: string[];
}

/** The built-in tools in the order they are left out, last first: `ls` goes before `find`, … */
const ESSENTIAL_ORDER = ["read", "bash", "edit", "write", "recall", "grep", "find", "ls"];

/** Tools never left out, as long as more than one tool remains. */
const KEPT = new Set(["read", "bash", "edit"]);

/** Longest first sentence kept of a description at level `short`. */
const SHORT_DESCRIPTION_CHARS = 160;

/**
 * Estimated tokens of a system prompt and tool definitions: chars/4 of the prompt and of the tools' names,
 * descriptions and parameter schemas as JSON.
 *
 * Contract: pure; never throws for JSON-serializable schemas.
 */
export function fixedPartTokens(systemPrompt: string, tools: readonly Tool[]): number {
  const schemas = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
  }));
  return tokensOfChars(systemPrompt.length + (tools.length === 0 ? 0 : JSON.stringify(schemas).length));
}

/**
 * The tools to send with `systemPrompt` so that both take at most `budgetTokens`: as they are when they fit,
 * else shortened, else fewer (see the module's steps).
 *
 * Contract: pure; never throws; never returns an empty list for a non-empty input; returns the same
 * `tools` array at level `full`.
 */
export function fitFixedPart(systemPrompt: string, tools: Tool[], budgetTokens: number): FixedPartFit {
  const full = fixedPartTokens(systemPrompt, tools);
  if (full <= budgetTokens || tools.length === 0) return { tools, tokens: full, level: "full", dropped: [] };
  const short = tools.map(shortTool);
  const shortTokens = fixedPartTokens(systemPrompt, short);
  if (shortTokens <= budgetTokens) return { tools: short, tokens: shortTokens, level: "short", dropped: [] };

  const kept = [...short];
  const dropped: string[] = [];
  let tokens = shortTokens;
  for (const name of dropOrder(short)) {
    if (tokens <= budgetTokens) break;
    if (KEPT.has(name) || kept.length <= 1) continue;
    const index = kept.findIndex((tool) => tool.name === name);
    kept.splice(index, 1);
    dropped.push(name);
    tokens = fixedPartTokens(systemPrompt, kept);
  }
  return { tools: kept, tokens, level: dropped.length > 0 ? "fewer" : "short", dropped };
}

/** Names in the order they are left out: the non-built-in tools (last added first), then the built-ins. */
function dropOrder(tools: readonly Tool[]): string[] {
  const others = tools.filter((tool) => !ESSENTIAL_ORDER.includes(tool.name)).map((tool) => tool.name);
  const builtIns = [...ESSENTIAL_ORDER].reverse().filter((name) => tools.some((tool) => tool.name === name));
  return [...others.reverse(), ...builtIns];
}

function shortTool(tool: Tool): Tool {
  return {
    name: tool.name,
    description: firstSentence(tool.description),
    parameters: withoutDescriptions(tool.parameters),
  };
}

/** The first sentence of a description (up to its first ". " or line end), at most 160 characters. */
function firstSentence(description: string): string {
  const text = description.trim();
  const end = text.search(/\.(\s|$)|\n/);
  const sentence = end < 0 ? text : text.slice(0, text[end] === "." ? end + 1 : end);
  if (sentence.length <= SHORT_DESCRIPTION_CHARS) return sentence;
  const cut = sentence.lastIndexOf(" ", SHORT_DESCRIPTION_CHARS - 1);
  return `${sentence.slice(0, cut > 40 ? cut : SHORT_DESCRIPTION_CHARS - 1)}…`;
}

/** A JSON schema without its `description`, `title` and `examples` keywords, at every depth. */
function withoutDescriptions<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(withoutDescriptions) as T;
  if (schema === null || typeof schema !== "object") return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === "description" || key === "title" || key === "examples") continue;
    // `properties` maps parameter names to schemas: a parameter named "description" stays.
    out[key] = key === "properties" ? mapValues(value, withoutDescriptions) : withoutDescriptions(value);
  }
  return out as T;
}

function mapValues(value: unknown, map: (entry: unknown) => unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return map(value);
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, entry]) => [key, map(entry)]),
  );
}
