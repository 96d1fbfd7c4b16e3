import { resolve } from "node:path";
import type { HarnessResourceLoader, HarnessResources } from "../session-resources.js";
import { DEFAULT_MAX_CONTEXT_FILE_BYTES, loadContextFiles } from "./context-files.js";
import { expandInput } from "./input-expansion.js";
import { loadPromptTemplates } from "./prompt-templates.js";
import { loadSkills } from "./skills.js";

/**
 * The files a harness reads from the user's Arbor home and the project to build its system prompt and
 * to expand `/skill:name` and `/template` input: context files (`AGENTS.md` / `CLAUDE.md`), skills
 * (`SKILL.md`) and prompt templates (`*.md`). See `docs/harness-resources.md` for the user's view.
 */

/** Options of {@link loadHarnessResources}. */
export interface LoadHarnessResourcesOptions {
  /** The working directory (the project); relative paths are resolved against `process.cwd()`. */
  cwd: string;
  /** The Arbor home (e.g. `~/.arbor`, resolved by the app): user context file, skills and prompts. */
  home: string;
  /** Largest context file included whole, in bytes (default {@link DEFAULT_MAX_CONTEXT_FILE_BYTES}). */
  maxContextFileBytes?: number;
}

/**
 * Loads the context files, skills and prompt templates of a working directory:
 *
 * - context files: `AGENTS.md` (or, when a directory has none, `CLAUDE.md`) from the home, then from every
 *   directory from the filesystem root down to `cwd`; deduplicated by real path; each cut to
 *   `maxContextFileBytes` (see `loadContextFiles`);
 * - skills: `<home>/skills/<name>/SKILL.md` and `<cwd>/.arbor/skills/<name>/SKILL.md` (see `loadSkills`);
 * - prompt templates: `<home>/prompts/*.md` and `<cwd>/.arbor/prompts/*.md` (see `loadPromptTemplates`).
 *
 * Contract: never throws and never rejects for anything on disk — missing directories are normal, and
 * unreadable or invalid files become {@link HarnessResources.warnings} (context files first, then skills,
 * then templates). The result depends only on the files (directory listings are sorted).
 */
export async function loadHarnessResources(options: LoadHarnessResourcesOptions): Promise<HarnessResources> {
  const cwd = resolve(options.cwd);
  const home = resolve(options.home);
  const [context, skills, templates] = await Promise.all([
    loadContextFiles({ cwd, home, maxBytes: options.maxContextFileBytes ?? DEFAULT_MAX_CONTEXT_FILE_BYTES }),
    loadSkills({ cwd, home }),
    loadPromptTemplates({ cwd, home }),
  ]);
  return {
    contextFiles: context.contextFiles,
    skills: skills.skills,
    promptTemplates: templates.promptTemplates,
    warnings: [...context.warnings, ...skills.warnings, ...templates.warnings],
  };
}

/** Options of {@link createResourceLoader}. */
export type ResourceLoaderOptions = Omit<LoadHarnessResourcesOptions, "cwd">;

/**
 * The harness's `resources` option for Arbor's files: each session's resources are
 * {@link loadHarnessResources} of its cwd and `home`; its input is expanded by `expandInput`
 * (`/skill:name`, `/template args`).
 *
 * Contract: as {@link loadHarnessResources} and `expandInput`: never rejects for anything on disk.
 */
export function createResourceLoader(options: ResourceLoaderOptions): HarnessResourceLoader {
  return {
    load: (cwd) => loadHarnessResources({ ...options, cwd }),
    expandInput,
  };
}
