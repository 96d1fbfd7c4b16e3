import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { contextFileDirectories, loadContextFiles } from "../src/resources/context-files.js";
import { createResourceLoader, loadHarnessResources } from "../src/resources/index.js";

const roots: string[] = [];

/** A fresh temp directory holding `files` (path → content; content `null` makes a directory). */
async function tempTree(files: Record<string, string | null>): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "arbor-context-")));
  roots.push(root);
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    if (content === null) await mkdir(target, { recursive: true });
    else {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, content);
    }
  }
  return root;
}

afterAll(async () => {
  await Promise.all(roots.map((root) => rm(root, { recursive: true, force: true })));
});

/** The files under `root` (directories above the temp root are the machine's, not the test's). */
function under(root: string, files: { path: string; content: string }[]) {
  return files.filter((file) => file.path.startsWith(`${root}/`));
}

describe("contextFileDirectories", () => {
  it("lists the home, then every directory from the root down to cwd", () => {
    expect(contextFileDirectories("/work/project/src", "/home/me/.arbor")).toEqual([
      "/home/me/.arbor",
      "/",
      "/work",
      "/work/project",
      "/work/project/src",
    ]);
    expect(contextFileDirectories("/", "/h")).toEqual(["/h", "/"]);
  });
});

describe("loadContextFiles", () => {
  it("reads the home's file first, then the ancestors outermost first, down to cwd", async () => {
    const root = await tempTree({
      "home/AGENTS.md": "home rules",
      "AGENTS.md": "root rules",
      "work/CLAUDE.md": "work rules (claude)",
      "work/project/AGENTS.md": "project rules\n",
      "work/project/src/nothing.txt": "not a context file",
    });
    const result = await loadContextFiles({ cwd: join(root, "work/project/src"), home: join(root, "home") });
    expect(result.warnings).toEqual([]);
    expect(under(root, result.contextFiles)).toEqual([
      { path: join(root, "home/AGENTS.md"), content: "home rules" },
      { path: join(root, "AGENTS.md"), content: "root rules" },
      { path: join(root, "work/CLAUDE.md"), content: "work rules (claude)" },
      { path: join(root, "work/project/AGENTS.md"), content: "project rules\n" },
    ]);
  });

  it("prefers AGENTS.md over CLAUDE.md in one directory, and falls back to CLAUDE.md when AGENTS.md is unreadable", async () => {
    const root = await tempTree({
      "both/AGENTS.md": "agents",
      "both/CLAUDE.md": "claude",
      "both/broken/AGENTS.md": null,
      "both/broken/CLAUDE.md": "claude fallback",
      home: null,
    });
    const both = await loadContextFiles({ cwd: join(root, "both"), home: join(root, "home") });
    expect(under(root, both.contextFiles).map((file) => file.content)).toEqual(["agents"]);

    const broken = await loadContextFiles({ cwd: join(root, "both/broken"), home: join(root, "home") });
    expect(under(root, broken.contextFiles).map((file) => file.content)).toEqual([
      "agents",
      "claude fallback",
    ]);
    expect(broken.warnings).toEqual([
      `Cannot read context file ${join(root, "both/broken/AGENTS.md")}: it is a directory`,
    ]);
  });

  it("includes a file reached twice only once, at its first place", async () => {
    const root = await tempTree({
      "project/AGENTS.md": "project",
      "project/sub/AGENTS.md": "sub",
      "project/linked/CLAUDE.md": null,
    });
    await rm(join(root, "project/linked/CLAUDE.md"), { recursive: true });
    // A CLAUDE.md that links to the AGENTS.md one level up, and a directory link back to the project.
    await symlink(join(root, "project/AGENTS.md"), join(root, "project/linked/CLAUDE.md"));
    await symlink(join(root, "project"), join(root, "project/sub/back"));

    // The home is the project itself: its file comes first and is not repeated as an ancestor.
    const homeInside = await loadContextFiles({
      cwd: join(root, "project/sub"),
      home: join(root, "project"),
    });
    expect(under(root, homeInside.contextFiles)).toEqual([
      { path: join(root, "project/AGENTS.md"), content: "project" },
      { path: join(root, "project/sub/AGENTS.md"), content: "sub" },
    ]);

    // cwd through a directory link (project/sub/back → project): project/sub/back/AGENTS.md is project/AGENTS.md.
    const viaLink = await loadContextFiles({
      cwd: join(root, "project/sub/back"),
      home: join(root, "nowhere"),
    });
    expect(under(root, viaLink.contextFiles).map((file) => file.path)).toEqual([
      join(root, "project/AGENTS.md"),
      join(root, "project/sub/AGENTS.md"),
    ]);

    // A CLAUDE.md linked to a file already included.
    const linkedFile = await loadContextFiles({
      cwd: join(root, "project/linked"),
      home: join(root, "nowhere"),
    });
    expect(under(root, linkedFile.contextFiles).map((file) => file.path)).toEqual([
      join(root, "project/AGENTS.md"),
    ]);
    expect(viaLink.warnings).toEqual([]);
  });

  it("cuts a file over the size limit at a character boundary, with a marker and a warning", async () => {
    // 60 × "é" (2 bytes each) = 120 bytes: a limit of 101 bytes falls inside a character.
    const text = "é".repeat(60);
    const root = await tempTree({ "project/AGENTS.md": text, "project/CLAUDE.md": "ignored" });
    const result = await loadContextFiles({
      cwd: join(root, "project"),
      home: join(root, "home"),
      maxBytes: 101,
    });
    const [file] = under(root, result.contextFiles);
    expect(file?.content).toBe(
      `${"é".repeat(50)}\n\n[… cut: this file has 120 bytes; only the first 100 are included]`,
    );
    expect(file?.content).not.toContain("\uFFFD");
    expect(result.warnings).toEqual([
      `Context file ${join(root, "project/AGENTS.md")} has 120 bytes, more than the limit of 101; only the first 100 bytes are included.`,
    ]);
  });

  it("skips empty files, strips a byte-order mark, and never throws for a missing cwd", async () => {
    const root = await tempTree({
      "home/AGENTS.md": "\uFEFFhome with BOM",
      "project/AGENTS.md": "  \n\n",
    });
    const result = await loadContextFiles({
      cwd: join(root, "project/does/not/exist"),
      home: join(root, "home"),
    });
    expect(under(root, result.contextFiles)).toEqual([
      { path: join(root, "home/AGENTS.md"), content: "home with BOM" },
    ]);
    expect(result.warnings).toEqual([]);
  });
});

describe("loadHarnessResources", () => {
  it("reads the home it is given (never $ARBOR_HOME), and collects every kind of resource", async () => {
    const root = await tempTree({
      "arbor-home/AGENTS.md": "from the given home",
      "arbor-home/skills/lint/SKILL.md": "---\nname: lint\ndescription: Lint the code\n---\nRun the linter.",
      "arbor-home/prompts/review.md": "Review $1",
      "env-home/AGENTS.md": "from ARBOR_HOME",
      "project/AGENTS.md": null,
    });
    const previous = process.env.ARBOR_HOME;
    process.env.ARBOR_HOME = join(root, "env-home");
    try {
      const resources = await loadHarnessResources({
        cwd: join(root, "project"),
        home: join(root, "arbor-home"),
      });
      expect(under(root, resources.contextFiles)).toEqual([
        { path: join(root, "arbor-home/AGENTS.md"), content: "from the given home" },
      ]);
      expect(resources.skills.map((skill) => skill.name)).toEqual(["lint"]);
      expect(resources.promptTemplates.map((template) => template.name)).toEqual(["review"]);
      expect(resources.warnings).toEqual([
        `Cannot read context file ${join(root, "project/AGENTS.md")}: it is a directory`,
      ]);
      const loader = createResourceLoader({ home: join(root, "arbor-home") });
      expect(await loader.load(join(root, "project"))).toEqual(resources);
      expect((await loader.expandInput("/review main.ts", resources)).text).toBe("Review main.ts");
    } finally {
      if (previous === undefined) delete process.env.ARBOR_HOME;
      else process.env.ARBOR_HOME = previous;
    }
  });
});
