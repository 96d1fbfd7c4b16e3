/**
 * Whether a rule covers a tool call: a bash rule's command pattern against each part of the command
 * (`shell-command-parts.ts`), a path rule's glob (picomatch, `**` across directories, dot files included)
 * against the call's path relative to the working directory (absolute when outside it; `~` expanded as the
 * tools expand it; a symbolic link is also judged by the path it leads to), an MCP rule against the tool's
 * name.
 */
import { realpathSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { displayPath, resolveToolPath } from "@arbor/coding-tools";
import picomatch from "picomatch";
import type { PermissionRule } from "./permission-rule.js";
import { type ShellCommandParts, shellCommandParts } from "./shell-command-parts.js";

/** What a tool call is, as far as permissions go. */
export type ToolCategory = "bash" | "edit" | "read" | "mcp" | "other";

/** The category of a tool: `write` and `edit` edit, `read`, `ls`, `grep`, `find` read. */
export function toolCategory(toolName: string): ToolCategory {
  if (toolName === "bash") return "bash";
  if (toolName === "write" || toolName === "edit") return "edit";
  if (toolName === "read" || toolName === "ls" || toolName === "grep" || toolName === "find") return "read";
  if (toolName.startsWith("mcp__")) return "mcp";
  return "other";
}

/** A tool call as the rules see it. */
export interface JudgedCall {
  readonly toolName: string;
  readonly args: Readonly<Record<string, unknown>>;
}

/** The command of a bash call (empty when missing). */
export function commandOf(call: JudgedCall): string {
  return typeof call.args.command === "string" ? call.args.command : "";
}

/** The path a file tool works on, as rules match it (relative to `cwd` inside it, else absolute). */
export function pathOf(call: JudgedCall, cwd: string): string {
  const raw = typeof call.args.path === "string" && call.args.path.trim() !== "" ? call.args.path : ".";
  return displayPath(resolve(cwd), resolveToolPath(cwd, raw));
}

/** The path with its existing part's symbolic links resolved (`undefined` when that changes nothing). */
function realPathOf(cwd: string, path: string): string | undefined {
  const absolute = resolveToolPath(cwd, path);
  let existing = absolute;
  let rest = "";
  for (;;) {
    try {
      const real = realpathSync(existing);
      const full = rest === "" ? real : resolve(real, rest);
      const realCwd = realpathSync(cwd);
      const shown = displayPath(realCwd, full);
      return shown === path ? undefined : shown;
    } catch {
      const parent = dirname(existing);
      if (parent === existing) return undefined;
      rest = rest === "" ? relative(parent, existing) : `${relative(parent, existing)}/${rest}`;
      existing = parent;
    }
  }
}

function rulePattern(pattern: string, cwd: string): string {
  if (!isAbsolute(pattern)) return pattern;
  const inside = relative(resolve(cwd), pattern);
  return inside === "" ? "." : inside.startsWith("..") || isAbsolute(inside) ? pattern : inside;
}

const RULE_TOOLS_OF: Record<string, readonly string[]> = {
  edit: ["edit", "write"],
  write: ["write"],
  read: ["read", "ls", "grep", "find"],
  ls: ["ls"],
  grep: ["grep"],
  find: ["find"],
};

/**
 * Whether a path glob covers one of the paths. A relative pattern covers only paths inside the working
 * directory (`edit(**)` is not `/etc/passwd`); an absolute one is matched against absolute paths.
 */
function pathMatches(pattern: string | undefined, paths: readonly string[], cwd: string): boolean {
  if (pattern === undefined) return true;
  const glob = rulePattern(pattern, cwd);
  const test = picomatch(glob, { dot: true });
  return paths.some((path) => isAbsolute(path) === isAbsolute(glob) && test(path));
}

/** Whether every path the call is judged by lies inside the working directory. */
export function insideWorkingDirectory(call: JudgedCall, cwd: string): boolean {
  return candidatePaths(call, cwd).every((path) => !isAbsolute(path));
}

/** The paths a file call is judged by: as given and, when it differs, through its symbolic links. */
export function candidatePaths(call: JudgedCall, cwd: string): string[] {
  const shown = pathOf(call, cwd);
  const real = realPathOf(cwd, shown);
  return real === undefined ? [shown] : [shown, real];
}

/**
 * Whether a command pattern covers one part: `npm test*` / `npm test:*` a prefix, another `*` a wildcard,
 * else the exact words.
 */
export function commandPatternMatches(pattern: string, part: string): boolean {
  if (pattern === "*") return true;
  if (pattern.endsWith(":*")) {
    const prefix = pattern.slice(0, -2).trimEnd();
    return part === prefix || part.startsWith(`${prefix} `);
  }
  if (!pattern.includes("*")) return part === pattern;
  const source = pattern
    .split("*")
    .map((piece) => piece.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${source}$`, "s").test(part);
}

/** Whether a rule names this call's tool (before its pattern is looked at). */
function namesTool(rule: PermissionRule, toolName: string): boolean {
  if (rule.kind === "bash") return toolName === "bash";
  if (rule.kind === "mcp") return toolName === rule.name || toolName.startsWith(`${rule.name}__`);
  return (RULE_TOOLS_OF[rule.tool] ?? []).includes(toolName);
}

/**
 * Whether a deny rule covers the call: for bash, when it covers any part of the command (or the whole
 * command).
 *
 * Contract: pure but for reading symbolic links; never throws.
 */
export function denyCovers(rule: PermissionRule, call: JudgedCall, cwd: string): boolean {
  if (!namesTool(rule, call.toolName)) return false;
  if (rule.kind === "mcp") return true;
  if (rule.kind === "path") return pathMatches(rule.pattern, candidatePaths(call, cwd), cwd);
  if (rule.pattern === undefined) return true;
  const command = commandOf(call).trim().replace(/\s+/g, " ");
  const pattern = rule.pattern;
  return (
    commandPatternMatches(pattern, command) ||
    shellCommandParts(commandOf(call)).parts.some((part) => commandPatternMatches(pattern, part))
  );
}

/**
 * The allow rule that covers the call, if any. A bash command is allowed when one rule is exactly the whole
 * command, or when it is not opaque and every part is covered by some rule (the first rule is named).
 *
 * Contract: pure but for reading symbolic links; never throws.
 */
export function allowCovering(
  rules: readonly PermissionRule[],
  call: JudgedCall,
  cwd: string,
): PermissionRule | undefined {
  const named = rules.filter((rule) => namesTool(rule, call.toolName));
  if (named.length === 0) return undefined;
  if (call.toolName !== "bash") {
    if (toolCategory(call.toolName) === "mcp") return named[0];
    // Every candidate path must be covered: a link into a covered folder from outside is not allowed.
    const paths = candidatePaths(call, cwd);
    return named.find(
      (rule) => rule.kind === "path" && paths.every((path) => pathMatches(rule.pattern, [path], cwd)),
    );
  }
  const bashRules = named.filter((rule) => rule.kind === "bash");
  const whole = bashRules.find((rule) => rule.pattern === undefined || rule.pattern === "*");
  if (whole !== undefined) return whole;
  const command = commandOf(call).trim().replace(/\s+/g, " ");
  const exact = bashRules.find((rule) => rule.pattern === command);
  if (exact !== undefined) return exact;
  const split: ShellCommandParts = shellCommandParts(commandOf(call));
  if (split.opaque || split.parts.length === 0) return undefined;
  let first: PermissionRule | undefined;
  for (const part of split.parts) {
    const rule = bashRules.find(
      (candidate) => candidate.pattern !== undefined && commandPatternMatches(candidate.pattern, part),
    );
    if (rule === undefined) return undefined;
    first ??= rule;
  }
  return first;
}
