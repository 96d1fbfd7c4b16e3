/**
 * The slash commands of the interactive mode and their dispatch: the CLI's own commands run here;
 * `/skill:name` and prompt templates (`/name`) known to the session pass through to `session.prompt()`,
 * which expands them; anything else gets a notice with the nearest command.
 */
import { editDistance } from "@arbor/coding-tools";
import { SKILL_COMMAND_PREFIX } from "@arbor/harness/resources";
import { errorText } from "@arbor/session-view";
import { parseCommandLine } from "../command-line.js";
import type { CommandHost, Picker, SlashCommandSpec } from "./command-types.js";
import { contextCommand, costCommand, hotkeysCommand, KEY_HELP } from "./info-commands.js";
import { compactCommand, modelCommand, thinkingCommand, toolsCommand } from "./model-commands.js";
import {
  exportCommand,
  forkCommand,
  labelCommand,
  nameCommand,
  newCommand,
  resumeCommand,
  sessionCommand,
  treeCommand,
} from "./session-commands.js";

const helpCommand: SlashCommandSpec = {
  name: "help",
  description: "list the commands and keys",
  needsIdle: false,
  run(_argumentText, host) {
    const width = Math.max(...SLASH_COMMANDS.map((command) => usageOf(command).length));
    const lines = ["Commands:"];
    for (const command of SLASH_COMMANDS)
      lines.push(`  ${usageOf(command).padEnd(width)}  ${command.description}`);
    for (const command of host.runtime.extensions.commandList()) {
      const usage = `/${command.name}${command.arguments ? ` ${command.arguments}` : ""}`;
      lines.push(`  ${usage.padEnd(width)}  ${command.description} (extension)`);
    }
    const { skills, promptTemplates } = host.session().resources;
    if (skills.length > 0) {
      lines.push(`  /skill:<name> [args]  load a skill: ${skills.map((skill) => skill.name).join(", ")}`);
    }
    if (promptTemplates.length > 0) {
      lines.push(
        `  /<template> [args]    prompt templates: ${promptTemplates.map((template) => `/${template.name}`).join(", ")}`,
      );
    }
    lines.push("Keys:", ...KEY_HELP.map((line) => `  ${line}`));
    host.store.notice("info", lines.join("\n"));
  },
};

const quitCommand: SlashCommandSpec = {
  name: "quit",
  description: "leave (stops a run in flight)",
  needsIdle: false,
  run(_argumentText, host) {
    host.quit();
  },
};

/** Every command, in the order /help lists them. */
export const SLASH_COMMANDS: readonly SlashCommandSpec[] = [
  compactCommand,
  treeCommand,
  forkCommand,
  resumeCommand,
  newCommand,
  labelCommand,
  nameCommand,
  modelCommand,
  thinkingCommand,
  toolsCommand,
  exportCommand,
  sessionCommand,
  contextCommand,
  costCommand,
  hotkeysCommand,
  helpCommand,
  quitCommand,
];

const ALIASES: Readonly<Record<string, string>> = { exit: "quit", q: "quit", "?": "help", clear: "new" };

function usageOf(command: SlashCommandSpec): string {
  return `/${command.name}${command.arguments ? ` ${command.arguments}` : ""}`;
}

/** Every name the user may type after `/`: commands, `skill:<name>` and templates. */
export function commandNames(host: Pick<CommandHost, "session">): string[] {
  const { skills, promptTemplates } = host.session().resources;
  return [
    ...SLASH_COMMANDS.map((command) => command.name),
    ...skills.map((skill) => `${SKILL_COMMAND_PREFIX}${skill.name}`),
    ...promptTemplates.map((template) => template.name),
  ];
}

/** The known names closest to a mistyped one (a shared prefix, or at most two edits away). */
export function suggestCommands(name: string, known: readonly string[]): string[] {
  const lower = name.toLowerCase();
  const scored = known
    .map((candidate) => ({
      candidate,
      score:
        candidate.startsWith(lower) || lower.startsWith(candidate) ? 0 : editDistance(lower, candidate, 2),
    }))
    .filter((entry) => entry.score <= 2)
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate));
  return scored.slice(0, 3).map((entry) => entry.candidate);
}

/**
 * The built-in slash command a line names (`/name args`, aliases resolved), or undefined: an extension's
 * command, a template, a skill, an unknown name or no command at all.
 *
 * Contract: pure.
 */
export function builtInCommandName(text: string): string | undefined {
  const parsed = parseCommandLine(text);
  if (parsed === undefined) return undefined;
  const name = ALIASES[parsed.name] ?? parsed.name;
  return SLASH_COMMANDS.some((command) => command.name === name) ? name : undefined;
}

/**
 * Runs a line that starts with `/`. Returns false when the line is not a command of any kind (the caller
 * sends it as a message), true when it was handled — run, passed to `session.prompt()` as a skill or
 * template, or answered with a notice.
 *
 * Contract: never throws or rejects: a command's failure becomes an error notice.
 */
export async function runSlashCommand(text: string, host: CommandHost): Promise<boolean> {
  const parsed = parseCommandLine(text);
  if (parsed === undefined) return false;
  const name = ALIASES[parsed.name] ?? parsed.name;
  const command = SLASH_COMMANDS.find((candidate) => candidate.name === name);
  const session = host.session();
  if (command !== undefined) {
    if (command.needsIdle && session.isBusy) {
      host.store.notice(
        "warning",
        `/${command.name} waits for the agent: press Esc to stop the run, or wait for it`,
      );
      return true;
    }
    try {
      await command.run(parsed.argumentText, host);
    } catch (error) {
      host.store.notice("error", `/${command.name}: ${errorText(error)}`);
    }
    return true;
  }
  if (host.runtime.extensions.hasCommand(name)) {
    // An extension's command: its failure is reported by the runtime and shown as a notice.
    await host.runtime.extensions.runCommand(name, parsed.argumentText);
    return true;
  }
  const { skills, promptTemplates } = session.resources;
  const isSkill = name.startsWith(SKILL_COMMAND_PREFIX);
  const known = isSkill
    ? skills.some((skill) => `${SKILL_COMMAND_PREFIX}${skill.name}` === name)
    : promptTemplates.some((template) => template.name === name);
  if (known) {
    if (session.isBusy) {
      host.store.notice(
        "warning",
        `/${name} starts a new prompt: wait for the run to end (or press Esc), then send it`,
      );
      host.setEditorText(text);
      return true;
    }
    host.prompt(text.trim());
    return true;
  }
  if (isSkill) {
    const available = skills.map((skill) => skill.name).join(", ");
    host.store.notice(
      "error",
      `no skill named "${name.slice(SKILL_COMMAND_PREFIX.length)}"${available === "" ? " (no skills are installed: ~/.arbor/skills, .arbor/skills)" : `; skills: ${available}`}`,
    );
    return true;
  }
  const suggestions = suggestCommands(name, commandNames(host));
  const hint =
    suggestions.length > 0 ? ` Did you mean ${suggestions.map((item) => `/${item}`).join(", ")}?` : "";
  host.store.notice("error", `unknown command /${name}.${hint} /help lists the commands.`);
  return true;
}

/**
 * Completes a partly typed command name (`/comp` → `/compact `): the one match, or the matches' common
 * prefix; undefined when nothing matches or the text is not a bare `/name`.
 *
 * Contract: pure over the session's resources.
 */
export function completeCommand(
  text: string,
  host: Pick<CommandHost, "session">,
): { text: string; matches: string[] } | undefined {
  const match = /^\/(\S*)$/.exec(text);
  if (match === null) return undefined;
  const typed = match[1]!;
  const matches = commandNames(host).filter((name) => name.startsWith(typed));
  if (matches.length === 0) return undefined;
  if (matches.length === 1) return { text: `/${matches[0]} `, matches };
  let prefix = matches[0]!;
  for (const candidate of matches) while (!candidate.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return { text: `/${prefix}`, matches };
}

/**
 * The command menu (typing `/` in an empty editor): every command, skill and prompt template with what it
 * does; choosing one puts `/name ` into the editor.
 *
 * Contract: pure over the session's resources; the picker filters as the user types.
 */
export function commandMenu(host: Pick<CommandHost, "session" | "setEditorText">): Picker {
  const { skills, promptTemplates } = host.session().resources;
  const items = [
    ...SLASH_COMMANDS.map((command) => ({
      key: command.name,
      label: usageOf(command),
      detail: command.description,
    })),
    ...skills.map((skill) => ({
      key: `${SKILL_COMMAND_PREFIX}${skill.name}`,
      label: `/${SKILL_COMMAND_PREFIX}${skill.name}`,
      detail: "skill",
    })),
    ...promptTemplates.map((template) => ({
      key: template.name,
      label: `/${template.name}`,
      detail: "prompt template",
    })),
  ];
  return {
    title: "Commands",
    items,
    filterable: true,
    hint: "type to filter · ↑↓ move · Enter choose · Esc keep typing",
    onSelect: (name) => host.setEditorText(`/${name} `),
  };
}
