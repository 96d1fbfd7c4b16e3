import { describe, expect, it } from "vitest";
import { itemsOfMessage, summaryDisplayText } from "../src/index.js";

describe("summaryDisplayText", () => {
  it("shows pi's file-list tags as Files read / Files modified lines, leaving other text as it is", () => {
    const stored =
      "## Goal\n- Fix the parser.\n\n<read-files>\nsrc/a.ts\nsrc/b.ts\n</read-files>\n\n<modified-files>\nsrc/a.ts\n</modified-files>";
    expect(summaryDisplayText(stored)).toBe(
      "## Goal\n- Fix the parser.\n\nFiles read: src/a.ts, src/b.ts\n\nFiles modified: src/a.ts",
    );
    expect(summaryDisplayText("<read-files>\n</read-files>\nDone.")).toBe("\nDone.");
    const plain = "Files read: x.ts\nwhere <b> is bold";
    expect(summaryDisplayText(plain)).toBe(plain);
  });

  it("is what the transcript (the terminal's and the page's) shows of a branch summary", () => {
    const items = itemsOfMessage(
      {
        role: "branchSummary",
        summary: "## Goal\n- Read the notes.\n\n<read-files>\nnotes.txt\n</read-files>",
        fromId: "976cce3b",
        timestamp: 0,
      },
      new Map(),
    );
    const shown = JSON.stringify(items);
    expect(shown).toContain("Files read: notes.txt");
    expect(shown).not.toContain("read-files");
  });
});
