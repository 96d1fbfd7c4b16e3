import type { ContextFile, Skill, SystemPromptBuilder, SystemPromptInput } from "../session-resources.js";

/**
 * The system prompt of a coding session: who the model is, the tools it has, how to work, the project's
 * instructions (context files), the skills it may load, the date and the working directory.
 */

/** Options of {@link buildSystemPrompt}: the session's input, plus how to change the default text. */
export interface SystemPromptOptions extends Omit<SystemPromptInput, "date">, SystemPromptCustomization {
  /** The current date (default: now). Only the local calendar date is used. */
  date?: Date;
}

/** How an app changes Arbor's default prompt (options of {@link createSystemPromptBuilder}). */
export interface SystemPromptCustomization {
  /**
   * Replaces the default role statement and the default guidelines; the tools, extra guidelines, context
   * files, skills, date and working directory still follow it.
   */
  customPrompt?: string;
  /** Text added at the very end of the prompt. */
  appendPrompt?: string;
  /** More guidelines, listed after the default ones (or alone, with `customPrompt`). */
  guidelines?: readonly string[];
}

/** The default role statement: the first paragraph of the prompt unless `customPrompt` replaces it. */
export const ROLE_STATEMENT =
  "You are Arbor, an expert coding assistant operating in the user's project. You help by reading " +
  "files, running commands, editing code and writing new files, and you explain what you did.";

/** The longest tool description line in the tool list; longer ones are cut with `…`. */
const MAX_TOOL_LINE = 200;

/**
 * The default guidelines for a set of active tools: general ones (concise answers, clear file paths) and
 * ones for the tools present (read before edit, exact edits, write for new files, dedicated search tools
 * over bash, recall for details a compaction summary lost).
 *
 * Contract: pure; the result depends only on which of `read`, `edit`, `write`, `bash`, `grep`, `find`,
 * `ls` and `recall` are named.
 */
export function defaultGuidelines(toolNames: readonly string[]): string[] {
  const has = (name: string) => toolNames.includes(name);
  const guidelines: string[] = [];
  const searchTools = ["grep", "find", "ls"].filter(has);
  if (has("bash") && searchTools.length > 0) {
    const names =
      searchTools.length === 1
        ? `the ${searchTools[0]} tool`
        : `the ${searchTools.slice(0, -1).join(", ")} and ${searchTools.at(-1)} tools`;
    guidelines.push(`Prefer ${names} to bash for exploring files: faster, and .gitignore is respected.`);
  } else if (has("bash")) {
    guidelines.push("Use bash for file operations such as ls, rg and find.");
  }
  if (has("read") && has("edit")) guidelines.push("Read a file before you edit it.");
  if (has("edit"))
    guidelines.push("Use edit for targeted changes: the old text must match the file exactly.");
  if (has("write")) guidelines.push("Use write only for new files or complete rewrites.");
  if (has("recall")) {
    guidelines.push(
      "Earlier parts of the conversation may have been replaced by a summary. When you need an exact detail the summary lacks (code, an error message, a command's output), get the original messages back with recall instead of guessing.",
    );
  }
  guidelines.push("Be concise in your responses.");
  guidelines.push("Show file paths clearly when you work with files.");
  return guidelines;
}

/** `- name: first line of the description` for each tool, or a sentence saying there are none. */
export function formatToolList(tools: readonly { name: string; description: string }[]): string {
  if (tools.length === 0)
    return "No tools are available: answer from what you know and what the user gives you.";
  return tools
    .map((tool) => {
      const line = (tool.description.trim().split(/\r?\n/)[0] ?? "").trim();
      const short = line.length > MAX_TOOL_LINE ? `${line.slice(0, MAX_TOOL_LINE - 1).trimEnd()}…` : line;
      return short === "" ? `- ${tool.name}` : `- ${tool.name}: ${short}`;
    })
    .join("\n");
}

/** The `# Project context` section: each file under its path as a heading; empty string for no files. */
export function formatContextFiles(files: readonly ContextFile[]): string {
  if (files.length === 0) return "";
  const parts = [
    "# Project context",
    "Instructions from the user's and the project's context files, outermost first. When they disagree, the later (more specific) file wins.",
  ];
  for (const file of files) parts.push(`## ${file.path}\n\n${file.content.trimEnd()}`);
  return parts.join("\n\n");
}

/**
 * The `# Skills` section: every skill not marked `disableModelInvocation`, with its description and the
 * path of its file, and how to use them; empty string when none is listed.
 */
export function formatSkillList(skills: readonly Skill[], hasReadTool: boolean): string {
  const listed = skills.filter((skill) => skill.disableModelInvocation !== true);
  if (listed.length === 0) return "";
  const how = hasReadTool ? "read its file with the read tool" : "read its file";
  const lines = listed.map(
    (skill) => `- ${skill.name}: ${skill.description.replace(/\s+/g, " ").trim()}\n  File: ${skill.path}`,
  );
  return [
    "# Skills",
    `Skills hold instructions for specific tasks. When a task matches a skill's description, ${how} before you start and follow it; paths in a skill are relative to the skill's directory.`,
    lines.join("\n"),
  ].join("\n\n");
}

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** A date as `YYYY-MM-DD (Weekday)`, in local time (no clock time, so the prompt stays cacheable all day). */
export function formatPromptDate(date: Date): string {
  const year = String(date.getFullYear()).padStart(4, "0");
  const month = String(date.getMonth() + 1).padStart(2, "0");
  const day = String(date.getDate()).padStart(2, "0");
  return `${year}-${month}-${day} (${WEEKDAYS[date.getDay()]})`;
}

/**
 * Builds the system prompt, in this order (sections separated by a blank line, empty ones left out):
 *
 * 1. the role statement ({@link ROLE_STATEMENT}), or `customPrompt` in its place;
 * 2. `# Tools`: each active tool with the first line of its description;
 * 3. `# Guidelines`: {@link defaultGuidelines} for the tools (not with `customPrompt`), then `guidelines`;
 * 4. `# Project context`: each context file under its path;
 * 5. `# Skills`: name, description and file of each skill the model may use;
 * 6. `# Environment`: the date and the working directory;
 * 7. `appendPrompt`.
 *
 * Contract: pure and deterministic — the same options (with `date` given) give the same text; never throws.
 */
export function buildSystemPrompt(options: SystemPromptOptions): string {
  const toolNames = options.tools.map((tool) => tool.name);
  const custom = options.customPrompt?.trim();
  const useDefaults = custom === undefined || custom === "";
  const guidelines = [...(useDefaults ? defaultGuidelines(toolNames) : []), ...(options.guidelines ?? [])];
  const sections = [
    useDefaults ? ROLE_STATEMENT : custom,
    `# Tools\n\n${formatToolList(options.tools)}`,
    guidelines.length === 0 ? "" : `# Guidelines\n\n${guidelines.map((line) => `- ${line}`).join("\n")}`,
    formatContextFiles(options.resources.contextFiles),
    formatSkillList(options.resources.skills, toolNames.includes("read")),
    `# Environment\n\nCurrent date: ${formatPromptDate(options.date ?? new Date())}\nWorking directory: ${options.cwd}`,
    options.appendPrompt?.trim() ?? "",
  ];
  return sections.filter((section) => section !== "").join("\n\n");
}

/**
 * The harness's `systemPrompt` option for Arbor's coding prompt: {@link buildSystemPrompt} over each
 * session's tools, resources, date and cwd, with `customization` applied.
 *
 * Contract: pure and deterministic, as {@link buildSystemPrompt}.
 */
export function createSystemPromptBuilder(
  customization: SystemPromptCustomization = {},
): SystemPromptBuilder {
  const { customPrompt, appendPrompt, guidelines } = customization;
  return (input) => {
    const options: SystemPromptOptions = { ...input };
    if (customPrompt !== undefined) options.customPrompt = customPrompt;
    if (appendPrompt !== undefined) options.appendPrompt = appendPrompt;
    if (guidelines !== undefined) options.guidelines = guidelines;
    return buildSystemPrompt(options);
  };
}
