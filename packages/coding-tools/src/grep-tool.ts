import { readFileSync } from "node:fs";
import { stat } from "node:fs/promises";
import { join, sep } from "node:path";
import { type AgentTool, type Static, Type } from "@arbor/agent-core";
import { looksBinary, SNIFF_BYTES } from "./file-content.js";
import { formatGrepOutput, type GrepFileMatches, searchFile } from "./grep-search.js";
import { checkCwd, checkPositiveInteger, displayPath, resolveToolPath } from "./paths.js";
import { listProjectFiles } from "./project-files.js";
import { describeMissingPath } from "./similar-paths.js";
import { describeFileError, errorCode, errorResult, textResult } from "./tool-support.js";
import { DEFAULT_MAX_BYTES, formatBytes } from "./truncate.js";

/** Default cap on the matching lines `grep` returns. */
export const DEFAULT_GREP_LIMIT = 100;

/** Default cap on the characters of one line in `grep` output. */
export const DEFAULT_GREP_LINE_LENGTH = 500;

/** Options of {@link createGrepTool}. */
export interface GrepToolOptions {
  /** Matching lines returned when the call gives no limit (default 100). */
  defaultLimit?: number;
  /** Longer lines are cut around the match (default 500 characters). */
  maxLineLength?: number;
  /** Most UTF-8 bytes of output (default 50 KB). */
  maxBytes?: number;
  /** Honour `.gitignore` files (default `true`). */
  respectGitignore?: boolean;
}

const grepParameters = Type.Object({
  pattern: Type.String({
    description: "Regular expression (JavaScript syntax), or plain text with literal: true",
  }),
  path: Type.Optional(
    Type.String({ description: "Directory or file to search (default: the working directory)" }),
  ),
  glob: Type.Optional(
    Type.String({ description: "Only search files matching this glob, e.g. *.ts or src/**/*.{js,jsx}" }),
  ),
  ignoreCase: Type.Optional(Type.Boolean({ description: "Case-insensitive search" })),
  literal: Type.Optional(
    Type.Boolean({ description: "Treat pattern as plain text, not a regular expression" }),
  ),
  context: Type.Optional(
    Type.Integer({ minimum: 0, description: "Lines of context before and after each match" }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, description: "Maximum number of matching lines (default 100)" }),
  ),
});

/** Arguments of the `grep` tool. */
export type GrepToolArguments = Static<typeof grepParameters>;

/** `details` of a `grep` result. */
export interface GrepToolDetails {
  /** Matching lines returned. */
  matches: number;
  /** Files with at least one match returned. */
  filesWithMatches: number;
  /** Files read. */
  filesSearched: number;
  /** Files skipped because they are binary. */
  binaryFilesSkipped: number;
  /** Why the output stopped early, if it did. */
  truncatedBy?: "limit" | "bytes";
}

/**
 * The `grep` tool: searches file contents with a JavaScript regular expression (or literal text), in
 * Node, over the files `find` would list (`.gitignore` honoured, nested files too; `.git` and
 * `node_modules` skipped unless the path points into them; binary files skipped). Output lines read
 * `path:line: text` (context lines `path-line- text`), grouped by file in path order, with hints when
 * the match limit or the 50 KB output limit cut them.
 */
export function createGrepTool(
  cwd: string,
  options: GrepToolOptions = {},
): AgentTool<typeof grepParameters, GrepToolDetails> {
  const root = checkCwd(cwd);
  const defaultLimit = checkPositiveInteger("grep.defaultLimit", options.defaultLimit, DEFAULT_GREP_LIMIT);
  const maxLineLength = checkPositiveInteger(
    "grep.maxLineLength",
    options.maxLineLength,
    DEFAULT_GREP_LINE_LENGTH,
  );
  const maxBytes = checkPositiveInteger("grep.maxBytes", options.maxBytes, DEFAULT_MAX_BYTES);
  return {
    name: "grep",
    label: "Grep",
    description:
      "Search file contents with a regular expression (or literal: true for plain text). Honours " +
      ".gitignore; skips binary files, .git and node_modules. Filter files with glob (e.g. *.ts); " +
      `context adds surrounding lines. Returns path:line: text, at most ${defaultLimit} matches unless limit is given.`,
    parameters: grepParameters,
    async execute(args, { signal }) {
      let regex: RegExp;
      try {
        regex = new RegExp(
          args.literal ? escapeRegExp(args.pattern) : args.pattern,
          args.ignoreCase ? "i" : "",
        );
      } catch (error) {
        return errorResult(
          `Invalid regular expression ${JSON.stringify(args.pattern)}: ${(error as Error).message}. ` +
            "Fix it, or pass literal: true to search for the text as is.",
        );
      }
      const searchRoot = resolveToolPath(root, args.path ?? ".");
      const shownRoot = displayPath(root, searchRoot);
      let files: string[];
      try {
        const stats = await stat(searchRoot);
        if (stats.isDirectory()) {
          const asksForNodeModules =
            searchRoot.split(sep).includes("node_modules") || (args.glob ?? "").includes("node_modules");
          ({ files } = await listProjectFiles({
            root: searchRoot,
            patterns: [args.glob ?? "**/*"],
            baseNameMatch: true,
            includeNodeModules: asksForNodeModules,
            respectGitignore: options.respectGitignore ?? true,
            signal,
          }));
          files = files.map((file) => join(searchRoot, file));
        } else files = [searchRoot];
      } catch (error) {
        if (errorCode(error) !== "ENOENT") return errorResult(describeFileError(error, shownRoot));
        const hint = await describeMissingPath(root, searchRoot);
        return errorResult(`Path not found: ${shownRoot}.${hint === "" ? "" : ` ${hint}`}`);
      }
      signal.throwIfAborted();
      if (files.length === 0) {
        const filter = args.glob === undefined ? "" : ` matching ${args.glob}`;
        return textResult(`No files${filter} to search in ${shownRoot} (after .gitignore).`, {
          matches: 0,
          filesWithMatches: 0,
          filesSearched: 0,
          binaryFilesSkipped: 0,
        });
      }
      const limit = args.limit ?? defaultLimit;
      const context = args.context ?? 0;
      const found: GrepFileMatches[] = [];
      let matches = 0;
      let filesSearched = 0;
      let binaryFilesSkipped = 0;
      let limitReached = false;
      const prefilter = new RegExp(regex.source, `${regex.flags}m`);
      let sliceStart = performance.now();
      for (const [index, file] of files.entries()) {
        if (performance.now() - sliceStart > SLICE_MS) {
          await yieldToEventLoop();
          sliceStart = performance.now();
        }
        signal.throwIfAborted();
        const content = readTextFile(file);
        if (content === undefined) continue;
        if (content === BINARY) {
          binaryFilesSkipped++;
          continue;
        }
        filesSearched++;
        if (!prefilter.test(content)) continue;
        const hit = searchFile(displayPath(root, file), content, regex, { limit: limit - matches, context });
        if (hit.matchCount === 0) continue;
        found.push(hit);
        matches += hit.matchCount;
        if (matches >= limit) {
          limitReached = hit.more || index < files.length - 1;
          break;
        }
      }
      if (matches === 0) {
        return textResult(
          `No matches for ${args.literal ? JSON.stringify(args.pattern) : `/${args.pattern}/${args.ignoreCase ? "i" : ""}`} in ${shownRoot} ` +
            `(${filesSearched} file${filesSearched === 1 ? "" : "s"} searched).`,
          { matches: 0, filesWithMatches: 0, filesSearched, binaryFilesSkipped },
        );
      }
      const output = formatGrepOutput(found, { withContext: context > 0, maxBytes, maxLineLength, regex });
      const notes: string[] = [];
      let truncatedBy: GrepToolDetails["truncatedBy"];
      if (output.cutByBytes) {
        truncatedBy = "bytes";
        notes.push(
          `[Output cut at ${formatBytes(maxBytes)} after ${output.shownMatches} matches. ` +
            "Narrow the search with path, glob or a more specific pattern.]",
        );
      } else if (limitReached) {
        truncatedBy = "limit";
        notes.push(
          `[Stopped at ${limit} matches (limit). Use limit=${limit * 2} for more, or narrow the search with path or glob.]`,
        );
      }
      if (output.cutLines > 0) {
        notes.push(
          `[${output.cutLines} long line${output.cutLines === 1 ? " was" : "s were"} cut to ${maxLineLength} characters around the match.]`,
        );
      }
      const text = notes.length > 0 ? `${output.text}\n\n${notes.join("\n")}` : output.text;
      return textResult(text, {
        matches: output.shownMatches,
        filesWithMatches: output.shownFiles,
        filesSearched,
        binaryFilesSkipped,
        ...(truncatedBy === undefined ? {} : { truncatedBy }),
      });
    },
  };
}

const BINARY = Symbol("binary");

/**
 * Files are read synchronously (several times faster than `fs.promises.readFile` per small file) in
 * slices of this many milliseconds, between which the event loop runs (UI updates, the abort signal).
 */
const SLICE_MS = 10;

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolveYield) => setImmediate(resolveYield));
}

/** A file's text (`\r\n` turned into `\n`), {@link BINARY}, or undefined when it cannot be read. */
function readTextFile(path: string): string | typeof BINARY | undefined {
  let buffer: Buffer;
  try {
    buffer = readFileSync(path);
  } catch {
    return undefined;
  }
  if (looksBinary(buffer.subarray(0, SNIFF_BYTES))) return BINARY;
  const text = buffer.toString("utf8");
  return text.includes("\r\n") ? text.replaceAll("\r\n", "\n") : text;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
