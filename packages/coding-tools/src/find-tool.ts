import { stat } from "node:fs/promises";
import { isAbsolute, join, sep } from "node:path";
import { type AgentTool, type Static, Type } from "@arbor/agent-core";
import { loadGlob } from "./lazy-libraries.js";
import { checkCwd, checkPositiveInteger, displayPath, resolveToolPath } from "./paths.js";
import { listProjectFiles } from "./project-files.js";
import { describeMissingPath } from "./similar-paths.js";
import { describeFileError, errorCode, errorResult, textResult } from "./tool-support.js";
import { byteLength, DEFAULT_MAX_BYTES, formatBytes } from "./truncate.js";

/** Default cap on the paths `find` returns. */
export const DEFAULT_FIND_LIMIT = 1000;

/** Options of {@link createFindTool}. */
export interface FindToolOptions {
  /** Paths returned when the call gives no limit (default 1,000). */
  defaultLimit?: number;
  /** Most UTF-8 bytes of output (default 50 KB). */
  maxBytes?: number;
  /** Honour `.gitignore` files (default `true`). */
  respectGitignore?: boolean;
}

const findParameters = Type.Object({
  pattern: Type.String({
    description:
      "Glob pattern relative to path, e.g. **/*.ts, src/**/*.test.{js,ts}, *.json (top level only)",
  }),
  path: Type.Optional(Type.String({ description: "Directory to search (default: the working directory)" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Maximum number of paths (default 1000)" })),
});

/** Arguments of the `find` tool. */
export type FindToolArguments = Static<typeof findParameters>;

/** `details` of a `find` result. */
export interface FindToolDetails {
  /** Files matching (counted up to 100,000). */
  totalMatches: number;
  /** Paths returned. */
  shownMatches: number;
}

/**
 * The `find` tool: files whose path (relative to `path`) matches a glob, sorted, as paths relative to
 * the working directory. Uses tinyglobby and honours `.gitignore` (nested files too); `.git` and
 * `node_modules` are skipped unless the path or pattern points into them; dotfiles are included.
 */
export function createFindTool(
  cwd: string,
  options: FindToolOptions = {},
): AgentTool<typeof findParameters, FindToolDetails> {
  const root = checkCwd(cwd);
  const defaultLimit = checkPositiveInteger("find.defaultLimit", options.defaultLimit, DEFAULT_FIND_LIMIT);
  const maxBytes = checkPositiveInteger("find.maxBytes", options.maxBytes, DEFAULT_MAX_BYTES);
  return {
    name: "find",
    label: "Find",
    description:
      "Find files by glob pattern (e.g. **/*.ts; *.ts matches the top level only). Honours .gitignore; " +
      `skips .git and node_modules. Returns sorted paths, at most ${defaultLimit} unless limit is given.`,
    parameters: findParameters,
    async execute(args, { signal }) {
      let searchRoot = resolveToolPath(root, args.path ?? ".");
      let pattern = args.pattern.trim();
      if (isAbsolute(pattern))
        ({ base: searchRoot, pattern } = splitAbsolutePattern(pattern, await loadGlob()));
      const shownRoot = displayPath(root, searchRoot);
      try {
        if (!(await stat(searchRoot)).isDirectory()) {
          return errorResult(`${shownRoot} is a file, not a directory; give find a directory to search.`);
        }
      } catch (error) {
        if (errorCode(error) !== "ENOENT") return errorResult(describeFileError(error, shownRoot));
        const hint = await describeMissingPath(root, searchRoot);
        return errorResult(`Directory not found: ${shownRoot}.${hint === "" ? "" : ` ${hint}`}`);
      }
      const { files, capped } = await listProjectFiles({
        root: searchRoot,
        patterns: [pattern],
        includeNodeModules:
          searchRoot.split(sep).includes("node_modules") || pattern.includes("node_modules"),
        respectGitignore: options.respectGitignore ?? true,
        signal,
      });
      signal.throwIfAborted();
      if (files.length === 0) {
        const recursiveHint =
          !pattern.includes("/") && !pattern.startsWith("**")
            ? ` Patterns match from ${shownRoot}; use **/${pattern} to search subdirectories too.`
            : "";
        return textResult(`No files match ${pattern} in ${shownRoot}.${recursiveHint}`, {
          totalMatches: 0,
          shownMatches: 0,
        });
      }
      const limit = args.limit ?? defaultLimit;
      const shown: string[] = [];
      let bytes = 0;
      let cutByBytes = false;
      for (const file of files.slice(0, limit)) {
        const line = displayPath(root, join(searchRoot, file));
        const size = byteLength(line) + 1;
        if (bytes + size > maxBytes) {
          cutByBytes = true;
          break;
        }
        shown.push(line);
        bytes += size;
      }
      let text = shown.join("\n");
      if (shown.length < files.length) {
        const total = capped ? `more than ${files.length}` : `${files.length}`;
        text += cutByBytes
          ? `\n\n[Showing ${shown.length} of ${total} files (${formatBytes(maxBytes)} output limit). Use a more specific pattern or path.]`
          : `\n\n[Showing ${shown.length} of ${total} files. Use limit=${limit * 2} for more, or a more specific pattern or path.]`;
      }
      return textResult(text, { totalMatches: files.length, shownMatches: shown.length });
    },
  };
}

/** `/a/b/**\/*.ts` → base `/a/b`, pattern `**\/*.ts`: the static directories lead, the glob follows. */
function splitAbsolutePattern(
  absolute: string,
  glob: typeof import("tinyglobby"),
): { base: string; pattern: string } {
  const segments = absolute.split("/");
  let index = 0;
  while (
    index < segments.length - 1 &&
    (segments[index] === "" || !glob.isDynamicPattern(segments[index]!))
  ) {
    index++;
  }
  const base = segments.slice(0, index).join("/") || "/";
  return { base, pattern: segments.slice(index).join("/") };
}
