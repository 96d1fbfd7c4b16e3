import { readFile } from "node:fs/promises";
import type { ExpandedInput, HarnessResources, Skill } from "../session-resources.js";
import { expandPromptTemplate } from "./prompt-templates.js";
import { describeFileError, parseFrontmatter } from "./skills.js";

/**
 * Expansion of what the user types: `/skill:name args` loads a skill's instructions into the prompt,
 * `/name args` fills a prompt template; anything else is passed on as typed.
 */

/** A slash command as typed: `/name argument text`. */
export interface SlashCommand {
  /** What follows the `/` up to the first whitespace, e.g. `review` or `skill:pdf-tools`. */
  name: string;
  /** Everything after the name and the whitespace that follows it (may hold newlines). */
  argumentText: string;
}

/** The prefix of a skill command: `/skill:name`. */
export const SKILL_COMMAND_PREFIX = "skill:";

/**
 * Splits `/name args` into name and argument text; undefined when the text does not start with `/` or
 * nothing follows it (`/`, `/ x`).
 *
 * Contract: pure; never throws.
 */
export function parseSlashCommand(text: string): SlashCommand | undefined {
  const match = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  if (match === null) return undefined;
  return { name: match[1]!, argumentText: match[2] ?? "" };
}

/**
 * The user message of a loaded skill: its body in a `<skill>` block that names the skill, its file and its
 * base directory (paths in the skill are relative to it), followed — after a blank line — by the
 * argument text, when there is one.
 *
 * Contract: pure; never throws.
 */
export function formatSkillInvocation(skill: Skill, body: string, argumentText: string): string {
  const block =
    `<skill name="${skill.name}" location="${skill.path}">\n` +
    `The user loaded the skill "${skill.name}". Its base directory is ${skill.baseDir}; resolve the relative paths it mentions against that directory.\n\n` +
    `${body.trim()}\n</skill>`;
  const request = argumentText.trim();
  return request === "" ? block : `${block}\n\n${request}`;
}

/**
 * Expands the user's input:
 *
 * - `/skill:name [args]` with a known skill (listed for the model or not): the skill's `SKILL.md` is read
 *   now (so edits apply at once), its frontmatter removed, and the body wrapped by
 *   {@link formatSkillInvocation}; `kind: "skill"`.
 * - `/name [args]` with a known prompt template: its content with the placeholders filled (see
 *   `expandPromptTemplate`: `$1`, `$2`, …, `$@`, `$ARGUMENTS`, arguments parsed like a shell);
 *   `kind: "template"`.
 * - anything else, including an unknown `/name` or `/skill:name` (the CLI handles its own commands before
 *   this is called): the text unchanged, `kind: "plain"`.
 *
 * Contract: never throws or rejects. A skill whose file cannot be read gives the text unchanged with a
 * `warning`.
 */
export async function expandInput(text: string, resources: HarnessResources): Promise<ExpandedInput> {
  const command = parseSlashCommand(text);
  if (command === undefined) return { text, kind: "plain" };
  if (command.name.startsWith(SKILL_COMMAND_PREFIX)) {
    const name = command.name.slice(SKILL_COMMAND_PREFIX.length);
    const skill = resources.skills.find((candidate) => candidate.name === name);
    if (skill === undefined) return { text, kind: "plain" };
    let file: string;
    try {
      file = await readFile(skill.path, "utf8");
    } catch (error) {
      return {
        text,
        kind: "plain",
        warning: `Cannot load the skill "${name}" from ${skill.path}: ${describeFileError(error)}`,
      };
    }
    const body = (await parseFrontmatter(file)).body;
    return { text: formatSkillInvocation(skill, body, command.argumentText), kind: "skill", name };
  }
  const template = resources.promptTemplates.find((candidate) => candidate.name === command.name);
  if (template === undefined) return { text, kind: "plain" };
  return {
    text: expandPromptTemplate(template.content, command.argumentText),
    kind: "template",
    name: template.name,
  };
}
