import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLsTool, type LsToolDetails } from "../src/index.js";
import { callTool, tempDirectory } from "./helpers.js";

describe("ls", () => {
  it("lists sorted entries, dotfiles included, directories and links to them with /", async () => {
    const cwd = await tempDirectory({ "b.txt": "", "A.md": "", ".env": "", "src/x.ts": "", "a.txt": "" });
    await symlink(join(cwd, "src"), join(cwd, "linked"));
    const result = await callTool<LsToolDetails>(createLsTool(cwd), {});
    expect(result.isError).toBeUndefined();
    expect(result.text).toBe([".env", "A.md", "a.txt", "b.txt", "linked/", "src/"].join("\n"));
    expect(result.details).toEqual({ path: ".", totalEntries: 6, shownEntries: 6 });
    const nested = await callTool(createLsTool(cwd), { path: "src" });
    expect(nested.text).toBe("x.ts");
  });

  it("stops at the limit with a hint", async () => {
    const files = Object.fromEntries(
      Array.from({ length: 12 }, (_, index) => [`f${String(index).padStart(2, "0")}`, ""]),
    );
    const cwd = await tempDirectory(files);
    const result = await callTool<LsToolDetails>(createLsTool(cwd), { limit: 5 });
    expect(result.text).toBe(
      "f00\nf01\nf02\nf03\nf04\n\n[Showing 5 of 12 entries (limit=5). Use limit=10 for more, or find with a pattern.]",
    );
    expect(result.details).toMatchObject({ totalEntries: 12, shownEntries: 5 });
    const byDefault = await callTool(createLsTool(cwd, { defaultLimit: 3 }), {});
    expect(byDefault.text).toContain("[Showing 3 of 12 entries (limit=3).");
  });

  it("reports empty directories, files and missing paths", async () => {
    const cwd = await tempDirectory({ "file.txt": "", "empty/.keep": "" });
    const tool = createLsTool(cwd);
    expect((await callTool(tool, { path: "empty" })).text).toBe(".keep");
    const file = await callTool(tool, { path: "file.txt" });
    expect(file).toMatchObject({
      isError: true,
      text: "file.txt is a file, not a directory. Use read to view it.",
    });
    const missing = await callTool(tool, { path: "emptty" });
    expect(missing).toMatchObject({
      isError: true,
      text: "Directory not found: emptty. Did you mean empty?",
    });
    const bare = await tempDirectory();
    expect((await callTool(createLsTool(bare), {})).text).toBe("(. is empty)");
  });
});
