import { describe, expect, it } from "vitest";
import type { HarnessResources } from "../src/index.js";
import {
  buildSystemPrompt,
  defaultGuidelines,
  formatPromptDate,
  ROLE_STATEMENT,
  type SystemPromptOptions,
} from "../src/resources/system-prompt.js";

// A local-time date, so that the calendar date is the same in every time zone.
const DATE = new Date(2026, 2, 14, 12, 0, 0);

const TOOLS = [
  { name: "read", description: "Read a file's lines.\nSecond line is not shown." },
  { name: "edit", description: "Replace exact text in a file" },
  { name: "write", description: "Create or overwrite a file" },
  { name: "bash", description: "Run a shell command" },
  { name: "grep", description: "Search file contents" },
  { name: "recall", description: "Recall replaced messages" },
];

const RESOURCES: HarnessResources = {
  contextFiles: [
    { path: "/home/me/.arbor/AGENTS.md", content: "Always answer in English.\n" },
    { path: "/work/shop/AGENTS.md", content: "Use pnpm, never npm." },
  ],
  skills: [
    {
      name: "pdf-tools",
      description: "Extract text and tables\nfrom PDF files.",
      path: "/home/me/.arbor/skills/pdf-tools/SKILL.md",
      baseDir: "/home/me/.arbor/skills/pdf-tools",
      source: "user",
    },
    {
      name: "release",
      description: "Cut a release (user only).",
      path: "/work/shop/.arbor/skills/release/SKILL.md",
      baseDir: "/work/shop/.arbor/skills/release",
      source: "project",
      disableModelInvocation: true,
    },
  ],
  promptTemplates: [],
  warnings: [],
};

function options(overrides: Partial<SystemPromptOptions> = {}): SystemPromptOptions {
  return { cwd: "/work/shop", tools: TOOLS, resources: RESOURCES, date: DATE, ...overrides };
}

describe("buildSystemPrompt", () => {
  it("builds role, tools, guidelines, context files, skills, date and cwd (snapshot)", () => {
    expect(buildSystemPrompt(options())).toMatchInlineSnapshot(`
      "You are Arbor, an expert coding assistant operating in the user's project. You help by reading files, running commands, editing code and writing new files, and you explain what you did.

      # Tools

      - read: Read a file's lines.
      - edit: Replace exact text in a file
      - write: Create or overwrite a file
      - bash: Run a shell command
      - grep: Search file contents
      - recall: Recall replaced messages

      # Guidelines

      - Prefer the grep tool to bash for exploring files: faster, and .gitignore is respected.
      - Read a file before you edit it.
      - Use edit for targeted changes: the old text must match the file exactly.
      - Use write only for new files or complete rewrites.
      - Earlier parts of the conversation may have been replaced by a summary. When you need an exact detail the summary lacks (code, an error message, a command's output), get the original messages back with recall instead of guessing.
      - Be concise in your responses.
      - Show file paths clearly when you work with files.

      # Project context

      Instructions from the user's and the project's context files, outermost first. When they disagree, the later (more specific) file wins.

      ## /home/me/.arbor/AGENTS.md

      Always answer in English.

      ## /work/shop/AGENTS.md

      Use pnpm, never npm.

      # Skills

      Skills hold instructions for specific tasks. When a task matches a skill's description, read its file with the read tool before you start and follow it; paths in a skill are relative to the skill's directory.

      - pdf-tools: Extract text and tables from PDF files.
        File: /home/me/.arbor/skills/pdf-tools/SKILL.md

      # Environment

      Current date: 2026-03-14 (Saturday)
      Working directory: /work/shop"
    `);
  });

  it("is deterministic for the same input", () => {
    expect(buildSystemPrompt(options())).toBe(buildSystemPrompt(options()));
    expect(buildSystemPrompt(options({ date: new Date(2026, 2, 15, 9) }))).toContain(
      "Current date: 2026-03-15 (Sunday)",
    );
  });

  it("replaces role and default guidelines with customPrompt; tools, context, skills and environment follow", () => {
    const prompt = buildSystemPrompt(
      options({ customPrompt: "  You are a release bot.  ", guidelines: ["Never push to main."] }),
    );
    expect(prompt.startsWith("You are a release bot.\n\n# Tools\n\n- read: Read a file's lines.\n")).toBe(
      true,
    );
    expect(prompt).not.toContain(ROLE_STATEMENT);
    expect(prompt).not.toContain("Be concise");
    expect(prompt).toContain("# Guidelines\n\n- Never push to main.\n\n# Project context");
    expect(prompt).toContain("## /work/shop/AGENTS.md\n\nUse pnpm, never npm.");
    expect(prompt).toContain("- pdf-tools: Extract text and tables from PDF files.");
    expect(prompt.endsWith("Current date: 2026-03-14 (Saturday)\nWorking directory: /work/shop")).toBe(true);
  });

  it("appends appendPrompt at the very end and extra guidelines after the default ones", () => {
    const prompt = buildSystemPrompt(
      options({ appendPrompt: "Answer in haiku.\n", guidelines: ["Run the tests."] }),
    );
    expect(prompt.endsWith("Working directory: /work/shop\n\nAnswer in haiku.")).toBe(true);
    expect(prompt).toContain("- Show file paths clearly when you work with files.\n- Run the tests.\n\n");
  });

  it("handles no tools, no context files and no listed skills", () => {
    const prompt = buildSystemPrompt({
      cwd: "/tmp/x",
      tools: [],
      date: DATE,
      resources: { contextFiles: [], skills: [RESOURCES.skills[1]!], promptTemplates: [], warnings: [] },
    });
    expect(prompt).toBe(
      `${ROLE_STATEMENT}\n\n# Tools\n\nNo tools are available: answer from what you know and what the user gives you.\n\n` +
        "# Guidelines\n\n- Be concise in your responses.\n- Show file paths clearly when you work with files.\n\n" +
        "# Environment\n\nCurrent date: 2026-03-14 (Saturday)\nWorking directory: /tmp/x",
    );
  });

  it("cuts very long tool descriptions and asks to read skills without naming a missing read tool", () => {
    const prompt = buildSystemPrompt(options({ tools: [{ name: "long", description: "x".repeat(300) }] }));
    expect(prompt).toContain(`- long: ${"x".repeat(199)}…\n`);
    expect(prompt).toContain("When a task matches a skill's description, read its file before you start");
  });
});

describe("defaultGuidelines", () => {
  it("depends on the active tools", () => {
    expect(defaultGuidelines(["bash"])).toEqual([
      "Use bash for file operations such as ls, rg and find.",
      "Be concise in your responses.",
      "Show file paths clearly when you work with files.",
    ]);
    expect(defaultGuidelines(["bash", "grep", "find", "ls"])[0]).toBe(
      "Prefer the grep, find and ls tools to bash for exploring files: faster, and .gitignore is respected.",
    );
    expect(defaultGuidelines(["edit"])).not.toContain("Read a file before you edit it.");
    expect(defaultGuidelines(["read", "edit"])).toContain("Read a file before you edit it.");
  });
});

describe("formatPromptDate", () => {
  it("formats the local calendar date with its weekday", () => {
    expect(formatPromptDate(new Date(2026, 0, 1, 0, 0))).toBe("2026-01-01 (Thursday)");
    expect(formatPromptDate(new Date(2024, 1, 29, 23, 59))).toBe("2024-02-29 (Thursday)");
  });
});
