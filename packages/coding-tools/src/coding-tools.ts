import type { AgentTool, TSchema } from "@arbor/agent-core";
import { type BashToolOptions, createBashTool } from "./bash-tool.js";
import { createEditTool, type EditToolOptions } from "./edit-tool.js";
import { InvalidToolOptionError } from "./errors.js";
import type { FileMutationQueue } from "./file-mutation-queue.js";
import { createFindTool, type FindToolOptions } from "./find-tool.js";
import { createGrepTool, type GrepToolOptions } from "./grep-tool.js";
import { createLsTool, type LsToolOptions } from "./ls-tool.js";
import { checkCwd } from "./paths.js";
import { createReadTool, type ReadToolOptions } from "./read-tool.js";
import { createWriteTool, type WriteToolOptions } from "./write-tool.js";

/** The names of the coding tools, in the order {@link createCodingTools} returns them. */
export const CODING_TOOL_NAMES = ["read", "write", "edit", "bash", "ls", "grep", "find"] as const;

/** The name of one coding tool. */
export type CodingToolName = (typeof CODING_TOOL_NAMES)[number];

/** Options of {@link createCodingTools}: the working directory, which tools, and each tool's options. */
export interface CodingToolsOptions {
  /** The directory relative paths resolve against and commands run in. */
  cwd: string;
  /** Which tools to create (an allow list; default all, in {@link CODING_TOOL_NAMES} order). */
  tools?: readonly CodingToolName[];
  /** The queue `write` and `edit` share (default: the process-wide `defaultFileMutationQueue`). */
  fileQueue?: FileMutationQueue;
  read?: ReadToolOptions;
  write?: Omit<WriteToolOptions, "fileQueue">;
  edit?: Omit<EditToolOptions, "fileQueue">;
  bash?: BashToolOptions;
  ls?: LsToolOptions;
  grep?: GrepToolOptions;
  find?: FindToolOptions;
}

/**
 * Creates the coding tools for one working directory, ready for `new Agent({ tools })`: `read`, `write`,
 * `edit`, `bash`, `ls`, `grep` and `find` (or the ones named in `tools`). `write` and `edit` share one
 * file-mutation queue, so parallel calls on one file apply one after the other.
 *
 * Throws `InvalidToolOptionError` for a missing `cwd`, an unknown tool name or an invalid limit.
 */
export function createCodingTools(options: CodingToolsOptions): AgentTool<TSchema>[] {
  const cwd = checkCwd(options?.cwd);
  const wanted = new Set<string>(options.tools ?? CODING_TOOL_NAMES);
  for (const name of wanted) {
    if (!(CODING_TOOL_NAMES as readonly string[]).includes(name)) {
      throw new InvalidToolOptionError(
        "tools",
        `unknown tool "${name}"; the coding tools are ${CODING_TOOL_NAMES.join(", ")}.`,
      );
    }
  }
  const queue = options.fileQueue === undefined ? {} : { fileQueue: options.fileQueue };
  const factories: Record<CodingToolName, () => AgentTool<TSchema>> = {
    read: () => createReadTool(cwd, options.read),
    write: () => createWriteTool(cwd, { ...options.write, ...queue }),
    edit: () => createEditTool(cwd, { ...options.edit, ...queue }),
    bash: () => createBashTool(cwd, options.bash),
    ls: () => createLsTool(cwd, options.ls),
    grep: () => createGrepTool(cwd, options.grep),
    find: () => createFindTool(cwd, options.find),
  };
  return CODING_TOOL_NAMES.filter((name) => wanted.has(name)).map((name) => factories[name]());
}
