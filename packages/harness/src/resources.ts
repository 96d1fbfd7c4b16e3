import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { DEFAULT_MAX_CONTEXT_FILE_BYTES, loadContextFiles } from "./context-files.js";
import { loadPromptTemplates } from "./prompt-templates.js";
import { loadSkills } from "./skills.js";

/**
 * The files a harness reads from the user's Arbor home and the project to build its system prompt and
 * to expand `/skill:name` and `/template` input: context files (`AGENTS.md` / `CLAUDE.md`), skills
 * (`SKILL.md`) and prompt templates (`*.md`). See `docs/harness-resources.md` for the user's view.
 */

/** An instruction file (`AGENTS.md` or `CLAUDE.md`) included in the system prompt. */
export interface ContextFile {
  /** Absolute path of the file, as found (not resolved through symbolic links). */
  path: string;
  /** The file's text; cut (with a marker at the end) when it was over the size limit. */
  content: string;
}

/**
 * A skill: a folder with a `SKILL.md` whose YAML frontmatter gives `name` and `description`. The model
 * sees the name, description and path in the system prompt and reads the file when a task matches; the
 * user loads it with `/skill:name`.
 */
export interface Skill {
  /** Lowercase letters, digits and single hyphens, at most 64 characters; equals the folder's name. */
  name: string;
  /** What the skill is for and when to use it (frontmatter `description`). */
  description: string;
  /** Absolute path of the `SKILL.md` file. */
  path: string;
  /** The skill's folder: paths inside the skill are relative to it. */
  baseDir: string;
  /** `user`: from `<home>/skills`; `project`: from `<cwd>/.arbor/skills`. */
  source: "user" | "project";
  /**
   * Frontmatter `disable-model-invocation: true`: the skill is not listed for the model; only the user
   * can load it with `/skill:name`.
   */
  disableModelInvocation?: boolean;
}

/** A prompt template: a Markdown file whose body is expanded by `/name args`. */
export interface PromptTemplate {
  /** The file name without `.md`; invoked as `/name`. */
  name: string;
  /** Frontmatter `description`, for command lists. */
  description?: string;
  /** The body (frontmatter removed), with `$1`, `$2`, …, `$@` and `$ARGUMENTS` placeholders. */
  content: string;
  /** Absolute path of the file. */
  path: string;
  /** `user`: from `<home>/prompts`; `project`: from `<cwd>/.arbor/prompts`. */
  source: "user" | "project";
}

/** Everything {@link loadHarnessResources} found, plus what went wrong on the way. */
export interface HarnessResources {
  /** Outermost first: the home's file, then the filesystem root's, …, then the cwd's. */
  contextFiles: ContextFile[];
  /** Sorted by name; a project skill replaces a user skill of the same name. */
  skills: Skill[];
  /** Sorted by name; a project template replaces a user template of the same name. */
  promptTemplates: PromptTemplate[];
  /** Problems a user should see (unreadable files, invalid skills, overrides, cut files), in order. */
  warnings: string[];
}

/** Options of {@link loadHarnessResources}. */
export interface LoadHarnessResourcesOptions {
  /** The working directory (the project); relative paths are resolved against `process.cwd()`. */
  cwd: string;
  /** The Arbor home. Default: `$ARBOR_HOME` when set and non-empty, else `~/.arbor`. */
  home?: string;
  /** Largest context file included whole, in bytes (default {@link DEFAULT_MAX_CONTEXT_FILE_BYTES}). */
  maxContextFileBytes?: number;
}

/**
 * The Arbor home as an absolute path: `home` when given, else `$ARBOR_HOME` when set and non-empty, else
 * `~/.arbor` (the same rule as the JSONL session store).
 */
export function resolveArborHome(home?: string): string {
  if (home !== undefined && home !== "") return resolve(home);
  const fromEnvironment = process.env.ARBOR_HOME;
  return fromEnvironment ? resolve(fromEnvironment) : join(homedir(), ".arbor");
}

/** Resources with nothing in them (e.g. for a harness that reads no files). */
export function emptyHarnessResources(): HarnessResources {
  return { contextFiles: [], skills: [], promptTemplates: [], warnings: [] };
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
  const home = resolveArborHome(options.home);
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
