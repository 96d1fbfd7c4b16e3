/**
 * What a session's resources are to the harness: the data its system prompt is built from (context files,
 * skills, prompt templates) and the two functions a harness is given to use them — a
 * {@link HarnessResourceLoader} (`resources` option) and a {@link SystemPromptBuilder} (`systemPrompt`
 * option). The files are read by `@arbor/harness/resources`; the harness itself reads none.
 */
import type { ImageContent } from "@arbor/ai-providers";

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

/** The resources of one session, as loaded at its start. */
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

/** What the user's text of a `prompt()` became before it was sent. */
export interface ExpandedInput {
  /** The text to send as the user's message. */
  text: string;
  /** `skill`: a `/skill:name` was expanded; `template`: a `/name` template; `plain`: unchanged. */
  kind: "plain" | "skill" | "template";
  /** The skill's or template's name (for `skill` and `template`). */
  name?: string;
  /** Images to send with the text (after the `images` of `prompt()`), e.g. the images an `@path` named. */
  images?: ImageContent[];
  /**
   * Set when the input named a skill whose file could not be read: the text is then returned unchanged
   * (`kind: "plain"`) and this says why, for the user.
   */
  warning?: string;
}

/**
 * Where a harness gets each session's resources (the `resources` option of `createHarness()`);
 * `createResourceLoader()` of `@arbor/harness/resources` reads them from the Arbor home and the project.
 */
export interface HarnessResourceLoader {
  /**
   * The resources of a session working in `cwd`, read once at its start.
   *
   * Contract: resolves for anything found (or not) on disk — problems go to `warnings`; a rejection fails
   * the session's start.
   */
  load(cwd: string): Promise<HarnessResources>;
  /**
   * Expands what the user typed (e.g. `/skill:name`, `/template args`) before `prompt()` sends it; the
   * result reaches `before_agent_start` handlers as `expanded`.
   *
   * Contract: never rejects; returns the text unchanged (`kind: "plain"`) when there is nothing to expand.
   */
  expandInput(text: string, resources: HarnessResources): Promise<ExpandedInput>;
}

/** What a {@link SystemPromptBuilder} builds a session's system prompt from. */
export interface SystemPromptInput {
  /** The session's working directory. */
  cwd: string;
  /** The active tools, with their descriptions. */
  tools: readonly { name: string; description: string }[];
  /** The session's resources (empty without a `resources` loader). */
  resources: HarnessResources;
  /** The harness's clock at the time of building. */
  date: Date;
}

/**
 * Builds a session's system prompt: at its start and whenever its active tools change
 * (`createSystemPromptBuilder()` of `@arbor/harness/resources` builds Arbor's coding prompt).
 *
 * Contract: pure and synchronous; should not throw (a throw fails the session's start or `setActiveTools`).
 */
export type SystemPromptBuilder = (input: SystemPromptInput) => string;

/** Resources with nothing in them: what a harness without a `resources` loader gives every session. */
export function emptyHarnessResources(): HarnessResources {
  return { contextFiles: [], skills: [], promptTemplates: [], warnings: [] };
}
