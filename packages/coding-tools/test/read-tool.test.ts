import { symlink } from "node:fs/promises";
import { homedir } from "node:os";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { createReadTool, type ReadToolDetails, resolveToolPath } from "../src/index.js";
import { callTool, numberedLines, tempDirectory } from "./helpers.js";

/** A 1×1 PNG. */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
  "base64",
);

describe("read: text", () => {
  it("returns a small file whole, without a hint, relative to cwd", async () => {
    const cwd = await tempDirectory({ "src/a.txt": "alpha\nbeta\n" });
    const result = await callTool<ReadToolDetails>(createReadTool(cwd), { path: "src/a.txt" });
    expect(result.isError).toBeUndefined();
    expect(result.text).toBe("alpha\nbeta");
    expect(result.details).toEqual({
      kind: "text",
      path: "src/a.txt",
      startLine: 1,
      endLine: 2,
      totalLines: 2,
      cutLines: 0,
    });
  });

  it("accepts absolute paths, ~ and Claude Code's file_path", async () => {
    const cwd = await tempDirectory({ "a.txt": "x" });
    const absolute = await callTool(createReadTool("/"), { path: join(cwd, "a.txt") });
    expect(absolute.text).toBe("x");
    const alias = await callTool(createReadTool(cwd), { file_path: "a.txt" });
    expect(alias.text).toBe("x");
    // `~/…` expands to the home directory (here followed by `..` segments down to the temp directory).
    const home = await callTool(createReadTool("/"), {
      path: `~/${relative(homedir(), join(cwd, "a.txt"))}`,
    });
    expect(home.text).toBe("x");
    expect(resolveToolPath("/elsewhere", "~")).toBe(homedir());
    expect(resolveToolPath("/elsewhere", "~/notes.md")).toBe(join(homedir(), "notes.md"));
  });

  it("pages with offset and limit, and says how to continue", async () => {
    const cwd = await tempDirectory({ "f.txt": numberedLines(10) });
    const tool = createReadTool(cwd);
    const page = await callTool<ReadToolDetails>(tool, { path: "f.txt", offset: 3, limit: 2 });
    expect(page.text).toBe("line 3\nline 4\n\n[6 more lines in the file. Use offset=5 to continue.]");
    expect(page.details).toMatchObject({ startLine: 3, endLine: 4, totalLines: 10, truncatedBy: "limit" });
    const tail = await callTool<ReadToolDetails>(tool, { path: "f.txt", offset: 9, limit: 5 });
    expect(tail.text).toBe("line 9\nline 10");
    expect(tail.details).not.toHaveProperty("truncatedBy");
  });

  it("cuts at 2,000 lines with the continuation hint, and reads exactly 2,000 without one", async () => {
    const cwd = await tempDirectory({ "long.txt": numberedLines(5400), "exact.txt": numberedLines(2000) });
    const tool = createReadTool(cwd);
    const first = await callTool<ReadToolDetails>(tool, { path: "long.txt" });
    const lines = first.text.split("\n");
    expect(lines[0]).toBe("line 1");
    expect(lines[1999]).toBe("line 2000");
    expect(first.text.endsWith("\n\n[Showing lines 1-2000 of 5400. Use offset=2001 to continue.]")).toBe(
      true,
    );
    expect(first.details).toMatchObject({ endLine: 2000, totalLines: 5400, truncatedBy: "lines" });
    const next = await callTool(tool, { path: "long.txt", offset: 2001 });
    expect(next.text.startsWith("line 2001\n")).toBe(true);
    expect(next.text).toContain("[Showing lines 2001-4000 of 5400. Use offset=4001 to continue.]");
    const last = await callTool(tool, { path: "long.txt", offset: 4001 });
    expect(last.text.endsWith("line 5400")).toBe(true);
    const exact = await callTool<ReadToolDetails>(tool, { path: "exact.txt" });
    expect(exact.text.endsWith("line 2000")).toBe(true);
    expect(exact.details).not.toHaveProperty("truncatedBy");
  });

  it("cuts at 50 KB on a line boundary", async () => {
    const line = "x".repeat(99); // 100 bytes with the newline
    const cwd = await tempDirectory({ "wide.txt": `${line}\n`.repeat(1000) });
    const result = await callTool<ReadToolDetails>(createReadTool(cwd), { path: "wide.txt" });
    // 512 lines of 100 bytes minus the last newline fit in 51,200 bytes; the 513th does not.
    expect(result.details).toMatchObject({ endLine: 512, totalLines: 1000, truncatedBy: "bytes" });
    expect(result.text).toContain("[Showing lines 1-512 of 1000 (50 KB limit). Use offset=513 to continue.]");
  });

  it("cuts long lines and says so", async () => {
    const cwd = await tempDirectory({ "min.js": `short\n${"y".repeat(5000)}\nend` });
    const result = await callTool<ReadToolDetails>(createReadTool(cwd), { path: "min.js" });
    const [first, second, third] = result.text.split("\n");
    expect(first).toBe("short");
    expect(second).toBe(`${"y".repeat(2000)}… [line truncated: 5,000 characters]`);
    expect(third).toBe("end");
    expect(result.details).toMatchObject({ cutLines: 1, totalLines: 3 });
    expect(result.text).toContain("1 line was longer than 2000 characters");
  });

  it("drops a BOM and CR line endings, numbers lines on request", async () => {
    const cwd = await tempDirectory({ "crlf.txt": "\uFEFFone\r\ntwo\r\n" });
    const plain = await callTool(createReadTool(cwd), { path: "crlf.txt" });
    expect(plain.text).toBe("one\ntwo");
    const numbered = await callTool(createReadTool(cwd, { lineNumbers: true }), {
      path: "crlf.txt",
      offset: 2,
    });
    expect(numbered.text).toBe("     2\ttwo");
  });

  it("handles multi-byte characters split across read chunks", async () => {
    const text = `${"é".repeat(40_000)}\n${"日本".repeat(20_000)}\n`;
    const cwd = await tempDirectory({ "utf8.txt": text });
    const result = await callTool(createReadTool(cwd, { maxLineLength: 100_000, maxBytes: 1_000_000 }), {
      path: "utf8.txt",
    });
    expect(result.text).toBe(text.trimEnd());
  });

  it("reports empty files and offsets past the end", async () => {
    const cwd = await tempDirectory({ "empty.txt": "", "two.txt": "a\nb\n" });
    const tool = createReadTool(cwd);
    const empty = await callTool(tool, { path: "empty.txt" });
    expect(empty.isError).toBeUndefined();
    expect(empty.text).toBe("(empty.txt is empty)");
    const past = await callTool(tool, { path: "two.txt", offset: 5 });
    expect(past.isError).toBe(true);
    expect(past.text).toBe("Offset 5 is beyond the end of two.txt, which has 2 lines.");
  });
});

describe("read: errors", () => {
  it("suggests close names for a missing file", async () => {
    const cwd = await tempDirectory({ "src/utils.ts": "", "src/index.ts": "" });
    const tool = createReadTool(cwd);
    const typo = await callTool(tool, { path: "src/utils.js" });
    expect(typo.isError).toBe(true);
    expect(typo.text).toBe("File not found: src/utils.js. Did you mean src/utils.ts?");
    const elsewhere = await callTool(tool, { path: "index.ts" });
    expect(elsewhere.text).toBe("File not found: index.ts. Files with that name: src/index.ts.");
    const noDirectory = await callTool(tool, { path: "lib/deep/x.ts" });
    expect(noDirectory.text).toBe(
      "File not found: lib/deep/x.ts. The directory lib/deep does not exist either; the nearest existing one is ..",
    );
  });

  it("refuses directories and binary files clearly", async () => {
    const cwd = await tempDirectory({
      "dir/x": "",
      "blob.bin": Buffer.from([1, 2, 0, 3, 4]),
      "fake.png": Buffer.from([0, 1, 2]),
    });
    const tool = createReadTool(cwd);
    const directory = await callTool(tool, { path: "dir" });
    expect(directory).toMatchObject({
      isError: true,
      text: "dir is a directory, not a file. Use ls to list it.",
    });
    const binary = await callTool(tool, { path: "blob.bin" });
    expect(binary.isError).toBe(true);
    expect(binary.text).toMatch(/^blob\.bin is a binary file \(5 B\); read returns text files and images/);
    const device = await callTool(createReadTool("/"), { path: "/dev/null" });
    expect(device.text).toBe(
      "dev/null is not a regular file (a device, pipe or socket); read cannot open it.",
    );
    const fake = await callTool(tool, { path: "fake.png" });
    expect(fake.text).toMatch(/^fake\.png has an image extension but is not a valid PNG/);
  });
});

describe("read: images", () => {
  it("returns PNG, JPEG, GIF and WebP as image content, recognized by content", async () => {
    const jpeg = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]);
    const gif = Buffer.from("GIF89a\x01\x00\x01\x00\x00\x00\x00;", "latin1");
    const webp = Buffer.concat([Buffer.from("RIFF"), Buffer.from([4, 0, 0, 0]), Buffer.from("WEBPVP8 ")]);
    const cwd = await tempDirectory({ "a.png": PNG, photo: jpeg, "b.gif": gif, "c.webp": webp });
    const tool = createReadTool(cwd);
    const png = await callTool<ReadToolDetails>(tool, { path: "a.png" });
    expect(png.isError).toBeUndefined();
    expect(png.content[0]).toEqual({
      type: "text",
      text: `Read image file a.png [image/png, ${PNG.length} B]`,
    });
    expect(png.content[1]).toEqual({ type: "image", data: PNG.toString("base64"), mimeType: "image/png" });
    expect(png.details).toEqual({ kind: "image", path: "a.png", mimeType: "image/png", bytes: PNG.length });
    const noExtension = await callTool(tool, { path: "photo" });
    expect(noExtension.content[1]).toMatchObject({ type: "image", mimeType: "image/jpeg" });
    expect((await callTool(tool, { path: "b.gif" })).content[1]).toMatchObject({ mimeType: "image/gif" });
    expect((await callTool(tool, { path: "c.webp" })).content[1]).toMatchObject({ mimeType: "image/webp" });
  });

  it("refuses images over the size limit", async () => {
    const cwd = await tempDirectory({ "a.png": PNG });
    const result = await callTool(createReadTool(cwd, { maxImageBytes: 10 }), { path: "a.png" });
    expect(result.isError).toBe(true);
    expect(result.text).toContain("over the 10 B limit");
  });

  it("follows symbolic links", async () => {
    const cwd = await tempDirectory({ "real.txt": "real" });
    await symlink(join(cwd, "real.txt"), join(cwd, "link.txt"));
    expect((await callTool(createReadTool(cwd), { path: "link.txt" })).text).toBe("real");
  });
});
