import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type AgentTool, type Static, Type } from "@arbor/agent-core";
import { diffTexts, type EditDiff, MAX_WRITE_DIFF_BYTES } from "./edit-diff.js";
import { looksBinary, SNIFF_BYTES } from "./file-content.js";
import { defaultFileMutationQueue, type FileMutationQueue } from "./file-mutation-queue.js";
import { checkCwd, displayPath, resolveToolPath } from "./paths.js";
import { acceptPathAliases, describeFileError, errorCode, errorResult, textResult } from "./tool-support.js";
import { byteLength } from "./truncate.js";

/** Options of {@link createWriteTool}. */
export interface WriteToolOptions {
  /** Serializes mutations per file (default: the process-wide {@link defaultFileMutationQueue}). */
  fileQueue?: FileMutationQueue;
  /** Lines of context around each change in the diff of `details` (default 3). */
  diffContextLines?: number;
}

const writeParameters = Type.Object({
  path: Type.String({ description: "File to write (relative to the working directory, or absolute)" }),
  content: Type.String({ description: "The complete new content of the file" }),
});

/** Arguments of the `write` tool. */
export type WriteToolArguments = Static<typeof writeParameters>;

/** `details` of a `write` result. */
export interface WriteToolDetails {
  /** The file as given, shown relative to the working directory when inside it. */
  path: string;
  /** UTF-8 bytes written. */
  bytes: number;
  /** Whether the file did not exist before. */
  created: boolean;
  /**
   * Over an existing text file: the unified diff of its old and new content (line endings shown as `\n`),
   * as an edit records it; empty when too large to compute (over 1 MiB, or too many changes).
   */
  diff?: string;
  /** First changed line in the new file (1-based), with `diff`. */
  firstChangedLine?: number;
  /** Lines added and removed, with `diff` (absent when it was too large to compute). */
  linesAdded?: number;
  linesRemoved?: number;
}

/**
 * The `write` tool: writes a file's complete content (UTF-8, verbatim), creating missing parent
 * directories and replacing an existing file. Runs in the file's mutation queue, so it never interleaves
 * with an `edit` of the same file.
 */
export function createWriteTool(
  cwd: string,
  options: WriteToolOptions = {},
): AgentTool<typeof writeParameters, WriteToolDetails> {
  const root = checkCwd(cwd);
  const queue = options.fileQueue ?? defaultFileMutationQueue;
  const context = options.diffContextLines ?? 3;
  return {
    name: "write",
    label: "Write",
    description:
      "Write a file with the given content, replacing it if it exists and creating parent directories. " +
      "Prefer edit for changes to an existing file.",
    parameters: writeParameters,
    prepareArguments: acceptPathAliases,
    async execute(args, { signal }) {
      const absolute = resolveToolPath(root, args.path);
      const shown = displayPath(root, absolute);
      return queue.run(absolute, async () => {
        signal.throwIfAborted();
        let created = true;
        let before: string | typeof TOO_LARGE | undefined;
        try {
          const existing = await stat(absolute);
          if (existing.isDirectory()) {
            return errorResult(`${shown} is a directory; give the path of a file inside it.`);
          }
          created = false;
          before = await previousText(absolute, existing.size, args.content);
        } catch (error) {
          if (errorCode(error) === "ENOTDIR") return errorResult(blockedMessage(shown));
          if (errorCode(error) !== "ENOENT") return errorResult(describeFileError(error, shown));
        }
        try {
          await mkdir(dirname(absolute), { recursive: true });
          await writeFile(absolute, args.content, { encoding: "utf8" });
        } catch (error) {
          if (errorCode(error) === "EEXIST" || errorCode(error) === "ENOTDIR") {
            return errorResult(blockedMessage(shown));
          }
          return errorResult(describeFileError(error, shown));
        }
        const bytes = byteLength(args.content);
        const changes =
          before === undefined
            ? undefined
            : before === TOO_LARGE
              ? { diff: "", firstChangedLine: 1 }
              : await diffTexts(shown, before, args.content, context);
        return textResult(`${created ? "Created" : "Wrote"} ${shown} (${bytes} bytes).`, {
          path: shown,
          bytes,
          created,
          ...(changes === undefined ? {} : diffDetails(changes)),
        });
      });
    },
  };
}

function blockedMessage(shown: string): string {
  return `Cannot create ${shown}: a file stands where a parent directory should be.`;
}

/** Marks a file too large to diff. */
const TOO_LARGE = Symbol("too large");

/**
 * The text a write replaces: {@link TOO_LARGE} over {@link MAX_WRITE_DIFF_BYTES} (old or new), undefined for
 * a binary or unreadable file (no diff is recorded then).
 */
async function previousText(
  path: string,
  size: number,
  content: string,
): Promise<string | typeof TOO_LARGE | undefined> {
  if (size > MAX_WRITE_DIFF_BYTES || content.length > MAX_WRITE_DIFF_BYTES) return TOO_LARGE;
  try {
    const raw = await readFile(path);
    if (looksBinary(raw.subarray(0, SNIFF_BYTES))) return undefined;
    return raw.toString("utf8").replace(/^\uFEFF/, "");
  } catch {
    return undefined;
  }
}

function diffDetails(changes: EditDiff): Partial<WriteToolDetails> {
  return {
    diff: changes.diff,
    firstChangedLine: changes.firstChangedLine,
    ...(changes.linesAdded === undefined
      ? {}
      : { linesAdded: changes.linesAdded, linesRemoved: changes.linesRemoved ?? 0 }),
  };
}
