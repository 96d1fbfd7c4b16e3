import { readFile, writeFile } from "node:fs/promises";
import { type AgentTool, type Static, Type } from "@arbor/agent-core";
import { diffReplacements } from "./edit-diff.js";
import { applyReplacements } from "./edit-matching.js";
import { looksBinary, SNIFF_BYTES } from "./file-content.js";
import { defaultFileMutationQueue, type FileMutationQueue } from "./file-mutation-queue.js";
import { checkCwd, displayPath, resolveToolPath } from "./paths.js";
import { describeMissingPath } from "./similar-paths.js";
import { acceptPathAliases, describeFileError, errorCode, errorResult, textResult } from "./tool-support.js";

/** Options of {@link createEditTool}. */
export interface EditToolOptions {
  /** Serializes mutations per file (default: the process-wide {@link defaultFileMutationQueue}). */
  fileQueue?: FileMutationQueue;
  /** Lines of context around each change in the diff of `details` (default 3). */
  diffContextLines?: number;
}

const editParameters = Type.Object({
  path: Type.String({ description: "File to edit (relative to the working directory, or absolute)" }),
  edits: Type.Array(
    Type.Object({
      oldText: Type.String({
        description: "Exact text to replace; must occur exactly once in the file (include enough context)",
      }),
      newText: Type.String({ description: "The replacement text" }),
    }),
    {
      minItems: 1,
      description: "Replacements, each matched against the original file; they must not overlap",
    },
  ),
});

/** Arguments of the `edit` tool. */
export type EditToolArguments = Static<typeof editParameters>;

/** `details` of an `edit` result. */
export interface EditToolDetails {
  /** The file as given, shown relative to the working directory when inside it. */
  path: string;
  /** Unified diff of the change (line endings shown as `\n`); empty when too large to compute. */
  diff: string;
  /** First changed line in the new file (1-based). */
  firstChangedLine: number;
  /** How many replacements were applied. */
  replacements: number;
  /** Lines added and removed (absent when the diff was too large to compute). */
  linesAdded?: number;
  linesRemoved?: number;
}

/**
 * The `edit` tool: exact replacements in one file, all or nothing. Each `oldText` must occur exactly once
 * in the original file and the replacements must not overlap; otherwise nothing changes and the result
 * says how many matches there were, where, and what is close. Line endings (CRLF files stay CRLF) and a
 * byte order mark are preserved. Runs in the file's mutation queue, so parallel edits of one file apply
 * one after the other. Also accepts `{ path, oldText, newText }` (and Claude Code's `file_path`,
 * `old_string`, `new_string`).
 */
export function createEditTool(
  cwd: string,
  options: EditToolOptions = {},
): AgentTool<typeof editParameters, EditToolDetails> {
  const root = checkCwd(cwd);
  const queue = options.fileQueue ?? defaultFileMutationQueue;
  const context = options.diffContextLines ?? 3;
  return {
    name: "edit",
    label: "Edit",
    description:
      "Edit a file by exact text replacement: edits is a list of { oldText, newText }; each oldText must " +
      "match exactly once in the current file (whitespace included) and edits must not overlap. All edits " +
      "apply or none. Read the file first.",
    parameters: editParameters,
    prepareArguments: normalizeEditArguments,
    async execute(args, { signal }) {
      const absolute = resolveToolPath(root, args.path);
      const shown = displayPath(root, absolute);
      return queue.run(absolute, async () => {
        signal.throwIfAborted();
        let raw: Buffer;
        try {
          raw = await readFile(absolute);
        } catch (error) {
          if (errorCode(error) === "ENOENT") {
            const hint = await describeMissingPath(root, absolute);
            return errorResult(
              `File not found: ${shown}.${hint === "" ? "" : ` ${hint}`} To create a file, use write.`,
            );
          }
          return errorResult(describeFileError(error, shown));
        }
        if (looksBinary(raw.subarray(0, SNIFF_BYTES))) {
          return errorResult(`${shown} is a binary file; edit changes text files only.`);
        }
        const original = raw.toString("utf8");
        const bom = original.startsWith("\uFEFF") ? "\uFEFF" : "";
        const body = original.slice(bom.length);
        const crlf = isCrlf(body);
        const text = crlf ? body.replaceAll("\r\n", "\n") : body;
        const keepsCrlf = crlf || text.includes("\r\n");
        const replacements = args.edits.map((edit) => ({
          oldText: keepsCrlf && !crlf ? edit.oldText : edit.oldText.replaceAll("\r\n", "\n"),
          newText: keepsCrlf && !crlf ? edit.newText : edit.newText.replaceAll("\r\n", "\n"),
        }));
        const outcome = applyReplacements(text, replacements, shown);
        if (!outcome.ok) return errorResult(outcome.message);
        if (outcome.text === text) {
          return errorResult(`The edits leave ${shown} unchanged (each newText equals its oldText).`);
        }
        const updated = bom + (crlf ? outcome.text.replaceAll("\n", "\r\n") : outcome.text);
        signal.throwIfAborted();
        try {
          await writeFile(absolute, updated, "utf8");
        } catch (error) {
          return errorResult(describeFileError(error, shown));
        }
        const changes = await diffReplacements(shown, text, outcome.replacements, context);
        const count = outcome.replacements.length;
        const changed =
          changes.linesAdded === undefined ? "" : `, +${changes.linesAdded} -${changes.linesRemoved} lines`;
        return textResult(
          `Edited ${shown}: ${count} replacement${count === 1 ? "" : "s"}${changed}, first change at line ` +
            `${changes.firstChangedLine}.`,
          {
            path: shown,
            diff: changes.diff,
            firstChangedLine: changes.firstChangedLine,
            replacements: count,
            ...(changes.linesAdded === undefined
              ? {}
              : { linesAdded: changes.linesAdded, linesRemoved: changes.linesRemoved ?? 0 }),
          },
        );
      });
    },
  };
}

/**
 * Accepts the single-replacement form `{ path, oldText, newText }`, Claude Code's names (`file_path`,
 * `old_string`, `new_string`) and an `edits` array sent as a JSON string.
 */
export function normalizeEditArguments(raw: Record<string, unknown>): Record<string, unknown> {
  const args = acceptPathAliases(raw);
  let edits = args.edits;
  if (typeof edits === "string") {
    try {
      edits = JSON.parse(edits) as unknown;
    } catch {
      // Left as is: validation reports that edits must be an array.
    }
  }
  if (edits === undefined) {
    const oldText = args.oldText ?? args.old_string;
    const newText = args.newText ?? args.new_string;
    if (oldText !== undefined || newText !== undefined) edits = [{ oldText, newText }];
  }
  if (Array.isArray(edits)) {
    edits = edits.map((edit: unknown) => {
      if (typeof edit !== "object" || edit === null) return edit;
      const entry = edit as Record<string, unknown>;
      return { oldText: entry.oldText ?? entry.old_string, newText: entry.newText ?? entry.new_string };
    });
  }
  const { oldText: _oldText, newText: _newText, old_string: _old, new_string: _new, ...rest } = args;
  return edits === undefined ? rest : { ...rest, edits };
}

/** A file counts as CRLF when it has line breaks and every one of them is `\r\n`. */
function isCrlf(text: string): boolean {
  let position = text.indexOf("\n");
  if (position === -1) return false;
  while (position !== -1) {
    if (text.charCodeAt(position - 1) !== 13) return false;
    position = text.indexOf("\n", position + 1);
  }
  return true;
}
