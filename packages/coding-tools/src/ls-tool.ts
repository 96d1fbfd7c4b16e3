import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { type AgentTool, type Static, Type } from "@arbor/agent-core";
import { checkCwd, checkPositiveInteger, displayPath, resolveToolPath } from "./paths.js";
import { describeMissingPath } from "./similar-paths.js";
import { acceptPathAliases, describeFileError, errorCode, errorResult, textResult } from "./tool-support.js";
import { byteLength, DEFAULT_MAX_BYTES, formatBytes } from "./truncate.js";

/** Default cap on the entries `ls` lists. */
export const DEFAULT_LS_LIMIT = 500;

/** Options of {@link createLsTool}. */
export interface LsToolOptions {
  /** Entries listed when the call gives no limit (default 500). */
  defaultLimit?: number;
  /** Most UTF-8 bytes of output (default 50 KB). */
  maxBytes?: number;
}

const lsParameters = Type.Object({
  path: Type.Optional(Type.String({ description: "Directory to list (default: the working directory)" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Maximum number of entries (default 500)" })),
});

/** Arguments of the `ls` tool. */
export type LsToolArguments = Static<typeof lsParameters>;

/** `details` of an `ls` result. */
export interface LsToolDetails {
  /** The directory as given, shown relative to the working directory when inside it. */
  path: string;
  /** Entries in the directory. */
  totalEntries: number;
  /** Entries listed. */
  shownEntries: number;
}

/**
 * The `ls` tool: the entries of one directory, sorted by name (case-insensitively), dotfiles included,
 * directories (and links to directories) suffixed with `/`; at most `limit` entries, with a hint when
 * cut.
 */
export function createLsTool(
  cwd: string,
  options: LsToolOptions = {},
): AgentTool<typeof lsParameters, LsToolDetails> {
  const root = checkCwd(cwd);
  const defaultLimit = checkPositiveInteger("ls.defaultLimit", options.defaultLimit, DEFAULT_LS_LIMIT);
  const maxBytes = checkPositiveInteger("ls.maxBytes", options.maxBytes, DEFAULT_MAX_BYTES);
  return {
    name: "ls",
    label: "List",
    description:
      `List a directory: names sorted alphabetically, directories end with /, dotfiles included ` +
      `(at most ${defaultLimit} entries unless limit is given).`,
    parameters: lsParameters,
    prepareArguments: acceptPathAliases,
    async execute(args, { signal }) {
      const absolute = resolveToolPath(root, args.path ?? ".");
      const shown = displayPath(root, absolute);
      let entries: Dirent[];
      try {
        const stats = await stat(absolute);
        if (!stats.isDirectory())
          return errorResult(`${shown} is a file, not a directory. Use read to view it.`);
        entries = await readdir(absolute, { withFileTypes: true });
      } catch (error) {
        if (errorCode(error) !== "ENOENT") return errorResult(describeFileError(error, shown));
        const hint = await describeMissingPath(root, absolute);
        return errorResult(`Directory not found: ${shown}.${hint === "" ? "" : ` ${hint}`}`);
      }
      signal.throwIfAborted();
      entries.sort((left, right) => compareNames(left.name, right.name));
      const names = entries.map((entry) => entry.name);
      const limit = args.limit ?? defaultLimit;
      const listed: string[] = [];
      let bytes = 0;
      let cutByBytes = false;
      for (const dirent of entries.slice(0, limit)) {
        const entry = (await isDirectory(absolute, dirent)) ? `${dirent.name}/` : dirent.name;
        const size = byteLength(entry) + 1;
        if (bytes + size > maxBytes) {
          cutByBytes = true;
          break;
        }
        listed.push(entry);
        bytes += size;
      }
      const details = { path: shown, totalEntries: names.length, shownEntries: listed.length };
      if (names.length === 0) return textResult(`(${shown} is empty)`, details);
      let text = listed.join("\n");
      if (listed.length < names.length) {
        const reason = cutByBytes ? `the ${formatBytes(maxBytes)} output limit` : `limit=${limit}`;
        text +=
          `\n\n[Showing ${listed.length} of ${names.length} entries (${reason}). ` +
          (cutByBytes
            ? "Use find with a pattern to narrow the listing.]"
            : `Use limit=${Math.min(names.length, limit * 2)} for more, or find with a pattern.]`);
      }
      return textResult(text, details);
    },
  };
}

/** Case-insensitive order, ties broken by code point so the order is total. */
function compareNames(left: string, right: string): number {
  const lowerLeft = left.toLowerCase();
  const lowerRight = right.toLowerCase();
  if (lowerLeft !== lowerRight) return lowerLeft < lowerRight ? -1 : 1;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** A directory, or a symbolic link to one. */
async function isDirectory(directory: string, entry: Dirent): Promise<boolean> {
  if (entry.isDirectory()) return true;
  if (!entry.isSymbolicLink()) return false;
  try {
    return (await stat(join(directory, entry.name))).isDirectory();
  } catch {
    return false;
  }
}
