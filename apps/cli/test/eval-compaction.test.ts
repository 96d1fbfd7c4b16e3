import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { sandbox } from "./cli-helpers.js";

/** The built, bundled executable (`pnpm exec turbo run build` makes it). */
const BINARY = fileURLToPath(new URL("../dist/arbor.js", import.meta.url));
const FIXTURES = fileURLToPath(new URL("../../../fixtures/pi-sessions", import.meta.url));

function arbor(args: string[], cwd: string, env: Record<string, string>) {
  expect(existsSync(BINARY), `${BINARY} is missing: build the CLI first`).toBe(true);
  return spawnSync(process.execPath, [BINARY, ...args], { cwd, env, encoding: "utf8" });
}

describe("arbor eval compaction", () => {
  const fixtures = readdirSync(FIXTURES)
    .filter((file) => file.endsWith(".jsonl"))
    .sort()
    .map((file) => join(FIXTURES, file));

  it("scores the fixtures offline (extractive summarizer and fallback) as a table and as JSON", () => {
    const box = sandbox();
    const table = arbor(["eval", "compaction", ...fixtures, "--generate", "120"], box.cwd, box.env);
    expect(table.stderr).toBe("");
    expect(table.status).toBe(0);
    expect(table.stdout).toContain("| session | summarizer | status | artifacts |");
    expect(table.stdout).toMatch(/\| generated-120-turns \| eval\/extractive \| compacted \| \d+% \|/);
    expect(table.stdout).toContain(
      "| 01-plain-chat.anthropic.jsonl | eval/fallback | compacted (fallback: model_error)",
    );

    const json = arbor(["eval", "compaction", fixtures[1]!, "--json"], box.cwd, box.env);
    expect(json.status).toBe(0);
    const results = JSON.parse(json.stdout) as { name: string; summarizer: string; status: string }[];
    expect(results.map((result) => [result.name, result.summarizer])).toEqual([
      ["03-tool-calls-write-read-bash.openai-completions.jsonl", "eval/extractive"],
      ["03-tool-calls-write-read-bash.openai-completions.jsonl", "eval/fallback"],
    ]);
    expect(existsSync(join(box.home, "sessions"))).toBe(false); // nothing was written
  });

  it("--pruning also compares each session without and with the pruning layer", () => {
    const box = sandbox();
    const table = arbor(["eval", "compaction", "--generate", "120", "--pruning"], box.cwd, box.env);
    expect(table.stderr).toBe("");
    expect(table.status).toBe(0);
    expect(table.stdout).toContain("| session | summarizer | status | artifacts |");
    expect(table.stdout).toContain(
      "| without: status | calls | freed | freed/call | artifacts | with pruning: status |",
    );
    expect(table.stdout).toMatch(
      /\| generated-120-turns \| eval\/extractive \| \d+ \| compacted \| \d+ \| .* \| pruned \| \d+ \| 0 \|/,
    );

    const json = arbor(["eval", "compaction", "--generate", "40", "--pruning", "--json"], box.cwd, box.env);
    const parsed = JSON.parse(json.stdout) as {
      results: unknown[];
      pruning: { withPruning: { status: string } }[];
    };
    expect(parsed.results).toHaveLength(2);
    expect(parsed.pruning.map((comparison) => comparison.withPruning.status)).toHaveLength(2);
  });

  it("says what to do for a missing file, no sessions, or --recall without a model", () => {
    const box = sandbox();
    const missing = arbor(["eval", "compaction", "./nope.jsonl"], box.cwd, box.env);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^arbor eval compaction: .*nope\.jsonl/);
    expect(missing.stderr).not.toContain("    at ");
    const notSession = join(box.cwd, "notes.jsonl");
    writeFileSync(notSession, "hello\n");
    const bad = arbor(["eval", "compaction", notSession], box.cwd, box.env);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("is not a session file");
    const none = arbor(["eval", "compaction"], box.cwd, box.env);
    expect(none.status).toBe(1);
    expect(none.stderr).toContain("--generate <turns>");
    const recall = arbor(["eval", "compaction", fixtures[0]!, "--recall"], box.cwd, box.env);
    expect(recall.status).toBe(1);
    expect(recall.stderr).toContain("--summarizer provider/model");
    const unknown = arbor(
      ["eval", "compaction", fixtures[0]!, "--summarizer", "madeup/model-x"],
      box.cwd,
      box.env,
    );
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('Unknown provider "madeup"');
  });

  it("summarizes with the model --summarizer provider/model names", () => {
    const box = sandbox();
    const run = arbor(
      ["eval", "compaction", fixtures[0]!, "--summarizer", "scripted/demo"],
      box.cwd,
      box.env,
    );
    expect(run.status).toBe(0);
    expect(run.stdout).toContain("| scripted/demo | compacted |");
  });
});
