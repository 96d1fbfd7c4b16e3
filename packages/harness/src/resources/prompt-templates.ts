import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { PromptTemplate } from "../session-resources.js";
import {
  describeFileError,
  listDirectory,
  mergeUserAndProject,
  parseFrontmatter,
  resourceDirectories,
} from "./skills.js";

/**
 * Prompt templates: Markdown files in `<home>/prompts` and `<cwd>/.arbor/prompts` that the user expands
 * with `/name args` (the pi agent's templates, Claude Code's custom commands), with shell-like argument
 * parsing and `$1`, `$@`, `$ARGUMENTS` placeholders.
 */

/**
 * What a template's name may be (its file name without `.md`): a letter or digit, then letters, digits,
 * `.`, `_` and `-`. Other files are skipped with a warning, since `/name` could not invoke them.
 */
export const PROMPT_TEMPLATE_NAME_PATTERN: RegExp = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/** Options of {@link loadPromptTemplates}. */
export interface LoadPromptTemplatesOptions {
  /** The working directory: project templates live in `<cwd>/.arbor/prompts`. */
  cwd: string;
  /** The Arbor home: user templates live in `<home>/prompts`. */
  home: string;
}

/** What {@link loadPromptTemplates} found. */
export interface LoadedPromptTemplates {
  /** Sorted by name. */
  promptTemplates: PromptTemplate[];
  /** Unreadable files, invalid names or frontmatter, overrides. */
  warnings: string[];
}

/**
 * Loads the user's templates (`<home>/prompts/*.md`) and the project's (`<cwd>/.arbor/prompts/*.md`). A
 * project template replaces a user template of the same name, with a warning. When both directories are
 * the same, it is read once, as the user's.
 *
 * Contract: never throws; see {@link loadPromptTemplatesFromDirectory}.
 */
export async function loadPromptTemplates(
  options: LoadPromptTemplatesOptions,
): Promise<LoadedPromptTemplates> {
  const directories = await resourceDirectories(options.home, options.cwd, "prompts");
  const [user, project] = await Promise.all([
    loadPromptTemplatesFromDirectory(directories.user, "user"),
    directories.project === undefined
      ? undefined
      : loadPromptTemplatesFromDirectory(directories.project, "project"),
  ]);
  const merged = mergeUserAndProject(user.promptTemplates, project?.promptTemplates ?? [], "prompt template");
  return {
    promptTemplates: merged.items,
    warnings: [...user.warnings, ...(project?.warnings ?? []), ...merged.warnings],
  };
}

/**
 * Loads the `*.md` files of one directory (not its subdirectories; names starting with `.` skipped) as
 * templates. The optional frontmatter may give a `description`; invalid frontmatter gives a warning and
 * the template is kept without a description. The content is the body with trailing whitespace removed.
 *
 * Contract: never throws; a missing directory gives no templates and no warning.
 */
export async function loadPromptTemplatesFromDirectory(
  directory: string,
  source: PromptTemplate["source"],
): Promise<LoadedPromptTemplates> {
  const listing = await listDirectory(directory);
  const warnings = listing.warning === undefined ? [] : [listing.warning];
  const files = listing.names.filter((name) => name.endsWith(".md") && !name.startsWith("."));
  const results = await Promise.all(files.map((file) => readTemplate(join(directory, file), file, source)));
  const promptTemplates: PromptTemplate[] = [];
  for (const result of results) {
    warnings.push(...result.warnings);
    if (result.template !== undefined) promptTemplates.push(result.template);
  }
  return { promptTemplates, warnings };
}

async function readTemplate(
  path: string,
  file: string,
  source: PromptTemplate["source"],
): Promise<{ template?: PromptTemplate; warnings: string[] }> {
  const name = file.slice(0, -".md".length);
  if (!PROMPT_TEMPLATE_NAME_PATTERN.test(name)) {
    return {
      warnings: [
        `Prompt template ${path} is ignored: "${name}" cannot be typed as a command (use letters, digits, ".", "_" and "-").`,
      ],
    };
  }
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    return { warnings: [`Cannot read prompt template ${path}: ${describeFileError(error)}`] };
  }
  const warnings: string[] = [];
  const frontmatter = await parseFrontmatter(text);
  if (frontmatter.error !== undefined) warnings.push(`Prompt template ${path}: ${frontmatter.error}.`);
  const template: PromptTemplate = { name, content: frontmatter.body.trimEnd(), path, source };
  const description = frontmatter.attributes.description;
  if (typeof description === "string" && description.trim() !== "") template.description = description.trim();
  else if (description !== undefined && description !== null && description !== "") {
    warnings.push(`Prompt template ${path}: its \`description\` is not text; it is ignored.`);
  }
  return { template, warnings };
}

/**
 * Splits the arguments of a command like a shell: words are separated by whitespace, and quotes group
 * words — `"a b"` is one argument, `""` an empty one, `--title="a b"` gives `--title=a b`; inside double
 * quotes `\"` and `\\` stand for `"` and `\`. To keep plain sentences intact, a single quote groups only
 * when it starts a word (`don't` stays one word), and a quote that is never closed is an ordinary character.
 *
 * Contract: pure; never throws.
 */
export function parseCommandArguments(text: string): string[] {
  const args: string[] = [];
  let index = 0;
  while (index < text.length) {
    while (index < text.length && isSpace(text[index]!)) index++;
    if (index >= text.length) break;
    let word = "";
    let quotedWord = false;
    while (index < text.length && !isSpace(text[index]!)) {
      const character = text[index]!;
      const opens = character === '"' || (character === "'" && word === "" && !quotedWord);
      const quoted = opens ? readQuoted(text, index) : undefined;
      if (quoted === undefined) {
        word += character;
        index++;
      } else {
        word += quoted.value;
        quotedWord = true;
        index = quoted.end;
      }
    }
    if (word !== "" || quotedWord) args.push(word);
  }
  return args;
}

function isSpace(character: string): boolean {
  return /\s/.test(character);
}

/** The quoted string starting at `start` and the index after its closing quote; undefined when unclosed. */
function readQuoted(text: string, start: number): { value: string; end: number } | undefined {
  const quote = text[start]!;
  let value = "";
  for (let index = start + 1; index < text.length; index++) {
    const character = text[index]!;
    if (character === quote) return { value, end: index + 1 };
    if (quote === '"' && character === "\\" && (text[index + 1] === '"' || text[index + 1] === "\\")) {
      value += text[index + 1];
      index++;
      continue;
    }
    value += character;
  }
  return undefined;
}

const PLACEHOLDER_PATTERN = /\$(?:([1-9][0-9]*)|(@)|(ARGUMENTS))/g;

/**
 * Fills a template's placeholders in one pass (so text coming from arguments is never expanded again):
 * `$1`, `$2`, … the n-th argument (empty when missing), `$@` all the arguments joined by single spaces,
 * `$ARGUMENTS` the argument text exactly as typed (trimmed). When the template has no placeholder and
 * arguments were given, they are appended after a blank line, so nothing the user typed is lost.
 *
 * @param argumentText what followed `/name`.
 *
 * Contract: pure; never throws.
 */
export function expandPromptTemplate(content: string, argumentText: string): string {
  const rawArguments = argumentText.trim();
  const args = parseCommandArguments(rawArguments);
  let used = false;
  const expanded = content.replace(
    PLACEHOLDER_PATTERN,
    (_match, position: string | undefined, all: string | undefined) => {
      used = true;
      if (position !== undefined) return args[Number(position) - 1] ?? "";
      return all !== undefined ? args.join(" ") : rawArguments;
    },
  );
  if (used || rawArguments === "") return expanded;
  return expanded === "" ? rawArguments : `${expanded}\n\n${rawArguments}`;
}
