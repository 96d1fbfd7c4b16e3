import { readFile, stat } from "node:fs/promises";
import { type AgentTool, type AgentToolResult, type Static, Type } from "@arbor/agent-core";
import { imageTypeFromContent, imageTypeFromExtension, looksBinary, readHead } from "./file-content.js";
import { readLineWindow } from "./line-reader.js";
import { checkCwd, checkPositiveInteger, displayPath, resolveToolPath } from "./paths.js";
import { describeMissingPath } from "./similar-paths.js";
import { acceptPathAliases, describeFileError, errorCode, errorResult, textResult } from "./tool-support.js";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatBytes } from "./truncate.js";

/** Default cap on the characters of one line `read` returns. */
export const DEFAULT_MAX_LINE_LENGTH = 2000;

/** Default cap on the size of an image file `read` returns (its base64 form is then at most 5 MB). */
export const DEFAULT_MAX_IMAGE_BYTES = 3_750_000;

/** Options of {@link createReadTool}. */
export interface ReadToolOptions {
  /** Most lines per call (default 2,000). */
  maxLines?: number;
  /** Most UTF-8 bytes per call (default 50 KB). */
  maxBytes?: number;
  /** Longer lines are cut (default 2,000 characters). */
  maxLineLength?: number;
  /** Larger images are refused (default 3.75 MB, i.e. 5 MB of base64). */
  maxImageBytes?: number;
  /** Prefix each line with its number and a tab, like `cat -n` (default `false`). */
  lineNumbers?: boolean;
}

const readParameters = Type.Object({
  path: Type.String({ description: "File to read (relative to the working directory, or absolute)" }),
  offset: Type.Optional(Type.Integer({ minimum: 1, description: "Line number to start from (1-based)" })),
  limit: Type.Optional(Type.Integer({ minimum: 1, description: "Maximum number of lines to return" })),
});

/** Arguments of the `read` tool. */
export type ReadToolArguments = Static<typeof readParameters>;

/** `details` of a `read` result. */
export type ReadToolDetails =
  | {
      kind: "text";
      /** The file as given, shown relative to the working directory when inside it. */
      path: string;
      /** First and last line returned (1-based; `endLine < startLine` for an empty file). */
      startLine: number;
      endLine: number;
      totalLines: number;
      /** Set when the output stopped before the end of the file. */
      truncatedBy?: "limit" | "lines" | "bytes";
      /** How many returned lines were cut to `maxLineLength`. */
      cutLines: number;
    }
  | { kind: "image"; path: string; mimeType: string; bytes: number };

/**
 * The `read` tool: a text file's lines (a window of at most 2,000 lines / 50 KB, with a hint naming the
 * `offset` to continue from), or an image (PNG, JPEG, GIF, WebP, recognized by content) as image
 * content. Binary files, directories and missing files are error results; a missing file's result
 * suggests close names.
 */
export function createReadTool(
  cwd: string,
  options: ReadToolOptions = {},
): AgentTool<typeof readParameters, ReadToolDetails> {
  const root = checkCwd(cwd);
  const maxLines = checkPositiveInteger("read.maxLines", options.maxLines, DEFAULT_MAX_LINES);
  const maxBytes = checkPositiveInteger("read.maxBytes", options.maxBytes, DEFAULT_MAX_BYTES);
  const maxLineLength = checkPositiveInteger(
    "read.maxLineLength",
    options.maxLineLength,
    DEFAULT_MAX_LINE_LENGTH,
  );
  const maxImageBytes = checkPositiveInteger(
    "read.maxImageBytes",
    options.maxImageBytes,
    DEFAULT_MAX_IMAGE_BYTES,
  );
  return {
    name: "read",
    label: "Read",
    description:
      `Read a file. Text comes back as lines: at most ${maxLines} lines or ${formatBytes(maxBytes)} per call; ` +
      "use offset (1-based line) and limit to page through longer files. Images (PNG, JPEG, GIF, WebP) " +
      "come back as images.",
    parameters: readParameters,
    prepareArguments: acceptPathAliases,
    async execute(args, { signal }) {
      const absolute = resolveToolPath(root, args.path);
      const shown = displayPath(root, absolute);
      let size: number;
      try {
        const stats = await stat(absolute);
        if (stats.isDirectory()) {
          return errorResult(`${shown} is a directory, not a file. Use ls to list it.`);
        }
        if (!stats.isFile()) {
          return errorResult(
            `${shown} is not a regular file (a device, pipe or socket); read cannot open it.`,
          );
        }
        size = stats.size;
      } catch (error) {
        if (errorCode(error) !== "ENOENT") return errorResult(describeFileError(error, shown));
        const hint = await describeMissingPath(root, absolute);
        return errorResult(`File not found: ${shown}.${hint === "" ? "" : ` ${hint}`}`);
      }
      try {
        const head = await readHead(absolute);
        const imageType = imageTypeFromContent(head);
        if (imageType !== undefined) {
          if (size > maxImageBytes) {
            return errorResult(
              `${shown} is an image of ${formatBytes(size)}, over the ${formatBytes(maxImageBytes)} limit. ` +
                "Make a smaller copy first (e.g. with ImageMagick: convert in.png -resize 50% small.png).",
            );
          }
          const data = await readFile(absolute, { signal });
          return {
            content: [
              { type: "text", text: `Read image file ${shown} [${imageType}, ${formatBytes(size)}]` },
              { type: "image", data: data.toString("base64"), mimeType: imageType },
            ],
            details: { kind: "image", path: shown, mimeType: imageType, bytes: size },
          };
        }
        if (looksBinary(head)) {
          const announced = imageTypeFromExtension(absolute);
          return errorResult(
            announced === undefined
              ? `${shown} is a binary file (${formatBytes(size)}); read returns text files and images ` +
                  "(PNG, JPEG, GIF, WebP) only. Inspect it with bash instead (e.g. file, xxd | head)."
              : `${shown} has an image extension but is not a valid PNG, JPEG, GIF or WebP image ` +
                  `(${formatBytes(size)}). Inspect it with bash instead (e.g. file ${shown}).`,
          );
        }
        return await readText(absolute, shown, args, { maxLines, maxBytes, maxLineLength, signal }, options);
      } catch (error) {
        signal.throwIfAborted();
        return errorResult(describeFileError(error, shown));
      }
    },
  };
}

async function readText(
  absolute: string,
  shown: string,
  args: ReadToolArguments,
  limits: { maxLines: number; maxBytes: number; maxLineLength: number; signal: AbortSignal },
  options: ReadToolOptions,
): Promise<AgentToolResult<ReadToolDetails>> {
  const offset = args.offset ?? 1;
  const window = await readLineWindow(absolute, {
    offset,
    maxLines: Math.min(limits.maxLines, args.limit ?? Number.POSITIVE_INFINITY),
    maxBytes: limits.maxBytes,
    maxLineLength: limits.maxLineLength,
    signal: limits.signal,
  });
  const { lines, totalLines } = window;
  if (offset > 1 && offset > totalLines) {
    return errorResult(
      `Offset ${offset} is beyond the end of ${shown}, which has ${totalLines} line${totalLines === 1 ? "" : "s"}.`,
    );
  }
  const endLine = offset + lines.length - 1;
  let truncatedBy: "limit" | "lines" | "bytes" | undefined;
  if (window.stoppedBy === "bytes") truncatedBy = "bytes";
  else if (window.stoppedBy === "lines") {
    truncatedBy = args.limit !== undefined && args.limit <= limits.maxLines ? "limit" : "lines";
  }
  const details: ReadToolDetails = {
    kind: "text",
    path: shown,
    startLine: offset,
    endLine,
    totalLines,
    cutLines: window.cutLines,
    ...(truncatedBy === undefined ? {} : { truncatedBy }),
  };
  if (totalLines === 0) return textResult(`(${shown} is empty)`, details);
  let text = options.lineNumbers
    ? lines.map((line, index) => `${String(offset + index).padStart(6)}\t${line}`).join("\n")
    : lines.join("\n");
  const notes: string[] = [];
  if (truncatedBy === "limit") {
    notes.push(`[${totalLines - endLine} more lines in the file. Use offset=${endLine + 1} to continue.]`);
  } else if (truncatedBy !== undefined) {
    const limit = truncatedBy === "bytes" ? ` (${formatBytes(limits.maxBytes)} limit)` : "";
    notes.push(
      `[Showing lines ${offset}-${endLine} of ${totalLines}${limit}. Use offset=${endLine + 1} to continue.]`,
    );
  }
  if (window.cutLines > 0) {
    notes.push(
      `[${window.cutLines} line${window.cutLines === 1 ? " was" : "s were"} longer than ${limits.maxLineLength} ` +
        "characters and cut; use bash (e.g. cut -c or head -c) to see them in full.]",
    );
  }
  if (notes.length > 0) text += `\n\n${notes.join("\n")}`;
  return textResult(text, details);
}
