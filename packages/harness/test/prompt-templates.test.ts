import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  expandPromptTemplate,
  loadPromptTemplates,
  loadPromptTemplatesFromDirectory,
  parseCommandArguments,
} from "../src/resources/prompt-templates.js";

const roots: string[] = [];

async function tempTree(files: Record<string, string | null>): Promise<string> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "arbor-prompts-")));
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

describe("parseCommandArguments", () => {
  it("splits at whitespace", () => {
    expect(parseCommandArguments("  a  b\tc\nd ")).toEqual(["a", "b", "c", "d"]);
    expect(parseCommandArguments("")).toEqual([]);
    expect(parseCommandArguments("   ")).toEqual([]);
  });

  it("groups quoted words like a shell", () => {
    expect(parseCommandArguments('fix "the login bug" now')).toEqual(["fix", "the login bug", "now"]);
    expect(parseCommandArguments("'single quoted' x")).toEqual(["single quoted", "x"]);
    expect(parseCommandArguments('--title="a b" c')).toEqual(["--title=a b", "c"]);
    expect(parseCommandArguments('"a b"c d')).toEqual(["a bc", "d"]);
    expect(parseCommandArguments("\"\" x ''")).toEqual(["", "x", ""]);
    expect(parseCommandArguments('"say \\"hi\\" \\\\ now"')).toEqual(['say "hi" \\ now']);
    expect(parseCommandArguments("'no \\escapes'")).toEqual(["no \\escapes"]);
    expect(parseCommandArguments('"it\'s"')).toEqual(["it's"]);
  });

  it("keeps apostrophes and unclosed quotes as ordinary characters", () => {
    expect(parseCommandArguments("don't break it")).toEqual(["don't", "break", "it"]);
    expect(parseCommandArguments("it's Bob's 'book'")).toEqual(["it's", "Bob's", "book"]);
    expect(parseCommandArguments('say "hello world')).toEqual(["say", '"hello', "world"]);
    expect(parseCommandArguments("C:\\path\\to file")).toEqual(["C:\\path\\to", "file"]);
  });
});

describe("expandPromptTemplate", () => {
  it("fills $1, $2, … with the arguments and empty text for missing ones", () => {
    expect(expandPromptTemplate("Review $1 for $2.", 'src/a.ts "security issues"')).toBe(
      "Review src/a.ts for security issues.",
    );
    expect(expandPromptTemplate("[$1][$2][$3]", "only")).toBe("[only][][]");
    expect(expandPromptTemplate("$10|$1", "a b c d e f g h i j")).toBe("j|a");
  });

  it("fills $@ with the arguments joined by spaces and $ARGUMENTS with the text as typed", () => {
    expect(expandPromptTemplate("All: $@", ' one  "two three" ')).toBe("All: one two three");
    expect(expandPromptTemplate("Raw: $ARGUMENTS", ' one  "two three" ')).toBe('Raw: one  "two three"');
    expect(expandPromptTemplate("$1 / $@ / $ARGUMENTS", "")).toBe(" /  / ");
  });

  it("never expands placeholders that come from the arguments", () => {
    expect(expandPromptTemplate("A=$1 B=$2", "$2 $ARGUMENTS")).toBe("A=$2 B=$ARGUMENTS");
  });

  it("leaves $0 and other dollar signs alone", () => {
    expect(expandPromptTemplate("cost $0 and $x and $$1", "5")).toBe("cost $0 and $x and $5");
  });

  it("appends the arguments after a blank line when the template has no placeholder", () => {
    expect(expandPromptTemplate("Explain this code.", "src/a.ts")).toBe("Explain this code.\n\nsrc/a.ts");
    expect(expandPromptTemplate("Explain this code.", "  ")).toBe("Explain this code.");
    expect(expandPromptTemplate("", "just args")).toBe("just args");
  });
});

describe("loadPromptTemplates", () => {
  it("loads *.md from the user's and the project's prompts, sorted, with descriptions", async () => {
    const root = await tempTree({
      "home/prompts/review.md": "---\ndescription: Review a file\n---\n\nReview $1 carefully.\n\n",
      "home/prompts/notes.txt": "not a template",
      "home/prompts/.draft.md": "hidden",
      "project/.arbor/prompts/explain.md": "Explain $@",
      "project/.arbor/prompts/nested/inner.md": "not loaded (subdirectory)",
    });
    const { promptTemplates, warnings } = await loadPromptTemplates({
      cwd: join(root, "project"),
      home: join(root, "home"),
    });
    expect(warnings).toEqual([]);
    expect(promptTemplates).toEqual([
      {
        name: "explain",
        content: "Explain $@",
        path: join(root, "project/.arbor/prompts/explain.md"),
        source: "project",
      },
      {
        name: "review",
        description: "Review a file",
        content: "Review $1 carefully.",
        path: join(root, "home/prompts/review.md"),
        source: "user",
      },
    ]);
  });

  it("lets a project template override a user template, with a warning", async () => {
    const root = await tempTree({
      "home/prompts/fix.md": "user fix",
      "project/.arbor/prompts/fix.md": "project fix",
    });
    const { promptTemplates, warnings } = await loadPromptTemplates({
      cwd: join(root, "project"),
      home: join(root, "home"),
    });
    expect(promptTemplates.map((template) => [template.name, template.content, template.source])).toEqual([
      ["fix", "project fix", "project"],
    ]);
    expect(warnings).toEqual([
      `The project prompt template "fix" (${join(root, "project/.arbor/prompts/fix.md")}) overrides the user prompt template of the same name (${join(root, "home/prompts/fix.md")}).`,
    ]);
  });

  it("warns about names that cannot be typed, invalid frontmatter and unreadable files", async () => {
    const root = await tempTree({
      "prompts/two words.md": "x",
      "prompts/bad-yaml.md": "---\ndescription: [oops\n---\nBody kept",
      "prompts/number.md": "---\ndescription: 12\n---\nBody",
      "prompts/folder.md": null,
    });
    const { promptTemplates, warnings } = await loadPromptTemplatesFromDirectory(
      join(root, "prompts"),
      "user",
    );
    expect(
      promptTemplates.map((template) => [template.name, template.description, template.content]),
    ).toEqual([
      ["bad-yaml", undefined, "Body kept"],
      ["number", undefined, "Body"],
    ]);
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^Prompt template ${join(root, "prompts/bad-yaml.md")}: invalid YAML frontmatter: `),
      ),
      `Cannot read prompt template ${join(root, "prompts/folder.md")}: it is a directory`,
      `Prompt template ${join(root, "prompts/number.md")}: its \`description\` is not text; it is ignored.`,
      `Prompt template ${join(root, "prompts/two words.md")} is ignored: "two words" cannot be typed as a command (use letters, digits, ".", "_" and "-").`,
    ]);
  });
});
