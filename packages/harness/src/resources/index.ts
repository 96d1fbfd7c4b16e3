/**
 * @arbor/harness/resources — the files a coding harness reads, kept out of the harness's root entry: the
 * `AGENTS.md` / `CLAUDE.md` context files, skills (`SKILL.md`), prompt templates, the expansion of
 * `/skill:name` and `/template` input, and Arbor's coding system prompt. Give a harness
 * `resources: createResourceLoader({ home })` and `systemPrompt: createSystemPromptBuilder()`; the data types
 * (`HarnessResources`, `Skill`, …) come from `@arbor/harness`. See `docs/harness-resources.md`.
 */

export {
  CONTEXT_FILE_NAMES,
  contextFileDirectories,
  DEFAULT_MAX_CONTEXT_FILE_BYTES,
  type LoadContextFilesOptions,
  type LoadedContextFiles,
  loadContextFiles,
} from "./context-files.js";
export {
  expandInput,
  formatSkillInvocation,
  parseSlashCommand,
  SKILL_COMMAND_PREFIX,
  type SlashCommand,
} from "./input-expansion.js";
export {
  expandPromptTemplate,
  type LoadedPromptTemplates,
  type LoadPromptTemplatesOptions,
  loadPromptTemplates,
  PROMPT_TEMPLATE_NAME_PATTERN,
  parseCommandArguments,
} from "./prompt-templates.js";
export {
  createResourceLoader,
  type LoadHarnessResourcesOptions,
  loadHarnessResources,
  type ResourceLoaderOptions,
} from "./resource-loader.js";
export {
  isValidSkillName,
  type LoadedSkills,
  type LoadSkillsOptions,
  loadSkills,
  MAX_SKILL_DESCRIPTION_LENGTH,
  MAX_SKILL_NAME_LENGTH,
  parseFrontmatter,
  SKILL_FILE_NAME,
} from "./skills.js";
export {
  buildSystemPrompt,
  createSystemPromptBuilder,
  defaultGuidelines,
  formatPromptDate,
  formatSkillList,
  formatToolList,
  ROLE_STATEMENT,
  type SystemPromptCustomization,
  type SystemPromptOptions,
} from "./system-prompt.js";
