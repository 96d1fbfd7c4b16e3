/**
 * The flags of `arbor` as commander parses them, checked for combinations that make no sense, and the mode
 * they select. Plain data and string checks only: this module loads no package, so `arbor --help` stays
 * quick.
 */

import {
  isToolName,
  PERMISSION_MODES,
  THINKING_LEVEL_NAMES,
  TOOL_NAMES,
  type ToolName,
} from "@arbor/app-runtime/names";
import { InvalidArgumentError } from "commander";

/** The output modes of `--mode`. */
export const OUTPUT_MODES = ["text", "json", "rpc"] as const;

/** An output mode. */
export type OutputMode = (typeof OUTPUT_MODES)[number];

/** The root command's options as commander gives them. */
export interface RawCliOptions {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  thinking?: string;
  /** `--permissions <mode>` (checked). */
  permissions?: string;
  /** `--tools a,b` (parsed) or `false` for `--no-tools`. */
  tools?: ToolName[] | false;
  continue?: boolean;
  /** `-r <id>`, or `true` for `-r` alone. */
  resume?: string | true;
  /** `--session <id>`, or `false` for `--no-session`. */
  session?: string | false;
  fork?: string;
  store?: string;
  record?: string;
  replay?: string;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  mode?: OutputMode;
  /** `-p <prompt>`, or `true` for `-p` alone (the prompt comes from stdin). */
  print?: string | true;
  /** `--extension <path>`, repeatable. */
  extension?: string[];
  /** `false` for `--no-extensions`. */
  extensions?: boolean;
}

/** Commander collector of a repeatable option. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Commander parser of `--tools read,bash`. */
export function parseToolList(value: string): ToolName[] {
  const names = value
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  const unknown = names.filter((name) => !isToolName(name));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown tool ${unknown.map((name) => `"${name}"`).join(", ")}; the tools are ${TOOL_NAMES.join(", ")}, and MCP tools as mcp__<server>__<tool> (or mcp__<server> for all of a server's).`,
    );
  }
  return [...new Set(names)] as ToolName[];
}

/** Commander parser of `--thinking`. */
export function parseThinkingLevel(value: string): string {
  if (!(THINKING_LEVEL_NAMES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(`expected one of ${THINKING_LEVEL_NAMES.join(", ")}.`);
  }
  return value;
}

/** Commander parser of `--permissions`. */
export function parsePermissionMode(value: string): string {
  if (!(PERMISSION_MODES as readonly string[]).includes(value)) {
    throw new InvalidArgumentError(
      `expected one of ${PERMISSION_MODES.join(", ")} (see docs/permissions.md).`,
    );
  }
  return value;
}

/**
 * The problems of a combination of flags, as messages (empty when it is fine): at most one of `-c`, `-r`,
 * `--session`, `--fork`; `--no-session` only with `--fork`; `--record` or `--replay`, not both; no prompt
 * flag in rpc mode.
 */
export function flagConflicts(options: RawCliOptions): string[] {
  const problems: string[] = [];
  const chosen = [
    options.continue === true ? "-c/--continue" : undefined,
    options.resume !== undefined ? "-r/--resume" : undefined,
    typeof options.session === "string" ? "--session" : undefined,
    options.fork !== undefined ? "--fork" : undefined,
  ].filter((flag): flag is string => flag !== undefined);
  if (chosen.length > 1) problems.push(`${chosen.join(" and ")} each choose the session; give one of them.`);
  if (options.session === false && chosen.some((flag) => flag !== "--fork")) {
    problems.push(
      `--no-session starts a session that is not saved; it cannot be combined with ${chosen.join(", ")}.`,
    );
  }
  if (options.record !== undefined && options.replay !== undefined) {
    problems.push(
      "--record and --replay cannot be combined: record against a real provider, replay without one.",
    );
  }
  if (options.mode === "rpc" && options.print !== undefined) {
    problems.push("--mode rpc reads commands on stdin; send a prompt command instead of -p.");
  }
  return problems;
}
