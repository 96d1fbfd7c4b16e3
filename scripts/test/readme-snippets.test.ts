import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { readmeQuickStart } from "../readme-quick-start.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const run = promisify(execFile);
const written: string[] = [];

afterEach(() => {
  for (const file of written.splice(0)) rmSync(file, { force: true, recursive: true });
});

/** The first ```ts block of a README (its quick start). */
function firstSnippet(readme: string): string {
  const { code } = readmeQuickStart(readFileSync(join(root, readme), "utf8"));
  if (!code) throw new Error(`${readme} has no ts snippet`);
  return code;
}

describe("README snippets run as written", () => {
  it("packages/ai-providers quick start", async () => {
    // Examples' package resolves the workspace packages, so the snippet runs from there.
    const file = join(root, "examples", `.readme-snippet-${process.pid}.ts`);
    written.push(file);
    writeFileSync(
      file,
      `${firstSnippet("packages/ai-providers/README.md")}\nconsole.log(JSON.stringify(message));\n`,
    );
    const { stdout } = await run(
      join(root, "node_modules", ".bin", "tsx"),
      ["--conditions=@arbor/source", file],
      {
        cwd: root,
      },
    );
    const lines = stdout.trim().split("\n");
    const final = JSON.parse(lines.at(-1)!) as {
      stopReason: string;
      content: { type: string; arguments: unknown }[];
    };
    expect(final.stopReason).toBe("toolUse");
    expect(final.content[0]).toMatchObject({ type: "toolCall", arguments: { timeZone: "Europe/Paris" } });
    expect(lines.length).toBeGreaterThan(2); // the partial tool calls printed while streaming
  });

  it("packages/app-runtime quick start", async () => {
    const file = join(root, "examples", `.readme-snippet-app-runtime-${process.pid}.ts`);
    const home = mkdtempSync(join(tmpdir(), "arbor-readme-home-"));
    written.push(file, home);
    writeFileSync(
      file,
      firstSnippet("packages/app-runtime/README.md")
        .replace("console.log(", "console.log(JSON.stringify(")
        .replace(".at(-1));", ".at(-1)));"),
    );
    const env: NodeJS.ProcessEnv = { ...process.env, ARBOR_HOME: home };
    delete env.ANTHROPIC_API_KEY;
    const { stdout } = await run(
      join(root, "node_modules", ".bin", "tsx"),
      ["--conditions=@arbor/source", file],
      {
        cwd: root,
        env,
      },
    );
    const last = JSON.parse(stdout.trim().split("\n").at(-1)!) as {
      role: string;
      content: { text: string }[];
    };
    expect(last.role).toBe("assistant");
    expect(last.content[0]?.text).toMatch(/^Hello! I am Arbor's offline scripted model/);
  });
});
