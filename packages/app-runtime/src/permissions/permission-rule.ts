/**
 * Permission rules as `settings.json` writes them (`permissions.allow` / `permissions.deny`): `"bash"` (every
 * command), `"bash(git status)"` (exactly that command), `"bash(npm test*)"` (a prefix, also written
 * `"bash(npm test:*)"`), `"edit(src/**)"` (edits and writes of matching paths), `"write(…)"`, `"read(.env)"`
 * (also `ls`, `grep`, `find` of that path), `"mcp__server__tool"` and `"mcp__server"` (all of a server's tools).
 * Tool names are case-insensitive (`Bash(…)` as in Claude Code). {@link parsePermissionRule} turns one into a
 * {@link PermissionRule} or says in words what is wrong with it.
 */

/** The tools a rule can name besides MCP tools. */
export const RULE_TOOLS = ["bash", "edit", "write", "read", "ls", "grep", "find"] as const;

/** A built-in tool a rule names. */
export type RuleTool = (typeof RULE_TOOLS)[number];

/** A parsed rule. */
export type PermissionRule =
  | {
      readonly kind: "bash";
      /** The rule as written. */
      readonly text: string;
      /** The command pattern, whitespace collapsed; `undefined` for every command. */
      readonly pattern: string | undefined;
    }
  | {
      readonly kind: "path";
      readonly text: string;
      readonly tool: Exclude<RuleTool, "bash">;
      /** The path glob as written (`./` removed); `undefined` for every path. */
      readonly pattern: string | undefined;
    }
  | {
      readonly kind: "mcp";
      readonly text: string;
      /** `mcp__server` (every tool of the server) or `mcp__server__tool`. */
      readonly name: string;
    };

/** {@link parsePermissionRule}'s answer. */
export type ParsedRule = { ok: true; rule: PermissionRule } | { ok: false; error: string };

const RULE_SHAPE = /^([A-Za-z]+)(?:\((.*)\))?$/s;
const MCP_NAME = /^mcp__[A-Za-z0-9_-]+$/;

/**
 * Parses one rule.
 *
 * Contract: pure; never throws; an error says what the rule should look like.
 */
export function parsePermissionRule(text: string): ParsedRule {
  const trimmed = text.trim();
  if (trimmed.startsWith("mcp__")) {
    return MCP_NAME.test(trimmed)
      ? { ok: true, rule: { kind: "mcp", text: trimmed, name: trimmed } }
      : { ok: false, error: `"${text}" is not an MCP tool name (mcp__<server> or mcp__<server>__<tool>).` };
  }
  const match = RULE_SHAPE.exec(trimmed);
  const tool = match?.[1]?.toLowerCase();
  if (match === null || tool === undefined || !(RULE_TOOLS as readonly string[]).includes(tool)) {
    return {
      ok: false,
      error: `"${text}" is not a rule: write tool(pattern), e.g. "bash(git status)", "bash(npm test*)", "edit(src/**)", "read(.env)", or a bare tool name (${RULE_TOOLS.join(", ")}), or mcp__<server>[__<tool>].`,
    };
  }
  const inner = match[2];
  if (inner !== undefined && inner.trim() === "") {
    return { ok: false, error: `"${text}" has an empty pattern: leave out the parentheses for every call.` };
  }
  if (tool === "bash") {
    const pattern = inner === undefined ? undefined : inner.trim().replace(/\s+/g, " ");
    return { ok: true, rule: { kind: "bash", text: trimmed, pattern } };
  }
  const pattern = inner === undefined ? undefined : inner.trim().replace(/^(\.\/)+/, "");
  return {
    ok: true,
    rule: { kind: "path", text: trimmed, tool: tool as Exclude<RuleTool, "bash">, pattern },
  };
}

/**
 * Parses a list of rules (`where` names it in errors, e.g. `permissions.deny`).
 *
 * Contract: returns the rules and one message per rule that does not parse.
 */
export function parsePermissionRules(
  texts: readonly string[],
  where: string,
): { rules: PermissionRule[]; errors: string[] } {
  const rules: PermissionRule[] = [];
  const errors: string[] = [];
  texts.forEach((text, index) => {
    const parsed = parsePermissionRule(text);
    if (parsed.ok) rules.push(parsed.rule);
    else errors.push(`${where}[${index}]: ${parsed.error}`);
  });
  return { rules, errors };
}
