/**
 * The decision function: what happens to one tool call under a {@link PermissionPolicy} (a mode, allow and
 * deny rules) and the rules the user allowed for the session. In order:
 *
 * 1. a deny rule that covers the call refuses it — in every mode, `auto` too;
 * 2. `read`, `ls`, `grep`, `find` and tools of no category (`recall`, extensions' tools) run;
 * 3. an allow rule (of the settings, or of a "for this session" answer) lets it run;
 * 4. the mode: `auto` runs it; `edits` runs `write`/`edit` inside the working directory and asks for the
 *    rest (edits elsewhere, bash and MCP calls); `ask` asks for
 *    all three; `plan` refuses them (read-only: bash runs only what an allow rule allows).
 */
import type { PermissionDecider } from "@arbor/session-view";
import type { PermissionMode } from "../tool-names.js";
import {
  allowCovering,
  commandOf,
  denyCovers,
  insideWorkingDirectory,
  type JudgedCall,
  pathOf,
  toolCategory,
} from "./permission-match.js";
import type { PermissionRule } from "./permission-rule.js";

/** The mode and rules of a run. */
export interface PermissionPolicy {
  readonly mode: PermissionMode;
  readonly allow: readonly PermissionRule[];
  readonly deny: readonly PermissionRule[];
}

/** The policy of a run when nothing is set: `auto`, no rules (every tool runs, as before). */
export const DEFAULT_PERMISSION_POLICY: PermissionPolicy = { mode: "auto", allow: [], deny: [] };

/** What {@link judgeToolCall} decided. */
export type PermissionVerdict =
  | { readonly kind: "allow"; readonly by: PermissionDecider; readonly rule?: string }
  | { readonly kind: "deny"; readonly by: "rule" | "mode"; readonly rule?: string; readonly reason: string }
  | { readonly kind: "ask" };

const MAX_SUMMARY = 200;

/** The call in a few words: the command, the path, or the MCP tool's arguments. */
export function summarizeToolCall(call: JudgedCall, cwd: string): string {
  const category = toolCategory(call.toolName);
  let text: string;
  if (category === "bash") text = commandOf(call);
  else if (category === "edit" || category === "read") text = pathOf(call, cwd);
  else text = JSON.stringify(call.args) ?? "";
  return text.length > MAX_SUMMARY ? `${text.slice(0, MAX_SUMMARY - 1)}…` : text;
}

/**
 * The rule a "for this session" answer adds: the exact command for bash, `edit(**)` for a file inside the
 * working directory (the rest of the session's edits; a path outside it is allowed alone), the tool's name
 * for an MCP tool.
 */
export function suggestedRule(call: JudgedCall, cwd: string): string {
  const category = toolCategory(call.toolName);
  if (category === "bash") return `bash(${commandOf(call).trim().replace(/\s+/g, " ")})`;
  if (category === "edit") {
    const path = pathOf(call, cwd);
    return path.startsWith("/") ? `edit(${path})` : "edit(**)";
  }
  return call.toolName;
}

function refusalHint(call: JudgedCall, cwd: string): string {
  return `an allow rule in settings.json, e.g. "permissions": { "allow": ["${suggestedRule(call, cwd).replace(/"/g, '\\"')}"] }`;
}

/** The text a refused call's tool result carries when the mode (not a rule) refused it. */
export function modeRefusal(
  mode: PermissionMode,
  call: JudgedCall,
  cwd: string,
  why: "mode" | "no_one_to_ask",
): string {
  const category = toolCategory(call.toolName);
  const hint = refusalHint(call, cwd);
  if (why === "no_one_to_ask") {
    return `Permission needed: ${call.toolName} was not run. The permission mode is "${mode}" and no one can be asked in this mode of arbor (print, json). To allow it, add ${hint}, or run with --permissions auto.`;
  }
  const what =
    category === "edit"
      ? "plan mode is read-only: files are not written or edited"
      : "plan mode is read-only: bash and MCP tools run only what an allow rule allows";
  return `Refused by the permission mode: ${call.toolName} was not run (${what}). To allow it, add ${hint}, or run with --permissions auto (or edits).`;
}

/**
 * Judges one call (see the module comment).
 *
 * Contract: pure but for reading symbolic links of the call's path; never throws.
 */
export function judgeToolCall(
  policy: PermissionPolicy,
  call: JudgedCall,
  cwd: string,
  sessionRules: readonly PermissionRule[] = [],
): PermissionVerdict {
  const denied = policy.deny.find((rule) => denyCovers(rule, call, cwd));
  if (denied !== undefined) {
    return {
      kind: "deny",
      by: "rule",
      rule: denied.text,
      reason: `Denied by the permission rule "${denied.text}" (permissions.deny in settings.json): ${call.toolName} was not run. Deny rules hold in every mode; do not try to get around it.`,
    };
  }
  const category = toolCategory(call.toolName);
  if (category === "read" || category === "other") return { kind: "allow", by: "mode" };
  const byRule = allowCovering(policy.allow, call, cwd);
  if (byRule !== undefined) return { kind: "allow", by: "rule", rule: byRule.text };
  const bySession = allowCovering(sessionRules, call, cwd);
  if (bySession !== undefined) return { kind: "allow", by: "session", rule: bySession.text };
  switch (policy.mode) {
    case "auto":
      return { kind: "allow", by: "mode" };
    case "edits":
      // Edits inside the working directory run; outside it (`~/.bashrc`, `/etc/…`) they ask.
      return category === "edit" && insideWorkingDirectory(call, cwd)
        ? { kind: "allow", by: "mode" }
        : { kind: "ask" };
    case "ask":
      return { kind: "ask" };
    case "plan":
      return { kind: "deny", by: "mode", reason: modeRefusal("plan", call, cwd, "mode") };
  }
}

/**
 * Why the policy keeps a file from being read outside a tool call (an `@path` mention in a prompt), or
 * undefined when it may be read: only a deny rule does (reading runs in every mode).
 *
 * Contract: never throws.
 */
export function readRefusal(policy: PermissionPolicy, path: string, cwd: string): string | undefined {
  const verdict = judgeToolCall(policy, { toolName: "read", args: { path } }, cwd);
  if (verdict.kind !== "deny") return undefined;
  return verdict.rule === undefined
    ? "not attached: the permission policy denies reading it"
    : `not attached: the permission rule "${verdict.rule}" denies reading it`;
}
