import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createFindTool, createGrepTool, type FindToolDetails, type GrepToolDetails } from "../src/index.js";
import { callTool, numberedLines, tempDirectory } from "./helpers.js";

/** A project with nested .gitignore files, a negation, node_modules, .git and a binary file. */
async function project(): Promise<string> {
  const cwd = await tempDirectory({
    ".gitignore": "dist/\n*.log\n!keep.log\n",
    "src/.gitignore": "generated/\nsecret.ts\n",
    "src/app.ts": "export const needle = 1;\n",
    "src/util.ts": "// no match here\nconst Needle = 2;\n",
    "src/secret.ts": "needle in an ignored file\n",
    "src/generated/out.ts": "needle generated\n",
    "src/deep/inner.ts": "the needle is deep\n",
    "src/deep/secret.ts": "needle ignored from src/.gitignore, below it\n",
    "dist/bundle.js": "needle in dist\n",
    "debug.log": "needle in a log\n",
    "keep.log": "needle kept by negation\n",
    "node_modules/lib/index.js": "needle in a dependency\n",
    ".git/config": "needle in git metadata\n",
    ".github/workflow.yml": "needle in a dotdir\n",
    "image.bin": Buffer.concat([Buffer.from("needle"), Buffer.from([0, 1, 2])]),
  });
  await mkdir(join(cwd, "empty"));
  return cwd;
}

describe("find", () => {
  it("honours nested .gitignore files, skips .git and node_modules, includes dotfiles", async () => {
    const cwd = await project();
    const result = await callTool<FindToolDetails>(createFindTool(cwd), { pattern: "**/*" });
    expect(result.text.split("\n")).toEqual([
      ".github/workflow.yml",
      ".gitignore",
      "image.bin",
      "keep.log",
      "src/.gitignore",
      "src/app.ts",
      "src/deep/inner.ts",
      "src/util.ts",
    ]);
    const ts = await callTool(createFindTool(cwd), { pattern: "**/*.ts", path: "src" });
    expect(ts.text).toBe("src/app.ts\nsrc/deep/inner.ts\nsrc/util.ts");
  });

  it("applies the rules of parent directories in a git repository when searching a subdirectory", async () => {
    const cwd = await project();
    await mkdir(join(cwd, ".git", "info"), { recursive: true });
    const result = await callTool(createFindTool(join(cwd, "src")), { pattern: "**/*" });
    // src/.gitignore still applies when src is the working directory; so does the root .gitignore.
    expect(result.text).toBe(".gitignore\napp.ts\ndeep/inner.ts\nutil.ts");
  });

  it("searches inside node_modules or an ignored directory when asked explicitly", async () => {
    const cwd = await project();
    const modules = await callTool(createFindTool(cwd), { pattern: "**/*.js", path: "node_modules" });
    expect(modules.text).toBe("node_modules/lib/index.js");
    const dist = await callTool(createFindTool(cwd), { pattern: "*.js", path: "dist" });
    expect(dist.text).toBe("dist/bundle.js");
  });

  it("matches globs from the search directory, with a hint when a top-level pattern finds nothing", async () => {
    const cwd = await project();
    const top = await callTool(createFindTool(cwd), { pattern: "*.ts" });
    expect(top.isError).toBeUndefined();
    expect(top.text).toBe(
      "No files match *.ts in .. Patterns match from .; use **/*.ts to search subdirectories too.",
    );
    const braces = await callTool(createFindTool(cwd), { pattern: "src/{app,util}.ts" });
    expect(braces.text).toBe("src/app.ts\nsrc/util.ts");
    const elsewhere = await tempDirectory();
    const absolute = await callTool(createFindTool(elsewhere), { pattern: `${cwd}/src/**/*.ts` });
    expect(absolute.text).toBe(
      [`${cwd}/src/app.ts`, `${cwd}/src/deep/inner.ts`, `${cwd}/src/util.ts`].join("\n"),
    );
  });

  it("stops at the limit with a hint, and reports missing directories", async () => {
    const cwd = await project();
    const limited = await callTool<FindToolDetails>(createFindTool(cwd), { pattern: "**/*.ts", limit: 2 });
    expect(limited.text).toBe(
      "src/app.ts\nsrc/deep/inner.ts\n\n[Showing 2 of 3 files. Use limit=4 for more, or a more specific pattern or path.]",
    );
    expect(limited.details).toEqual({ totalMatches: 3, shownMatches: 2 });
    const missing = await callTool(createFindTool(cwd), { pattern: "*", path: "scr" });
    expect(missing).toMatchObject({ isError: true, text: "Directory not found: scr. Did you mean src?" });
  });
});

describe("grep", () => {
  it("finds matches as path:line: text, honouring .gitignore and skipping binary files", async () => {
    const cwd = await project();
    const result = await callTool<GrepToolDetails>(createGrepTool(cwd), { pattern: "needle" });
    expect(result.isError).toBeUndefined();
    expect(result.text).toBe(
      [
        ".github/workflow.yml:1: needle in a dotdir",
        "keep.log:1: needle kept by negation",
        "src/app.ts:1: export const needle = 1;",
        "src/deep/inner.ts:1: the needle is deep",
      ].join("\n"),
    );
    expect(result.details).toEqual({
      matches: 4,
      filesWithMatches: 4,
      filesSearched: 7,
      binaryFilesSkipped: 1,
    });
  });

  it("supports ignoreCase, literal, glob and a file path", async () => {
    const cwd = await project();
    const tool = createGrepTool(cwd);
    const caseless = await callTool(tool, { pattern: "NEEDLE = 2", ignoreCase: true, glob: "*.ts" });
    expect(caseless.text).toBe("src/util.ts:2: const Needle = 2;");
    const literal = await callTool(tool, { pattern: "needle = 1;", literal: true, path: "src/app.ts" });
    expect(literal.text).toBe("src/app.ts:1: export const needle = 1;");
    const scoped = await callTool(tool, { pattern: "needle", glob: "src/deep/**" });
    expect(scoped.text).toBe("src/deep/inner.ts:1: the needle is deep");
    const modules = await callTool(tool, { pattern: "needle", path: "node_modules" });
    expect(modules.text).toBe("node_modules/lib/index.js:1: needle in a dependency");
  });

  it("shows context lines grouped per file with -- between blocks", async () => {
    const cwd = await tempDirectory({ "a.txt": numberedLines(20), "b.txt": "x\nline 1\ny\n" });
    const result = await callTool(createGrepTool(cwd), { pattern: "^line (3|5|15)$", context: 1 });
    expect(result.text).toBe(
      [
        "a.txt-2- line 2",
        "a.txt:3: line 3",
        "a.txt-4- line 4",
        "a.txt:5: line 5",
        "a.txt-6- line 6",
        "--",
        "a.txt-14- line 14",
        "a.txt:15: line 15",
        "a.txt-16- line 16",
      ].join("\n"),
    );
  });

  it("stops at the match limit with a hint", async () => {
    const cwd = await tempDirectory({ "a.txt": numberedLines(50), "b.txt": numberedLines(50) });
    const result = await callTool<GrepToolDetails>(createGrepTool(cwd), { pattern: "line", limit: 3 });
    expect(result.text).toBe(
      "a.txt:1: line 1\na.txt:2: line 2\na.txt:3: line 3\n\n" +
        "[Stopped at 3 matches (limit). Use limit=6 for more, or narrow the search with path or glob.]",
    );
    expect(result.details).toMatchObject({ matches: 3, truncatedBy: "limit" });
  });

  it("cuts the output at the byte limit and long lines around the match", async () => {
    const cwd = await tempDirectory({
      "many.txt": numberedLines(200, "match number "),
      "wide.txt": `${"a".repeat(2000)}TARGET${"b".repeat(2000)}\n`,
    });
    const small = await callTool<GrepToolDetails>(createGrepTool(cwd, { maxBytes: 200 }), {
      pattern: "match",
      limit: 500,
    });
    expect(small.details?.truncatedBy).toBe("bytes");
    expect(small.text).toContain("[Output cut at 200 B after");
    const wide = await callTool(createGrepTool(cwd), { pattern: "TARGET" });
    const line = wide.text.split("\n")[0]!;
    expect(line).toMatch(/^wide\.txt:1: …a+TARGETb+… \[line truncated: 4,006 characters\]$/);
    expect(line.length).toBeLessThan(600);
    expect(wide.text).toContain("[1 long line was cut to 500 characters around the match.]");
  });

  it("reports no matches, invalid patterns, and CRLF files line by line", async () => {
    const cwd = await tempDirectory({ "w.txt": "end here\r\nnext\r\n" });
    const tool = createGrepTool(cwd);
    const anchored = await callTool(tool, { pattern: "here$" });
    expect(anchored.text).toBe("w.txt:1: end here");
    const none = await callTool(tool, { pattern: "absent" });
    expect(none.isError).toBeUndefined();
    expect(none.text).toBe("No matches for /absent/ in . (1 file searched).");
    const invalid = await callTool(tool, { pattern: "foo(" });
    expect(invalid.isError).toBe(true);
    expect(invalid.text).toMatch(
      /^Invalid regular expression "foo\(": .*pass literal: true to search for the text as is\.$/,
    );
    const literal = await callTool(tool, { pattern: "foo(", literal: true });
    expect(literal.text).toBe('No matches for "foo(" in . (1 file searched).');
  });
});

describe("abort", () => {
  it("grep and find reject once the signal has fired", async () => {
    const cwd = await project();
    const controller = new AbortController();
    controller.abort();
    const context = { toolCallId: "call", signal: controller.signal, onUpdate: () => {} };
    await expect(createGrepTool(cwd).execute({ pattern: "needle" }, context)).rejects.toThrow();
    await expect(createFindTool(cwd).execute({ pattern: "**/*" }, context)).rejects.toThrow();
  });
});
