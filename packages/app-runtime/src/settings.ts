/**
 * `settings.json`: the user's defaults for `arbor`, read from `~/.arbor/settings.json` (the Arbor home:
 * `$ARBOR_HOME`, else `~/.arbor`) and then `.arbor/settings.json` in the working directory, whose fields win.
 * Both are validated against {@link SettingsSchema}; a problem is reported with the file and the field.
 * Flags beat both. API keys are never read from these files: they come from `--api-key` or the provider's
 * environment variable.
 */
import { join } from "node:path";
import { type Static, THINKING_LEVELS, Type } from "@arbor/ai-providers";
import { resolveCompactionSettings } from "@arbor/compaction";
import { readJsonFile, validateConfig } from "./config-file.js";
import { ArborUserError } from "./errors.js";
import { ExtensionTimeoutsSchema, mergeExtensionTimeoutSettings } from "./extensions/extension-timeouts.js";
import { ModelLimitsSchema } from "./model-limits.js";
import {
  mergePermissionSettings,
  PermissionsSettingsSchema,
  permissionSettingsProblems,
} from "./permissions/permission-settings.js";
import { TOOL_NAMES } from "./tool-names.js";

/** The schema of a settings file (every field optional; unknown fields are errors, to catch typos). */
export const SettingsSchema = Type.Object(
  {
    provider: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          "anthropic, openai, scripted, an OpenAI-compatible preset (ollama, vllm, llama-cpp, lm-studio, " +
          "openrouter, groq, deepseek) or a provider of models.json",
      }),
    ),
    model: Type.Optional(
      Type.String({ minLength: 1, description: '"provider/id", or an id of the provider' }),
    ),
    baseUrl: Type.Optional(
      Type.String({
        minLength: 1,
        description: "the provider's URL (an OpenAI- or Anthropic-compatible server)",
      }),
    ),
    modelLimits: Type.Optional(ModelLimitsSchema),
    streamIdleTimeoutMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        description: "abandon (and retry) a response when no data arrives for this long; 0 turns it off",
      }),
    ),
    thinking: Type.Optional(Type.Union(THINKING_LEVELS.map((level) => Type.Literal(level)))),
    tools: Type.Optional(
      Type.Array(
        Type.Union([
          ...TOOL_NAMES.map((name) => Type.Literal(name)),
          Type.String({ pattern: "^mcp__[A-Za-z0-9_-]+$", description: "an MCP tool or server" }),
        ]),
      ),
    ),
    shareKeysWithTools: Type.Optional(
      Type.Boolean({ description: "true: the bash tool's environment keeps the API key variables" }),
    ),
    store: Type.Optional(Type.String({ minLength: 1, description: "a store URL, e.g. jsonl:~/sessions" })),
    saveRetryMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        description:
          "how long a save the store refused is retried, in ms (delays from 0.25 s doubling up to 8 s); default 30000, 0: not at all",
      }),
    ),
    systemPrompt: Type.Optional(Type.String()),
    appendSystemPrompt: Type.Optional(Type.String()),
    compaction: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: "see @arbor/compaction's settings" }),
    ),
    mcpServers: Type.Optional(
      Type.Record(Type.String(), Type.Object({}, { additionalProperties: true }), {
        description:
          "MCP servers by name: { command, args?, env? } or { url, headers? } (checked by @arbor/mcp when they start; docs/mcp.md)",
      }),
    ),
    extensionTimeouts: Type.Optional(ExtensionTimeoutsSchema),
    permissions: Type.Optional(PermissionsSettingsSchema),
  },
  { additionalProperties: false },
);

/** A settings file's content. */
export type Settings = Static<typeof SettingsSchema>;

/** Settings with the file each field came from. */
export interface LoadedSettings {
  settings: Settings;
  /** The files read, in order (global, then project); missing files are not listed. */
  files: string[];
  /** For each top-level field set, the file it came from. */
  sourceOf: Partial<Record<keyof Settings, string>>;
}

/** The global and project settings files of a home and a working directory. */
export function settingsFiles(home: string, cwd: string): string[] {
  return [join(home, "settings.json"), join(cwd, ".arbor", "settings.json")];
}

/**
 * Reads and validates one settings file; `undefined` when it does not exist.
 *
 * @throws {ArborUserError} (`invalid_settings`) naming the file and each bad field.
 */
export function readSettingsFile(path: string): Settings | undefined {
  const raw = readJsonFile(path, "invalid_settings", "settings file");
  if (raw === undefined) return undefined;
  const settings = validateConfig<Settings>(SettingsSchema, raw, path, "invalid_settings", "settings file");
  if (settings.compaction !== undefined) {
    try {
      resolveCompactionSettings(settings.compaction);
    } catch (error) {
      // "Invalid compaction settings:\n  - reserveTokens: expected …" → "  compaction.reserveTokens: expected …"
      const problems = (error as Error).message
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line.startsWith("- "))
        .map((line) => `  compaction.${line.slice(2)}`);
      const detail = problems.length > 0 ? problems.join("\n") : `  compaction: ${(error as Error).message}`;
      throw new ArborUserError("invalid_settings", `Invalid settings file ${path}:\n${detail}`);
    }
  }
  if (settings.permissions !== undefined) {
    const problems = permissionSettingsProblems(settings.permissions);
    if (problems.length > 0) {
      throw new ArborUserError(
        "invalid_settings",
        `Invalid settings file ${path}:\n${problems.map((line) => `  ${line}`).join("\n")}`,
      );
    }
  }
  return settings;
}

/**
 * The settings of a run: the global file, then the project file (its fields win; `compaction`,
 * `modelLimits`, `mcpServers` and `extensionTimeouts` are merged key by key; `permissions`' rule lists are
 * joined).
 *
 * Contract: reads at most two small files; throws {@link ArborUserError} for the first file that does not
 * validate, naming it.
 */
export function loadSettings(home: string, cwd: string): LoadedSettings {
  const merged: Settings = {};
  const files: string[] = [];
  const sourceOf: LoadedSettings["sourceOf"] = {};
  for (const file of settingsFiles(home, cwd)) {
    const settings = readSettingsFile(file);
    if (settings === undefined) continue;
    files.push(file);
    for (const key of Object.keys(settings) as (keyof Settings)[]) {
      if (settings[key] === undefined) continue;
      sourceOf[key] = file;
      if (key === "compaction") merged.compaction = { ...merged.compaction, ...settings.compaction };
      else if (key === "modelLimits") merged.modelLimits = { ...merged.modelLimits, ...settings.modelLimits };
      else if (key === "permissions") {
        const permissions = mergePermissionSettings(merged.permissions, settings.permissions);
        if (permissions !== undefined) merged.permissions = permissions;
      } else if (key === "mcpServers") merged.mcpServers = { ...merged.mcpServers, ...settings.mcpServers };
      else if (key === "extensionTimeouts") {
        merged.extensionTimeouts = mergeExtensionTimeoutSettings(
          merged.extensionTimeouts,
          settings.extensionTimeouts,
        );
      } else Object.assign(merged, { [key]: settings[key] });
    }
  }
  return { settings: merged, files, sourceOf };
}
