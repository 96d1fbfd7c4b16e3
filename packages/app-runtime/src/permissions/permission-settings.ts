/**
 * `permissions` in `settings.json`: `{ "mode": "auto" | "ask" | "edits" | "plan", "allow": [rules],
 * "deny": [rules] }` (see `permission-rule.ts` for the rules). The global and the project file merge: the
 * project's `mode` wins, the rule lists are joined. `--permissions <mode>` beats both.
 */
import { type Static, Type } from "@arbor/ai-providers";
import { PERMISSION_MODES, type PermissionMode } from "../tool-names.js";
import { DEFAULT_PERMISSION_POLICY, type PermissionPolicy } from "./permission-policy.js";
import { parsePermissionRules } from "./permission-rule.js";

const RuleList = Type.Array(
  Type.String({
    minLength: 1,
    description: 'a rule: "bash(git status)", "edit(src/**)", "mcp__server__tool"',
  }),
);

/** The schema of settings' `permissions`. */
export const PermissionsSettingsSchema = Type.Object(
  {
    mode: Type.Optional(
      Type.Union(
        PERMISSION_MODES.map((mode) => Type.Literal(mode)),
        { description: "auto (default), ask, edits or plan" },
      ),
    ),
    allow: Type.Optional(RuleList),
    deny: Type.Optional(RuleList),
  },
  { additionalProperties: false },
);

/** Settings' `permissions`. */
export type PermissionsSettings = Static<typeof PermissionsSettingsSchema>;

/**
 * The problems of the rules of one file's `permissions`, as lines `permissions.deny[0]: …` (empty when all
 * parse).
 */
export function permissionSettingsProblems(settings: PermissionsSettings): string[] {
  return [
    ...parsePermissionRules(settings.allow ?? [], "permissions.allow").errors,
    ...parsePermissionRules(settings.deny ?? [], "permissions.deny").errors,
  ];
}

/** The project file's `permissions` over the global file's: its `mode` wins, rule lists are joined. */
export function mergePermissionSettings(
  global: PermissionsSettings | undefined,
  project: PermissionsSettings | undefined,
): PermissionsSettings | undefined {
  if (global === undefined) return project;
  if (project === undefined) return global;
  const mode = project.mode ?? global.mode;
  return {
    ...(mode === undefined ? {} : { mode }),
    allow: [...(global.allow ?? []), ...(project.allow ?? [])],
    deny: [...(global.deny ?? []), ...(project.deny ?? [])],
  };
}

/**
 * The policy of a run: the flag's mode, else the settings', else `auto`; the settings' rules.
 *
 * Contract: the settings were validated (`readSettingsFile` refuses a bad rule); a rule that still does not
 * parse is left out.
 */
export function resolvePermissionPolicy(
  settings: PermissionsSettings | undefined,
  mode: PermissionMode | undefined,
): PermissionPolicy {
  return {
    mode: mode ?? settings?.mode ?? DEFAULT_PERMISSION_POLICY.mode,
    allow: parsePermissionRules(settings?.allow ?? [], "permissions.allow").rules,
    deny: parsePermissionRules(settings?.deny ?? [], "permissions.deny").rules,
  };
}
