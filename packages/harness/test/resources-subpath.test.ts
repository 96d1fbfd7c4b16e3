import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import * as root from "@arbor/harness";
import * as resources from "@arbor/harness/resources";
import { MemorySessionStore } from "@arbor/session-store";
import { afterAll, describe, expect, it } from "vitest";

const SOURCE = fileURLToPath(new URL("../src/", import.meta.url));

/** Every source file the module graph of `entry` reaches through relative imports (type imports included). */
function moduleGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:import|export)\s[^;]*?from\s+["'](\.[^"']+)["']/gs)) {
      const target = resolve(dirname(file), match[1]!.replace(/\.js$/, ".ts"));
      if (existsSync(target)) pending.push(target);
    }
  }
  return seen;
}

const roots: string[] = [];
afterAll(async () => {
  for (const directory of roots) await rm(directory, { recursive: true, force: true });
});

async function project(): Promise<{ home: string; cwd: string }> {
  const directory = await mkdtemp(join(tmpdir(), "arbor-resources-"));
  roots.push(directory);
  const home = join(directory, "home");
  const cwd = join(directory, "project");
  await mkdir(join(home, "prompts"), { recursive: true });
  await mkdir(cwd, { recursive: true });
  await writeFile(join(cwd, "AGENTS.md"), "Never touch the legacy folder.");
  await writeFile(join(home, "prompts/review.md"), "Review $1 carefully.");
  return { home, cwd };
}

describe("@arbor/harness/resources", () => {
  it("is a subpath of its own: the root entry's module graph reaches none of its files", () => {
    const graph = moduleGraph(join(SOURCE, "index.ts"));
    const reached = [...graph].filter((file) => file.startsWith(join(SOURCE, "resources")));
    expect(reached).toEqual([]);
    expect(graph.size).toBeGreaterThan(10);
    for (const name of [
      "loadHarnessResources",
      "buildSystemPrompt",
      "expandInput",
      "loadSkills",
      "SKILL_COMMAND_PREFIX",
    ]) {
      expect(name in root).toBe(false);
      expect(name in resources).toBe(true);
    }
  });

  it("a harness without resources reads no files, expands nothing and sends no system prompt", async () => {
    const { cwd } = await project();
    const provider = createScriptedProvider([script.text("ok")]);
    const harness = root.createHarness({
      streamFn: provider.stream,
      model: provider.model,
      store: new MemorySessionStore(),
      cwd,
      recallTool: false,
    });
    const session = await harness.newSession();
    expect(session.resources).toEqual(root.emptyHarnessResources());
    expect(session.systemPrompt).toBe("");
    await session.prompt("/review main.ts");
    expect(provider.calls[0]!.context.messages.at(-1)).toMatchObject({ role: "user" });
    expect(JSON.stringify(provider.calls[0]!.context.messages)).toContain("/review main.ts");
    await harness.close();
  });

  it("createResourceLoader and createSystemPromptBuilder give a harness Arbor's files and coding prompt", async () => {
    const { home, cwd } = await project();
    const provider = createScriptedProvider([script.text("ok")]);
    const harness = root.createHarness({
      streamFn: provider.stream,
      model: provider.model,
      store: new MemorySessionStore(),
      cwd,
      recallTool: false,
      resources: resources.createResourceLoader({ home }),
      systemPrompt: resources.createSystemPromptBuilder({ appendPrompt: "Answer in English." }),
    });
    const session = await harness.newSession();
    expect(session.resources.promptTemplates.map((template) => template.name)).toEqual(["review"]);
    expect(session.systemPrompt).toContain(resources.ROLE_STATEMENT);
    expect(session.systemPrompt).toContain("Never touch the legacy folder.");
    expect(session.systemPrompt.endsWith("Answer in English.")).toBe(true);
    let expanded: root.ExpandedInput | undefined;
    session.on("before_agent_start", (event) => {
      expanded = event.expanded;
    });
    await session.prompt("/review main.ts");
    expect(expanded).toEqual({ text: "Review main.ts carefully.", kind: "template", name: "review" });
    expect(provider.calls[0]!.context.systemPrompt).toBe(session.systemPrompt);
    expect(JSON.stringify(provider.calls[0]!.context.messages)).toContain("Review main.ts carefully.");
    await harness.close();
  });
});
