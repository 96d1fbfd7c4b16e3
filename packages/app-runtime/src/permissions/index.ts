/**
 * `@arbor/app-runtime/permissions`: permission modes and rules (docs/permissions.md) — rule parsing, the
 * matcher (compound shell commands, path globs), the decision function, the settings' schema and the gate
 * that `createAppRuntime()` puts on every tool call (`runtime.permissions`).
 */

export { PERMISSION_MODES, type PermissionMode } from "../tool-names.js";
export {
  PERMISSION_ANSWERS,
  type PermissionAnswer,
  type PermissionDecisionEvent,
  PermissionGate,
  type PermissionGateOptions,
  type PermissionRequest,
} from "./permission-gate.js";
export {
  allowCovering,
  commandPatternMatches,
  denyCovers,
  type JudgedCall,
  type ToolCategory,
  toolCategory,
} from "./permission-match.js";
export {
  DEFAULT_PERMISSION_POLICY,
  judgeToolCall,
  type PermissionPolicy,
  type PermissionVerdict,
  suggestedRule,
  summarizeToolCall,
} from "./permission-policy.js";
export {
  type ParsedRule,
  type PermissionRule,
  parsePermissionRule,
  parsePermissionRules,
  RULE_TOOLS,
  type RuleTool,
} from "./permission-rule.js";
export {
  mergePermissionSettings,
  type PermissionsSettings,
  PermissionsSettingsSchema,
  permissionSettingsProblems,
  resolvePermissionPolicy,
} from "./permission-settings.js";
export { type ShellCommandParts, shellCommandParts } from "./shell-command-parts.js";
