/**
 * A summary's text as a person reads it. Summaries written by the pi agent (imported sessions) end with
 * their file lists in tags — `<read-files>\nsrc/a.ts\n</read-files>`, `<modified-files>…</modified-files>` —
 * which are for the model; on screen (the terminal, `sessions show`, the HTML and Markdown exports, the
 * demo) they read as Arbor's own summaries do: `Files read: src/a.ts` and `Files modified: …`. The stored
 * text is never changed.
 */

/** A file-list block of a pi summary: the tag, then one path per line. */
const FILE_LIST = /<(read-files|modified-files)>([\s\S]*?)<\/\1>/g;

const LABELS: Record<string, string> = { "read-files": "Files read", "modified-files": "Files modified" };

/**
 * `summary` with each `<read-files>` / `<modified-files>` block as one `Files read: a, b` /
 * `Files modified: c` line (an empty block is left out); any other text unchanged.
 *
 * Contract: pure; a summary without such blocks is returned as it is.
 */
export function summaryDisplayText(summary: string): string {
  if (!summary.includes("-files>")) return summary;
  const shown = summary.replace(FILE_LIST, (_block, tag: string, body: string) => {
    const files = body
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    return files.length === 0 ? "" : `${LABELS[tag]}: ${files.join(", ")}`;
  });
  return shown.replace(/\n{3,}/g, "\n\n").trimEnd();
}
