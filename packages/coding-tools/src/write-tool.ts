import { mkdir, stat, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { type AgentTool, type Static, Type } from "@arbor/agent-core";
import { defaultFileMutationQueue, type FileMutationQueue } from "./file-mutation-queue.js";
import { checkCwd, displayPath, resolveToolPath } from "./paths.js";
import { acceptPathAliases, describeFileError, errorCode, errorResult, textResult } from "./tool-support.js";
import { byteLength } from "./truncate.js";

/** Options of {@link createWriteTool}. */
export interface WriteToolOptions {
  /** Serializes mutations per file (default: the process-wide {@link defaultFileMutationQueue}). */
  fileQueue?: FileMutationQueue;
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
        try {
          const existing = await stat(absolute);
          if (existing.isDirectory()) {
            return errorResult(`${shown} is a directory; give the path of a file inside it.`);
          }
          created = false;
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
        return textResult(`${created ? "Created" : "Wrote"} ${shown} (${bytes} bytes).`, {
          path: shown,
          bytes,
          created,
        });
      });
    },
  };
}

function blockedMessage(shown: string): string {
  return `Cannot create ${shown}: a file stands where a parent directory should be.`;
}
