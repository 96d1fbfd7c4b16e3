/**
 * The real pi sessions of the corpus (fixtures/pi-sessions, provenance in its README) hold hundreds of
 * `edit` results whose `details.diff` pi wrote in its own numbered format: every one reads as a diff whose
 * added and removed lines are the `+`/`-` lines pi recorded, each with its line number, in the file's order.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { toolDiff } from "../src/index.js";

const CORPUS = fileURLToPath(new URL("../../../fixtures/pi-sessions/", import.meta.url));

function sessionFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sessionFiles(join(directory, entry.name))
      : entry.name.endsWith(".jsonl")
        ? [join(directory, entry.name)]
        : [],
  );
}

interface RecordedEdit {
  file: string;
  diff: string;
  isError: boolean;
}

/** Every `edit` tool result of the corpus that recorded a diff. */
function recordedEdits(): RecordedEdit[] {
  const edits: RecordedEdit[] = [];
  for (const file of sessionFiles(CORPUS)) {
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (!line.includes('"toolName":"edit"')) continue;
      const message = (JSON.parse(line) as { message?: Record<string, unknown> }).message;
      const diff = (message?.details as { diff?: unknown } | undefined)?.diff;
      if (message?.role === "toolResult" && typeof diff === "string") {
        edits.push({ file, diff, isError: message.isError === true });
      }
    }
  }
  return edits;
}

describe("toolDiff on the edits of real pi sessions", () => {
  const edits = recordedEdits();

  it("finds the corpus's edits", () => {
    expect(edits.length).toBeGreaterThan(100);
  });

  it("reads each as the + and - lines pi recorded, numbered in order, within the line limit", () => {
    for (const edit of edits.filter((candidate) => !candidate.isError)) {
      const diff = toolDiff({ name: "edit" }, { details: { diff: edit.diff } }, 100_000);
      const recorded = edit.diff.split("\n");
      const added = recorded.filter((line) => line.startsWith("+")).length;
      const removed = recorded.filter((line) => line.startsWith("-")).length;
      expect(diff, edit.file).toBeDefined();
      expect({ added: diff?.added, removed: diff?.removed }, edit.file).toEqual({ added, removed });
      const lines = diff?.hunks.flatMap((hunk) => hunk.lines) ?? [];
      expect(lines.filter((line) => line.kind === "add").length, edit.file).toBe(added);
      expect(lines.filter((line) => line.kind === "remove").length, edit.file).toBe(removed);
      const newNumbers = lines.flatMap((line) => (line.newLine === undefined ? [] : [line.newLine]));
      expect(newNumbers, edit.file).toEqual([...newNumbers].sort((a, b) => a - b));
    }
  });
});
