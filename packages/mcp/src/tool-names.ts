/**
 * The names MCP tools get as AgentTools: `mcp__<server>__<tool>`, always a name the model APIs accept
 * (`^[a-zA-Z0-9_-]{1,64}$`, Anthropic's and OpenAI's rule). A name that does not fit is shortened to a
 * readable head and a hash of the original: the same server and tool give the same name on every run.
 * See docs/mcp.md ("Tool names").
 */
import { createHash } from "node:crypto";

/** What every MCP tool name starts with. */
export const MCP_TOOL_PREFIX = "mcp__";

/** The longest tool name the model APIs accept. */
export const MAX_TOOL_NAME_LENGTH = 64;

/** The longest server part a tool name keeps whole; a longer server name is shortened in tool names. */
export const MAX_SERVER_PART_LENGTH = 40;

/** Hex digits of the hash a shortened name ends with. */
const HASH_LENGTH = 8;

/** What the model APIs accept as a tool name. */
const VALID_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** True for a tool name the model APIs accept: letters, digits, `_` and `-`, 1 to 64 characters. */
export function isValidToolName(name: string): boolean {
  return VALID_NAME.test(name);
}

/** Characters a provider accepts in a tool name; anything else becomes `_`. */
function clean(part: string): string {
  return part.replace(/[^A-Za-z0-9_-]/g, "_");
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, HASH_LENGTH);
}

/** True when a cleaned part says something (a letter or digit): `___` from `!!!` does not. */
function readable(part: string): boolean {
  return /[A-Za-z0-9]/.test(part);
}

/** A cleaned part cut to `max` characters: a head, `_`, and a hash of `identity` (or `fallback` as the head). */
function shortened(cleaned: string, max: number, identity: string, fallback: string): string {
  const head = readable(cleaned) ? cleaned : fallback;
  return `${head.slice(0, Math.max(1, max - HASH_LENGTH - 1))}_${hash(identity)}`;
}

/**
 * The server's part of its tools' names: its name with other characters made `_`, or, over
 * {@link MAX_SERVER_PART_LENGTH} characters (or with no letter or digit), a head and a hash.
 *
 * Contract: pure and deterministic.
 */
export function mcpServerPart(server: string): string {
  const cleaned = clean(server);
  if (cleaned.length <= MAX_SERVER_PART_LENGTH && readable(cleaned)) return cleaned;
  return shortened(cleaned, MAX_SERVER_PART_LENGTH, server, "server");
}

/** The name before any shortening: `mcp__<server>__<tool>`, characters cleaned (it may be over 64). */
function fullName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${clean(server)}__${clean(tool)}`;
}

/**
 * The name of a server's tool when nothing else needs it, e.g. `mcp__github__create_issue`: other characters
 * become `_`; a name over 64 characters, or a tool name with no letter or digit (`""`, `"!!!"`), gets a
 * readable head and `_<8 hex digits>` of a SHA-256 of the server and tool names.
 *
 * Contract: pure and deterministic; always {@link isValidToolName}; always starts with
 * `mcp__<server part>__`.
 */
export function mcpToolName(server: string, tool: string): string {
  const plain = plainMcpToolName(server, tool);
  return plain ?? hashedMcpToolName(server, tool, 0);
}

/** The unshortened name when it is valid and says something; else `undefined`. */
export function plainMcpToolName(server: string, tool: string): string | undefined {
  const name = `${MCP_TOOL_PREFIX}${mcpServerPart(server)}__${clean(tool)}`;
  return readable(clean(tool)) && isValidToolName(name) ? name : undefined;
}

/**
 * The shortened name of a tool: `mcp__<server part>__<head>_<hash>`, the hash of the server and tool names
 * (and `attempt`, when an earlier attempt's name was taken).
 *
 * Contract: pure and deterministic; always {@link isValidToolName}.
 */
export function hashedMcpToolName(server: string, tool: string, attempt: number): string {
  const prefix = `${MCP_TOOL_PREFIX}${mcpServerPart(server)}__`;
  const identity = `${server}\u0000${tool}${attempt === 0 ? "" : `\u0000${attempt}`}`;
  return `${prefix}${shortened(clean(tool), MAX_TOOL_NAME_LENGTH - prefix.length, identity, "tool")}`;
}

/** True when `name` is exactly the server's tool's own name, nothing cleaned or shortened. */
export function isExactMcpToolName(name: string, server: string, tool: string): boolean {
  return name === `${MCP_TOOL_PREFIX}${server}__${tool}`;
}

/** The entries that admit all of a server's tools: `mcp__<server>` (and its shortened part, when it has one). */
function serverEntries(server: string): string[] {
  const whole = `${MCP_TOOL_PREFIX}${clean(server)}`;
  const part = `${MCP_TOOL_PREFIX}${mcpServerPart(server)}`;
  return whole === part ? [whole] : [whole, part];
}

/**
 * True when an allow-list entry admits all of a server's tools: `mcp__<server>` (or, for a server name over
 * {@link MAX_SERVER_PART_LENGTH} characters, also `mcp__<its shortened part>`).
 *
 * Contract: pure.
 */
export function isMcpServerEntry(entry: string, server: string): boolean {
  return serverEntries(server).includes(entry);
}

/**
 * True when an allow-list entry admits a tool of `server`: its name (`toolName`, as `arbor mcp list` shows
 * it), `mcp__<server>` for all of that server's tools, or — for a tool whose name was shortened because it
 * was too long — its full name `mcp__<server>__<tool>` with other characters made `_` (`tool`: the server's
 * own name of the tool).
 *
 * Contract: pure.
 */
export function allowsMcpTool(entry: string, server: string, toolName: string, tool?: string): boolean {
  if (entry === toolName || isMcpServerEntry(entry, server)) return true;
  if (tool === undefined) return false;
  const full = fullName(server, tool);
  const tooLong = full.length > MAX_TOOL_NAME_LENGTH || clean(server).length > MAX_SERVER_PART_LENGTH;
  return tooLong && readable(clean(tool)) && entry === full;
}

/** True when an allow list admits at least one tool of `server` (so the server must be started). */
export function allowsMcpServer(allowList: readonly string[], server: string): boolean {
  const prefixes = serverEntries(server);
  return allowList.some((entry) =>
    prefixes.some((prefix) => entry === prefix || entry.startsWith(`${prefix}__`)),
  );
}
