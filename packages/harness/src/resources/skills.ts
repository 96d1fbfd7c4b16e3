import { readdir, readFile, realpath } from "node:fs/promises";
import { join } from "node:path";
import type { Skill } from "../session-resources.js";

/**
 * Skills (the Agent Skills format that Claude Code and the pi agent read): a folder holding a `SKILL.md`
 * whose YAML frontmatter names the skill and says what it is for, plus any files the instructions refer
 * to. Also the helpers skills and prompt templates share: frontmatter, the user / project directories and
 * the override rule.
 */

/** The file that makes a folder a skill. */
export const SKILL_FILE_NAME = "SKILL.md";

/** Longest skill name (the Agent Skills limit). */
export const MAX_SKILL_NAME_LENGTH = 64;

/** Longest description the Agent Skills format recommends; longer ones are kept, with a warning. */
export const MAX_SKILL_DESCRIPTION_LENGTH = 1024;

const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * True for a valid skill name: 1 to 64 characters of lowercase letters, digits and hyphens, no hyphen at
 * either end and no two in a row (e.g. `pdf-tools`).
 */
export function isValidSkillName(name: string): boolean {
  return name.length <= MAX_SKILL_NAME_LENGTH && SKILL_NAME_PATTERN.test(name);
}

/** A Markdown file split into its YAML frontmatter and its body. */
export interface Frontmatter {
  /** True when the file starts with a `---` line and a closing `---` line follows. */
  present: boolean;
  /** The frontmatter's fields (empty when absent, invalid or not a mapping). */
  attributes: Record<string, unknown>;
  /** The text after the frontmatter (the whole text when there is none), leading blank lines removed. */
  body: string;
  /** Why the frontmatter could not be used (invalid YAML, not a mapping). */
  error?: string;
}

const FRONTMATTER_PATTERN = /^\uFEFF?---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

/**
 * Splits a Markdown file into YAML frontmatter (between a first line `---` and the next line `---`) and
 * body. The YAML is parsed with the `yaml` package (duplicate keys and more than 100 aliases are errors),
 * loaded on the first frontmatter met, so that a start-up without skills or templates does not load it.
 *
 * Contract: pure; never rejects — a YAML error is returned in `error`, with the body still split off.
 */
export async function parseFrontmatter(text: string): Promise<Frontmatter> {
  const match = FRONTMATTER_PATTERN.exec(text);
  if (match === null) {
    return { present: false, attributes: {}, body: stripLeadingBlankLines(text.replace(/^\uFEFF/, "")) };
  }
  const body = stripLeadingBlankLines(text.slice(match[0].length));
  let value: unknown;
  try {
    value = (await loadYamlParse())(match[1] ?? "");
  } catch (error) {
    const message = error instanceof Error ? error.message.split("\n")[0] : String(error);
    return { present: true, attributes: {}, body, error: `invalid YAML frontmatter: ${message}` };
  }
  if (value === null || value === undefined) return { present: true, attributes: {}, body };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { present: true, attributes: {}, body, error: "the frontmatter is not a mapping of fields" };
  }
  return { present: true, attributes: value as Record<string, unknown>, body };
}

type YamlModule = typeof import("yaml");

/**
 * The `yaml` package's `parse`, imported on first use. A bundler that turns the package into CommonJS
 * (the CLI's bundle does) hands the module over as its `default` export, so both shapes are accepted.
 */
async function loadYamlParse(): Promise<YamlModule["parse"]> {
  const loaded = (await import("yaml")) as Partial<YamlModule> & { default?: YamlModule };
  const parse = loaded.parse ?? loaded.default?.parse;
  if (typeof parse !== "function") throw new Error("the yaml package has no parse function");
  return parse;
}

function stripLeadingBlankLines(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, "");
}

/** Options of {@link loadSkills}. */
export interface LoadSkillsOptions {
  /** The working directory: project skills live in `<cwd>/.arbor/skills`. */
  cwd: string;
  /** The Arbor home: user skills live in `<home>/skills`. */
  home: string;
}

/** What {@link loadSkills} found. */
export interface LoadedSkills {
  /** Sorted by name. */
  skills: Skill[];
  /** Invalid skills, unreadable files and directories, overrides. */
  warnings: string[];
}

/**
 * Loads the user's skills (`<home>/skills/<name>/SKILL.md`) and the project's
 * (`<cwd>/.arbor/skills/<name>/SKILL.md`). A project skill replaces a user skill of the same name, with a
 * warning. When both directories are the same (the home is `<cwd>/.arbor`), it is read once, as the user's.
 *
 * Contract: never throws; see {@link loadSkillsFromDirectory} for what is valid.
 */
export async function loadSkills(options: LoadSkillsOptions): Promise<LoadedSkills> {
  const directories = await resourceDirectories(options.home, options.cwd, "skills");
  const [user, project] = await Promise.all([
    loadSkillsFromDirectory(directories.user, "user"),
    directories.project === undefined ? undefined : loadSkillsFromDirectory(directories.project, "project"),
  ]);
  const merged = mergeUserAndProject(user.skills, project?.skills ?? [], "skill");
  return {
    skills: merged.items,
    warnings: [...user.warnings, ...(project?.warnings ?? []), ...merged.warnings],
  };
}

/**
 * Loads the skills of one directory: every subfolder (names starting with `.` skipped) that holds a
 * `SKILL.md`. A skill is valid when its frontmatter has a `name` that {@link isValidSkillName} accepts and
 * that equals the folder's name, and a non-empty `description`; `disable-model-invocation: true` hides it
 * from the model. Invalid skills are left out, each with a warning naming the file and the reason.
 *
 * Contract: never throws; a missing directory gives no skills and no warning.
 */
export async function loadSkillsFromDirectory(
  directory: string,
  source: Skill["source"],
): Promise<LoadedSkills> {
  const listing = await listDirectory(directory);
  const warnings = listing.warning === undefined ? [] : [listing.warning];
  const results = await Promise.all(
    listing.names
      .filter((name) => !name.startsWith("."))
      .map((folder) => readSkill(join(directory, folder), folder, source)),
  );
  const skills: Skill[] = [];
  for (const result of results) {
    if (result.warning !== undefined) warnings.push(result.warning);
    if (result.skill !== undefined) skills.push(result.skill);
  }
  return { skills, warnings };
}

/** A skill and/or a warning; neither when the folder holds no `SKILL.md`. */
async function readSkill(
  baseDir: string,
  folder: string,
  source: Skill["source"],
): Promise<{ skill?: Skill; warning?: string }> {
  const path = join(baseDir, SKILL_FILE_NAME);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    return isMissingFileError(error)
      ? {}
      : { warning: `Cannot read skill ${path}: ${describeFileError(error)}` };
  }
  const rejected = (reason: string) => ({ warning: `Skill ${path} is ignored: ${reason}.` });
  const frontmatter = await parseFrontmatter(text);
  if (!frontmatter.present) {
    return rejected(
      "it has no frontmatter (a first line `---`, then `name:` and `description:`, then `---`)",
    );
  }
  if (frontmatter.error !== undefined) return rejected(frontmatter.error);
  const { name, description } = frontmatter.attributes;
  if (name === undefined || name === null || name === "") return rejected("its frontmatter has no `name`");
  if (typeof name !== "string") return rejected(`its \`name\` is not text: ${JSON.stringify(name)}`);
  if (!isValidSkillName(name)) {
    return rejected(
      `its name "${name}" is not valid (1 to ${MAX_SKILL_NAME_LENGTH} lowercase letters, digits and single hyphens, e.g. "pdf-tools")`,
    );
  }
  if (name !== folder) return rejected(`its name "${name}" does not match its folder "${folder}"`);
  if (typeof description !== "string" || description.trim() === "") {
    return rejected("its frontmatter has no `description`");
  }
  const skill: Skill = { name, description: description.trim(), path, baseDir, source };
  if (frontmatter.attributes["disable-model-invocation"] === true) skill.disableModelInvocation = true;
  if (skill.description.length <= MAX_SKILL_DESCRIPTION_LENGTH) return { skill };
  return {
    skill,
    warning: `Skill ${path} has a description of ${skill.description.length} characters; keep it under ${MAX_SKILL_DESCRIPTION_LENGTH}, as it is sent with every request.`,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Shared by skills and prompt templates.

/**
 * The user's and the project's directory of a resource kind: `<home>/<kind>` and `<cwd>/.arbor/<kind>`.
 * `project` is undefined when both are the same directory (compared by real path).
 */
export async function resourceDirectories(
  home: string,
  cwd: string,
  kind: string,
): Promise<{ user: string; project: string | undefined }> {
  const user = join(home, kind);
  const project = join(cwd, ".arbor", kind);
  if (user === project) return { user, project: undefined };
  const [userReal, projectReal] = await Promise.all([
    realpath(user).catch(() => undefined),
    realpath(project).catch(() => undefined),
  ]);
  const same = userReal !== undefined && userReal === projectReal;
  return { user, project: same ? undefined : project };
}

/** The sorted names in a directory; a warning when it exists but cannot be listed. */
export async function listDirectory(directory: string): Promise<{ names: string[]; warning?: string }> {
  try {
    const names = await readdir(directory);
    return { names: names.sort() };
  } catch (error) {
    if (isMissingFileError(error)) return { names: [] };
    return { names: [], warning: `Cannot list ${directory}: ${describeFileError(error)}` };
  }
}

/**
 * Merges user and project resources by name: a project item replaces the user item of the same name (with
 * a warning naming both files). The result is sorted by name.
 */
export function mergeUserAndProject<T extends { name: string; path: string }>(
  user: readonly T[],
  project: readonly T[],
  kind: string,
): { items: T[]; warnings: string[] } {
  const byName = new Map<string, T>();
  for (const item of user) byName.set(item.name, item);
  const warnings: string[] = [];
  for (const item of project) {
    const replaced = byName.get(item.name);
    if (replaced !== undefined) {
      warnings.push(
        `The project ${kind} "${item.name}" (${item.path}) overrides the user ${kind} of the same name (${replaced.path}).`,
      );
    }
    byName.set(item.name, item);
  }
  const items = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { items, warnings };
}

/** True for "no such file" errors (`ENOENT`, and `ENOTDIR` for a path through a file). */
export function isMissingFileError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}

/** A file-system error in words: Node's message (which names the code), else the value as text. */
export function describeFileError(error: unknown): string {
  if ((error as { code?: unknown } | null)?.code === "EISDIR") return "it is a directory";
  return error instanceof Error ? error.message : String(error);
}
