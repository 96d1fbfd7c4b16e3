import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyTally } from "../src/batch-format.js";
import { countForward } from "../src/line-count.js";
import { temporaryHome } from "./helpers.js";

function entryLine(id: string, parentId: string | null, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    type: "message",
    id,
    parentId,
    timestamp: `2026-01-01T00:00:${id.slice(1).padStart(2, "0")}.000Z`,
    message: { role: "user", content: [{ type: "text", text: "t" }], timestamp: 1 },
    ...extra,
  });
}

describe("countForward", () => {
  it("counts lines of every shape across chunks: long lines, other key orders, names, a torn end", () => {
    const lines = [
      entryLine("e1", null),
      entryLine("e2", "e1"),
      // Longer than a chunk (1 MB): read by its head and its last bytes.
      entryLine("e3", "e2", { pad: "x".repeat(1_200_000) }),
      entryLine("e4", "e3"),
      // Another key order: parsed.
      JSON.stringify({ id: "e5", type: "message", parentId: "e4", timestamp: "2026-01-01T00:00:05.000Z" }),
      JSON.stringify({ type: "session_info", id: "e6", parentId: "e5", timestamp: "x", name: " named " }),
      ...Array.from({ length: 3000 }, (_, index) =>
        entryLine(`e${index + 7}`, `e${index + 6}`, { pad: "y".repeat(500) }),
      ),
    ];
    const text = `${lines.join("\n")}\n{"type":"message","id":"torn"`;
    const path = join(temporaryHome(), "count.jsonl");
    writeFileSync(path, text);
    const fd = openSync(path, "r");
    try {
      const { tally, committedEnd } = countForward(fd, 0, Buffer.byteLength(text), emptyTally());
      expect(tally).toMatchObject({
        entryCount: 3006,
        messageCount: 3005,
        lastEntryId: "e3006",
        name: "named",
        updatedAt: JSON.parse(lines.at(-1)!).timestamp,
      });
      expect(committedEnd).toBe(Buffer.byteLength(`${lines.join("\n")}\n`));
    } finally {
      closeSync(fd);
    }
  });
});
