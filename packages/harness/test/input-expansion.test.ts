import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HarnessResources } from "../src/index.js";
import { expandInput, loadHarnessResources, parseSlashCommand } from "../src/resources/index.js";

let root: string;
let resources: HarnessResources;

async function write(path: string, content: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), content);
}

beforeAll(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "arbor-input-")));
  await write(
    "home/skills/pdf-tools/SKILL.md",
    "---\nname: pdf-tools\ndescription: Work with PDF files\n---\n\n# PDF tools\n\nRun scripts/extract.sh on the file.\n",
  );
  await write(
    "home/skills/release/SKILL.md",
    "---\nname: release\ndescription: Cut a release\ndisable-model-invocation: true\n---\nTag, then publish.",
  );
  await write("home/skills/gone/SKILL.md", "---\nname: gone\ndescription: Deleted after loading\n---\nBody");
  await write(
    "home/prompts/review.md",
    "---\ndescription: Review\n---\nReview $1 with focus on $2.\nAll: $@",
  );
  await write("project/.arbor/prompts/summarize.md", "Summarize the discussion.");
  resources = await loadHarnessResources({ cwd: join(root, "project"), home: join(root, "home") });
  await rm(join(root, "home/skills/gone"), { recursive: true });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("parseSlashCommand", () => {
  it("splits /name and the argument text", () => {
    expect(parseSlashCommand("/review src/a.ts  now")).toEqual({
      name: "review",
      argumentText: "src/a.ts  now",
    });
    expect(parseSlashCommand("/skill:pdf-tools")).toEqual({ name: "skill:pdf-tools", argumentText: "" });
    expect(parseSlashCommand("/fix\nmultiple\nlines")).toEqual({
      name: "fix",
      argumentText: "multiple\nlines",
    });
    for (const text of ["", "/", "/ review", "review", " /review"])
      expect(parseSlashCommand(text)).toBeUndefined();
  });
});

describe("expandInput", () => {
  it("loads a skill with /skill:name: the body without frontmatter in a block naming the skill and its directory, then the arguments", async () => {
    const result = await expandInput("/skill:pdf-tools extract the tables from report.pdf", resources);
    const baseDir = join(root, "home/skills/pdf-tools");
    expect(result).toEqual({
      kind: "skill",
      name: "pdf-tools",
      text:
        `<skill name="pdf-tools" location="${baseDir}/SKILL.md">\n` +
        `The user loaded the skill "pdf-tools". Its base directory is ${baseDir}; resolve the relative paths it mentions against that directory.\n\n` +
        "# PDF tools\n\nRun scripts/extract.sh on the file.\n</skill>\n\nextract the tables from report.pdf",
    });
  });

  it("loads a skill without arguments, and one hidden from the model", async () => {
    const bare = await expandInput("/skill:pdf-tools", resources);
    expect(bare.text.endsWith("Run scripts/extract.sh on the file.\n</skill>")).toBe(true);
    const hidden = await expandInput("/skill:release 1.2.0", resources);
    expect(hidden.kind).toBe("skill");
    expect(hidden.text).toContain("Tag, then publish.\n</skill>\n\n1.2.0");
  });

  it("passes an unknown skill through unchanged, and warns when a known skill's file is gone", async () => {
    expect(await expandInput("/skill:unknown do it", resources)).toEqual({
      kind: "plain",
      text: "/skill:unknown do it",
    });
    const gone = await expandInput("/skill:gone now", resources);
    expect(gone.kind).toBe("plain");
    expect(gone.text).toBe("/skill:gone now");
    expect(gone.warning).toBe(
      `Cannot load the skill "gone" from ${join(root, "home/skills/gone/SKILL.md")}: ENOENT: no such file or directory, open '${join(root, "home/skills/gone/SKILL.md")}'`,
    );
  });

  it("expands a prompt template with /name args ($1, $2, $@, quoted arguments)", async () => {
    expect(await expandInput('/review src/login.ts "error handling"', resources)).toEqual({
      kind: "template",
      name: "review",
      text: "Review src/login.ts with focus on error handling.\nAll: src/login.ts error handling",
    });
    expect(await expandInput("/summarize", resources)).toEqual({
      kind: "template",
      name: "summarize",
      text: "Summarize the discussion.",
    });
  });

  it("returns unknown commands and plain text unchanged", async () => {
    for (const text of ["/unknown args", "hello /review x", "/usr/bin/env is broken", "/", "", "/Review x"]) {
      expect(await expandInput(text, resources)).toEqual({ kind: "plain", text });
    }
  });
});
