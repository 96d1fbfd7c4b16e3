/**
 * `arbor completion bash|zsh|fish`: a shell completion script, generated from the program's own commands and
 * flags (so it never falls behind them). Session ids complete from `arbor sessions list --all` where a
 * command takes a session (`-r`, `--fork`, `sessions show|export|delete`).
 */
import { THINKING_LEVEL_NAMES, TOOL_NAMES } from "@arbor/app-runtime/names";
import { Argument, type Command, type Option } from "commander";
import type { CliIo } from "../io.js";

/** The shells a script is written for. */
const SHELLS = ["bash", "zsh", "fish"] as const;

/** One command level: its subcommands and flags. */
interface CommandSpec {
  path: string[];
  description: string;
  subcommands: CommandSpec[];
  options: { names: string[]; takesValue: boolean; choices: readonly string[]; description: string }[];
  /** Its arguments are sessions. */
  takesSession: boolean;
  /** The values its first argument takes, when it names them. */
  argumentChoices: readonly string[];
}

const SESSION_COMMANDS = new Set(["sessions show", "sessions export", "sessions delete", "sessions diff"]);
const SESSION_FLAGS = new Set(["-r", "--resume", "--fork", "--session"]);
/** Values of flags that check them with a parser of their own rather than commander's choices. */
const FLAG_VALUES: Readonly<Record<string, readonly string[]>> = {
  "--thinking": THINKING_LEVEL_NAMES,
  "--tools": TOOL_NAMES,
};
/** Flags whose value is a file name. */
const FILE_FLAGS = new Set(["--extension", "--record", "--replay", "-o", "--output", "--cwd"]);

function specOf(command: Command, path: string[]): CommandSpec {
  const options = (command.options as readonly Option[])
    .filter((option) => !option.hidden)
    .map((option) => ({
      names: [option.short, option.long].filter((name): name is string => typeof name === "string"),
      takesValue: option.required || option.optional,
      choices: option.argChoices ?? FLAG_VALUES[option.long ?? ""] ?? [],
      description: option.description,
    }));
  options.push({ names: ["-h", "--help"], takesValue: false, choices: [], description: "show this help" });
  return {
    path,
    description: command.description(),
    subcommands: command.commands.map((sub) => specOf(sub, [...path, sub.name()])),
    options,
    takesSession: SESSION_COMMANDS.has(path.join(" ")),
    argumentChoices: command.registeredArguments[0]?.argChoices ?? [],
  };
}

function allSpecs(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.subcommands.flatMap(allSpecs)];
}

const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const SESSION_IDS = "arbor sessions list --all 2>/dev/null | awk 'NR>1{print $1}'";

function bashScript(root: CommandSpec): string {
  const levels = allSpecs(root).map((spec) => {
    const key = spec.path.join(" ");
    const words = [
      ...spec.subcommands.map((sub) => sub.path.at(-1)),
      ...spec.options.flatMap((o) => o.names),
    ];
    const values = spec.options
      .filter((option) => option.takesValue)
      .map((option) => {
        const names = option.names.join("|");
        const flag = option.names.at(-1) ?? "";
        const reply = SESSION_FLAGS.has(flag)
          ? `COMPREPLY=($(compgen -W "$(${SESSION_IDS})" -- "$cur"))`
          : option.choices.length > 0
            ? `COMPREPLY=($(compgen -W ${quote(option.choices.join(" "))} -- "$cur"))`
            : FILE_FLAGS.has(flag)
              ? `COMPREPLY=($(compgen -f -- "$cur"))`
              : "COMPREPLY=()";
        return `        ${names}) ${reply}; return ;;`;
      });
    const positional = spec.takesSession
      ? `      COMPREPLY=($(compgen -W "$(${SESSION_IDS})" -- "$cur"))`
      : spec.argumentChoices.length > 0
        ? `      COMPREPLY=($(compgen -W ${quote(spec.argumentChoices.join(" "))} -- "$cur"))`
        : spec.subcommands.length > 0
          ? `      COMPREPLY=($(compgen -W ${quote(spec.subcommands.map((sub) => sub.path.at(-1)).join(" "))} -- "$cur"))`
          : `      COMPREPLY=($(compgen -f -- "$cur"))`;
    return [
      `    ${quote(key)})`,
      `      case "$prev" in`,
      ...values,
      "      esac",
      `      if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W ${quote(words.join(" "))} -- "$cur")); return; fi`,
      positional,
      "      ;;",
    ].join("\n");
  });
  const subcommands = allSpecs(root)
    .filter((spec) => spec.subcommands.length > 0)
    .map(
      (spec) =>
        `    ${quote(spec.path.join(" "))}) subs=${quote(spec.subcommands.map((s) => s.path.at(-1)).join(" "))} ;;`,
    );
  return `# arbor completion for bash: eval "$(arbor completion bash)" (e.g. in ~/.bashrc)
_arbor() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local path="arbor" word subs i
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    [[ "$word" == -* ]] && continue
    case "$path" in
${subcommands.join("\n")}
      *) subs="" ;;
    esac
    [[ " $subs " == *" $word "* ]] && path="$path $word"
  done
  case "$path" in
${levels.join("\n")}
  esac
}
complete -o default -F _arbor arbor
`;
}

function zshScript(root: CommandSpec): string {
  return `# arbor completion for zsh: eval "$(arbor completion zsh)" (e.g. in ~/.zshrc)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashScript(root).split("\n").slice(1).join("\n")}`;
}

function fishScript(root: CommandSpec): string {
  const lines = [
    "# arbor completion for fish: arbor completion fish > ~/.config/fish/completions/arbor.fish",
  ];
  lines.push("complete -c arbor -f");
  for (const spec of allSpecs(root)) {
    const depth = spec.path.length - 1;
    const parents = spec.path.slice(1);
    const condition =
      depth === 0
        ? "__fish_use_subcommand"
        : `__fish_seen_subcommand_from ${parents.at(-1)}${depth > 1 ? `; and __fish_seen_subcommand_from ${parents[0]}` : ""}`;
    for (const sub of spec.subcommands) {
      lines.push(
        `complete -c arbor -n ${quote(condition)} -a ${quote(sub.path.at(-1) ?? "")} -d ${quote(sub.description)}`,
      );
    }
    for (const option of spec.options) {
      const names = option.names
        .map((name) => (name.startsWith("--") ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`))
        .join(" ");
      const flag = option.names.at(-1) ?? "";
      const value = !option.takesValue
        ? ""
        : SESSION_FLAGS.has(flag)
          ? ` -x -a ${quote(`(${SESSION_IDS})`)}`
          : option.choices.length > 0
            ? ` -x -a ${quote(option.choices.join(" "))}`
            : FILE_FLAGS.has(flag)
              ? " -r -F"
              : " -x";
      lines.push(`complete -c arbor -n ${quote(condition)} ${names}${value} -d ${quote(option.description)}`);
    }
    if (spec.takesSession)
      lines.push(`complete -c arbor -n ${quote(condition)} -a ${quote(`(${SESSION_IDS})`)}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * The completion script of `shell` for `program`.
 *
 * Contract: pure; throws for a shell it does not know (the command checks first).
 */
export function completionScript(program: Command, shell: (typeof SHELLS)[number]): string {
  const root = specOf(program, ["arbor"]);
  if (shell === "bash") return bashScript(root);
  if (shell === "zsh") return zshScript(root);
  return fishScript(root);
}

/** Adds `arbor completion <shell>`. */
export function addCompletionCommand(program: Command, io: CliIo, exit: (code: number) => void): void {
  program
    .command("completion")
    .description("print a shell completion script: bash, zsh or fish")
    .addArgument(new Argument("<shell>", "the shell").choices(SHELLS))
    .addHelpText(
      "after",
      '\nSet up: eval "$(arbor completion bash)" in ~/.bashrc (zsh: ~/.zshrc);\nfish: arbor completion fish > ~/.config/fish/completions/arbor.fish',
    )
    .exitOverride()
    .action((shell: (typeof SHELLS)[number]) => {
      io.stdout.write(completionScript(program, shell));
      exit(0);
    });
}
