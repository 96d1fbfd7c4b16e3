import { chmod, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { applyPatch } from "diff";
import { describe, expect, it } from "vitest";
import { createWriteTool, type WriteToolDetails } from "../src/index.js";
import { callTool, tempDirectory } from "./helpers.js";

describe("write", () => {
  it("creates parent directories and reports the bytes written", async () => {
    const cwd = await tempDirectory();
    const result = await callTool<WriteToolDetails>(createWriteTool(cwd), {
      path: "deep/er/new.txt",
      content: "héllo\n",
    });
    expect(result.isError).toBeUndefined();
    expect(result.text).toBe("Created deep/er/new.txt (7 bytes).");
    expect(result.details).toEqual({ path: "deep/er/new.txt", bytes: 7, created: true });
    expect(await readFile(join(cwd, "deep/er/new.txt"), "utf8")).toBe("héllo\n");
  });

  it("replaces an existing file verbatim", async () => {
    const cwd = await tempDirectory({ "a.txt": "old content that is longer" });
    const result = await callTool<WriteToolDetails>(createWriteTool(cwd), {
      path: "a.txt",
      content: "new\r\n",
    });
    expect(result.text).toBe("Wrote a.txt (5 bytes).");
    expect(result.details?.created).toBe(false);
    expect(await readFile(join(cwd, "a.txt"), "utf8")).toBe("new\r\n");
  });

  it("records the diff of the content it replaces, as an edit does; none for a new or binary file", async () => {
    const before = `${Array.from({ length: 20 }, (_, index) => `line ${index + 1}`).join("\n")}\n`;
    const cwd = await tempDirectory({ "a.txt": before, "b.bin": Buffer.from([0, 1, 2, 3]) });
    const tool = createWriteTool(cwd);
    const after = before.replace("line 10\n", "line ten\nline ten and a half\n");
    const result = await callTool<WriteToolDetails>(tool, { path: "a.txt", content: after });
    expect(result.text).toBe(`Wrote a.txt (${Buffer.byteLength(after)} bytes).`);
    expect(result.details).toMatchObject({
      created: false,
      linesAdded: 2,
      linesRemoved: 1,
      firstChangedLine: 10,
    });
    expect(applyPatch(before, result.details?.diff ?? "")).toBe(after);
    expect(result.details?.diff).toContain(
      "@@ -7,7 +7,8 @@\n line 7\n line 8\n line 9\n-line 10\n+line ten\n",
    );
    const created = await callTool<WriteToolDetails>(tool, { path: "new.txt", content: "x\n" });
    expect(created.details).toEqual({ path: "new.txt", bytes: 2, created: true });
    const binary = await callTool<WriteToolDetails>(tool, { path: "b.bin", content: "text\n" });
    expect(binary.details).toEqual({ path: "b.bin", bytes: 5, created: false });
  });

  it("fails clearly on a directory, a file in the way and a read-only directory", async () => {
    const cwd = await tempDirectory({ "dir/x": "", file: "" });
    const tool = createWriteTool(cwd);
    const directory = await callTool(tool, { path: "dir", content: "x" });
    expect(directory).toMatchObject({
      isError: true,
      text: "dir is a directory; give the path of a file inside it.",
    });
    const blocked = await callTool(tool, { path: "file/inner.txt", content: "x" });
    expect(blocked.isError).toBe(true);
    expect(blocked.text).toMatch(
      /^Cannot create file\/inner\.txt: a file stands where a parent directory should be/,
    );
    if (process.getuid?.() !== 0) {
      await chmod(join(cwd, "dir"), 0o500);
      const denied = await callTool(tool, { path: "dir/y.txt", content: "x" });
      expect(denied).toMatchObject({ isError: true, text: "Permission denied: dir/y.txt." });
      await chmod(join(cwd, "dir"), 0o700);
    }
    expect((await stat(join(cwd, "file"))).isFile()).toBe(true);
  });
});
