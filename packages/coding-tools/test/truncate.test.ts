import { readFile, rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { OutputCapture } from "../src/output-capture.js";
import { countLines, formatBytes, splitLines, truncateTail } from "../src/truncate.js";
import { tempDirectory } from "./helpers.js";

describe("truncateTail", () => {
  it("keeps everything within the limits", () => {
    expect(truncateTail("a\nb\n", { maxLines: 2, maxBytes: 100 })).toEqual({
      text: "a\nb",
      truncated: false,
      shownLines: 2,
      partialLine: false,
    });
  });

  it("cuts by lines and by bytes at line boundaries, from the end", () => {
    expect(truncateTail("1\n2\n3\n4\n", { maxLines: 2, maxBytes: 100 })).toMatchObject({
      text: "3\n4",
      truncatedBy: "lines",
      shownLines: 2,
    });
    // "ccc" (3 bytes) + "\n" + "dd" (2 bytes) = 6 bytes fit; "bb\n" more would make 9.
    expect(truncateTail("bb\nccc\ndd", { maxLines: 10, maxBytes: 7 })).toMatchObject({
      text: "ccc\ndd",
      truncatedBy: "bytes",
      shownLines: 2,
      partialLine: false,
    });
  });

  it("keeps the end of a single line over the byte limit, on a character boundary", () => {
    const result = truncateTail(`x${"é".repeat(10)}`, { maxLines: 10, maxBytes: 5 });
    expect(result).toMatchObject({ text: "éé", truncatedBy: "bytes", partialLine: true, shownLines: 1 });
  });

  it("counts and splits lines the same way", () => {
    for (const text of ["", "a", "a\n", "a\nb", "a\n\nb\n", "\n"]) {
      expect(countLines(text)).toBe(splitLines(text).length);
    }
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(51_200)).toBe("50 KB");
    expect(formatBytes(1_572_864)).toBe("1.5 MB");
  });
});

describe("OutputCapture", () => {
  it("keeps memory bounded while the full output goes to the temp file", async () => {
    const directory = await tempDirectory();
    const capture = new OutputCapture({ maxLines: 100, maxBytes: 1000, tempDirectory: directory });
    const chunk = Buffer.from(`${"z".repeat(99)}\n`.repeat(100)); // 10,000 bytes, 100 lines
    for (let index = 0; index < 200; index++) capture.append(chunk);
    const output = await capture.finish();
    expect(output.totalBytes).toBe(2_000_000);
    expect(output.totalLines).toBe(20_000);
    expect(output.tail).toMatchObject({ truncated: true, truncatedBy: "bytes", shownLines: 10 });
    const full = await readFile(output.fullOutputPath!);
    expect(full.length).toBe(2_000_000);
    await rm(output.fullOutputPath!);
  });

  it("decodes characters split across chunks", async () => {
    const capture = new OutputCapture({ maxLines: 10, maxBytes: 1000 });
    const bytes = Buffer.from("héllo\n");
    capture.append(bytes.subarray(0, 2));
    capture.append(bytes.subarray(2));
    const output = await capture.finish();
    expect(output.tail.text).toBe("héllo");
    expect(output.fullOutputPath).toBeUndefined();
  });
});
