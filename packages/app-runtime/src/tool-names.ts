/**
 * `@arbor/app-runtime/names`: the names `--tools` and `settings.json` accept, and the thinking levels
 * `--thinking` accepts, as plain constants: a flag parser imports them without loading the runtime or the
 * packages that define them (a test checks that they stay equal to `CODING_TOOL_NAMES` + `recall` and to
 * `THINKING_LEVELS`).
 */

/** The coding tools (`@arbor/coding-tools`) and the harness's `recall` tool. */
export const TOOL_NAMES = ["read", "write", "edit", "bash", "ls", "grep", "find", "recall"] as const;

/** What the names of MCP tools start with: `mcp__<server>__<tool>` (or `mcp__<server>` for all of a server's). */
export const MCP_TOOL_PREFIX = "mcp__";

/** A tool name `--tools` accepts: a built-in tool, or an MCP tool or server. */
export type ToolName = (typeof TOOL_NAMES)[number] | `mcp__${string}`;

/** True for a name `--tools` and `settings.json` accept. */
export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name) || /^mcp__[A-Za-z0-9_-]+$/.test(name);
}

/** The thinking levels (`THINKING_LEVELS` of `@arbor/ai-providers`). */
export const THINKING_LEVEL_NAMES = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;

/**
 * The permission modes (`--permissions`, settings' `permissions.mode`): `auto` runs every tool (the default),
 * `ask` asks before each write, edit, bash and MCP call, `edits` runs file edits and asks for bash and MCP
 * calls, `plan` is read-only (bash only for commands an allow rule allows).
 */
export const PERMISSION_MODES = ["auto", "ask", "edits", "plan"] as const;

/** A permission mode. */
export type PermissionMode = (typeof PERMISSION_MODES)[number];
