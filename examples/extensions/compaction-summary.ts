/**
 * An Arbor extension: a `session_before_compact` handler that writes the compaction summary itself — no model
 * call — from what is being compacted: the user's requests, the files touched, and the previous summary.
 * Load it with `arbor --extension examples/extensions/compaction-summary.ts`, or copy it to an extensions
 * directory.
 */
import type { ExtensionApi } from "@arbor/app-runtime";

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((block) => (block?.type === "text" ? String(block.text) : "")).join("");
}

export default function compactionSummary(arbor: ExtensionApi): void {
  arbor.on("session_before_compact", (event) => {
    const { preparation } = event;
    const requests = [...preparation.messagesToSummarize, ...preparation.turnPrefixMessages]
      .filter((message) => message.role === "user")
      .map((message) => `- ${textOf(message.content).split("\n")[0]}`);
    const files = [...preparation.fileOperations.readFiles, ...preparation.fileOperations.modifiedFiles];
    const summary = [
      "## Summary (written by the compaction-summary extension)",
      ...(preparation.previousSummary === undefined ? [] : ["Earlier:", preparation.previousSummary]),
      "The user asked:",
      ...(requests.length > 0 ? requests : ["- (no requests in this part)"]),
      `Files: ${files.length > 0 ? files.join(", ") : "none"}`,
    ].join("\n");
    return { compaction: { summary, details: { writtenBy: "compaction-summary" } } };
  });
}
