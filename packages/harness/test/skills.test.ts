import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Skill } from "../src/index.js";
import {
  isValidSkillName,
  loadSkills,
  loadSkillsFromDirectory,
  MAX_SKILL_DESCRIPTION_LENGTH,
  parseFrontmatter,
} from "../src/resources/skills.js";

const roots: string[] = [];

async function tempTree(files: Record<string, string | null>): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "arbor-skills-")));
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

function skillFile(name: string, description: string, body = "Instructions."): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;
}

describe("parseFrontmatter", () => {
  it("splits YAML frontmatter from the body (LF, CRLF, BOM, empty frontmatter)", async () => {
    expect(await parseFrontmatter("---\nname: a\ndescription: b c\n---\n\nBody\n")).toEqual({
      present: true,
      attributes: { name: "a", description: "b c" },
      body: "Body\n",
    });
    expect(await parseFrontmatter("\uFEFF---\r\nname: a\r\n---\r\nBody")).toEqual({
      present: true,
      attributes: { name: "a" },
      body: "Body",
    });
    expect(await parseFrontmatter("---\n---\nBody")).toEqual({ present: true, attributes: {}, body: "Body" });
    expect((await parseFrontmatter("---\ndescription: >\n  folded\n  text\n---\n")).attributes).toEqual({
      description: "folded text\n",
    });
  });

  it("treats a file without a closing --- as having no frontmatter, and reports YAML errors", async () => {
    expect(await parseFrontmatter("---\nname: a\nno closing line")).toEqual({
      present: false,
      attributes: {},
      body: "---\nname: a\nno closing line",
    });
    const invalid = await parseFrontmatter("---\nname: [unclosed\n---\nBody");
    expect(invalid.present).toBe(true);
    expect(invalid.body).toBe("Body");
    expect(invalid.error).toMatch(/^invalid YAML frontmatter: /);
    expect((await parseFrontmatter("---\n- a list\n---\n")).error).toBe(
      "the frontmatter is not a mapping of fields",
    );
    expect((await parseFrontmatter("---\nname: a\nname: b\n---\n")).error).toMatch(
      /^invalid YAML frontmatter: .*unique/i,
    );
  });
});

describe("isValidSkillName", () => {
  it("accepts lowercase letters, digits and single inner hyphens, up to 64 characters", () => {
    for (const name of ["a", "pdf-tools", "x2", "a-b-c", "a".repeat(64)])
      expect(isValidSkillName(name)).toBe(true);
    for (const name of [
      "",
      "PDF",
      "pdf_tools",
      "-pdf",
      "pdf-",
      "pdf--tools",
      "pdf tools",
      "a".repeat(65),
      "é",
    ]) {
      expect(isValidSkillName(name)).toBe(false);
    }
  });
});

describe("loadSkills", () => {
  it("loads user and project skills, sorted by name, with their paths and sources", async () => {
    const root = await tempTree({
      "home/skills/zeta/SKILL.md": skillFile("zeta", "Last skill"),
      "home/skills/alpha/SKILL.md": skillFile("alpha", "First skill"),
      "project/.arbor/skills/mid/SKILL.md": skillFile("mid", "  Project skill  "),
      "home/skills/alpha/scripts/run.sh": "echo hi",
    });
    const { skills, warnings } = await loadSkills({ cwd: join(root, "project"), home: join(root, "home") });
    expect(warnings).toEqual([]);
    expect(skills).toEqual<Skill[]>([
      {
        name: "alpha",
        description: "First skill",
        path: join(root, "home/skills/alpha/SKILL.md"),
        baseDir: join(root, "home/skills/alpha"),
        source: "user",
      },
      {
        name: "mid",
        description: "Project skill",
        path: join(root, "project/.arbor/skills/mid/SKILL.md"),
        baseDir: join(root, "project/.arbor/skills/mid"),
        source: "project",
      },
      {
        name: "zeta",
        description: "Last skill",
        path: join(root, "home/skills/zeta/SKILL.md"),
        baseDir: join(root, "home/skills/zeta"),
        source: "user",
      },
    ]);
  });

  it("lets a project skill override a user skill of the same name, with a warning", async () => {
    const root = await tempTree({
      "home/skills/deploy/SKILL.md": skillFile("deploy", "User deploy"),
      "project/.arbor/skills/deploy/SKILL.md": skillFile("deploy", "Project deploy"),
    });
    const { skills, warnings } = await loadSkills({ cwd: join(root, "project"), home: join(root, "home") });
    expect(skills.map((skill) => [skill.name, skill.description, skill.source])).toEqual([
      ["deploy", "Project deploy", "project"],
    ]);
    expect(warnings).toEqual([
      `The project skill "deploy" (${join(root, "project/.arbor/skills/deploy/SKILL.md")}) overrides the user skill of the same name (${join(root, "home/skills/deploy/SKILL.md")}).`,
    ]);
  });

  it("rejects invalid skills with a warning each and keeps the valid ones", async () => {
    const root = await tempTree({
      "skills/good/SKILL.md": skillFile("good", "Fine"),
      "skills/no-frontmatter/SKILL.md": "Just text.",
      "skills/bad-yaml/SKILL.md": "---\nname: [bad-yaml\n---\n",
      "skills/no-name/SKILL.md": "---\ndescription: Nameless\n---\n",
      "skills/Upper/SKILL.md": skillFile("Upper", "Uppercase"),
      "skills/folder/SKILL.md": skillFile("other-name", "Mismatch"),
      "skills/no-description/SKILL.md": "---\nname: no-description\n---\n",
      "skills/blank-description/SKILL.md": "---\nname: blank-description\ndescription: '   '\n---\n",
      "skills/numeric/SKILL.md": "---\nname: 42\ndescription: Numeric name\n---\n",
      "skills/SKILL.md/SKILL.md": null,
    });
    const { skills, warnings } = await loadSkillsFromDirectory(join(root, "skills"), "user");
    expect(skills.map((skill) => skill.name)).toEqual(["good"]);
    const path = (folder: string) => join(root, "skills", folder, "SKILL.md");
    expect(warnings).toEqual([
      `Cannot read skill ${path("SKILL.md")}: it is a directory`,
      `Skill ${path("Upper")} is ignored: its name "Upper" is not valid (1 to 64 lowercase letters, digits and single hyphens, e.g. "pdf-tools").`,
      expect.stringMatching(new RegExp(`^Skill ${path("bad-yaml")} is ignored: invalid YAML frontmatter: `)),
      `Skill ${path("blank-description")} is ignored: its frontmatter has no \`description\`.`,
      `Skill ${path("folder")} is ignored: its name "other-name" does not match its folder "folder".`,
      `Skill ${path("no-description")} is ignored: its frontmatter has no \`description\`.`,
      `Skill ${path("no-frontmatter")} is ignored: it has no frontmatter (a first line \`---\`, then \`name:\` and \`description:\`, then \`---\`).`,
      `Skill ${path("no-name")} is ignored: its frontmatter has no \`name\`.`,
      `Skill ${path("numeric")} is ignored: its \`name\` is not text: 42.`,
    ]);
  });

  it("skips folders without SKILL.md, hidden folders and plain files silently", async () => {
    const root = await tempTree({
      "skills/assets/readme.txt": "not a skill",
      "skills/.hidden/SKILL.md": skillFile("hidden", "Hidden"),
      "skills/loose.md": skillFile("loose", "A file, not a folder"),
      "skills/real/SKILL.md": skillFile("real", "Real"),
    });
    const { skills, warnings } = await loadSkillsFromDirectory(join(root, "skills"), "project");
    expect(skills.map((skill) => skill.name)).toEqual(["real"]);
    expect(warnings).toEqual([]);
    expect(await loadSkillsFromDirectory(join(root, "missing"), "user")).toEqual({
      skills: [],
      warnings: [],
    });
  });

  it("marks disable-model-invocation skills and keeps over-long descriptions with a warning", async () => {
    const long = "x".repeat(MAX_SKILL_DESCRIPTION_LENGTH + 1);
    const root = await tempTree({
      "skills/manual/SKILL.md":
        "---\nname: manual\ndescription: Only on request\ndisable-model-invocation: true\n---\n",
      "skills/wordy/SKILL.md": skillFile("wordy", long),
    });
    const { skills, warnings } = await loadSkillsFromDirectory(join(root, "skills"), "user");
    expect(skills.map((skill) => [skill.name, skill.disableModelInvocation])).toEqual([
      ["manual", true],
      ["wordy", undefined],
    ]);
    expect(warnings).toEqual([
      `Skill ${join(root, "skills/wordy/SKILL.md")} has a description of 1025 characters; keep it under 1024, as it is sent with every request.`,
    ]);
  });

  it("reads the skills directory once when the home is the project's .arbor", async () => {
    const root = await tempTree({ "project/.arbor/skills/only/SKILL.md": skillFile("only", "Once") });
    const { skills, warnings } = await loadSkills({
      cwd: join(root, "project"),
      home: join(root, "project/.arbor"),
    });
    expect(skills.map((skill) => [skill.name, skill.source])).toEqual([["only", "user"]]);
    expect(warnings).toEqual([]);
  });
});
