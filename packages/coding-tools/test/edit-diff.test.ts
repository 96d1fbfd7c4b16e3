import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import { diffReplacements } from "../src/edit-diff.js";
import { applyReplacements, type TextReplacement } from "../src/edit-matching.js";

/** A small deterministic pseudo-random generator (mulberry32). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

describe("diffReplacements", () => {
  it("produces a patch that turns the old text into the new one, for random edits of repetitive files", async () => {
    let checked = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const next = random(seed);
      const words = ["alpha", "beta", "", "gamma", "}"];
      const lineCount = 1 + Math.floor(next() * 120);
      const lines = Array.from({ length: lineCount }, (_, index) =>
        next() < 0.7 ? words[Math.floor(next() * words.length)]! : `unique <${index}>`,
      );
      const text = lines.join("\n") + (next() < 0.5 ? "\n" : "");
      // Pick unique lines to replace (each occurs exactly once), keep them apart.
      const replacements: TextReplacement[] = [];
      for (const [index, line] of lines.entries()) {
        if (!line.startsWith("unique") || next() > 0.15) continue;
        const roll = next();
        const newText = roll < 0.3 ? "" : roll < 0.6 ? `${line}\nalpha\nnew ${index}` : `changed ${index}`;
        replacements.push({ oldText: line, newText });
      }
      if (replacements.length === 0) continue;
      const outcome = applyReplacements(text, replacements, "f.txt");
      if (!outcome.ok) throw new Error(outcome.message);
      const context = Math.floor(next() * 4);
      const result = await diffReplacements("f.txt", text, outcome.replacements, context);
      expect(applyPatch(text, result.diff), `seed ${seed}`).toBe(outcome.text);
      checked++;
      const firstDifferent = firstDifferingLine(text, outcome.text);
      if (firstDifferent !== undefined)
        expect(result.firstChangedLine, `seed ${seed}`).toBeLessThanOrEqual(firstDifferent);
    }
    expect(checked).toBeGreaterThan(100);
  });
});

/** 1-based number of the first line where two texts differ. */
function firstDifferingLine(left: string, right: string): number | undefined {
  const a = left.split("\n");
  const b = right.split("\n");
  for (let index = 0; index < Math.max(a.length, b.length); index++)
    if (a[index] !== b[index]) return index + 1;
  return undefined;
}
