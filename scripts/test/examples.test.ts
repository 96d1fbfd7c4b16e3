import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const run = promisify(execFile);

describe("examples", () => {
  it("01-minimal streams a reply and a tool call, runs the tool and gets the answer", async () => {
    const tsx = join(root, "node_modules", ".bin", "tsx");
    const { stdout } = await run(
      tsx,
      ["--conditions=@arbor/source", join(root, "examples", "01-minimal.ts")],
      {
        cwd: root,
        env: { ...process.env, CI: "1" },
      },
    );
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toBe("--- model call 1");
    expect(lines).toContain('toolcall_end   [1] get_time({"timeZone":"Europe/Paris"})');
    expect(lines.some((line) => line.startsWith("done           stopReason=toolUse"))).toBe(true);
    expect(lines.some((line) => /^--- tool get_time -> .*\d\d:\d\d:\d\d/.test(line))).toBe(true);
    expect(lines.at(-1)).toMatch(/^done {11}stopReason=stop/);
    const answer = lines
      .filter(
        (line) => line.startsWith("text_delta") && lines.indexOf(line) > lines.indexOf("--- model call 2"),
      )
      .map((line) => JSON.parse(line.slice(line.indexOf('"'))) as string)
      .join("");
    expect(answer).toMatch(/^In Paris it is \d\d:\d\d:\d\d\. Anything else\?$/);
  });
});

/**
 * One line of output that only that example prints when it worked (a regular expression over one line).
 * A new example must add its line here.
 */
const EXPECTED_LINE: Record<string, RegExp> = {
  "01-minimal.ts": /^--- tool get_time -> .*\d\d:\d\d:\d\d/,
  "02-anthropic.ts": /^done {11}stopReason=stop {2}tokens: 95 in, 1200 cache read, 140 cache write, 21 out/,
  "03-openai-compatible.ts": /^Models at http:\/\/127\.0\.0\.1:\d+\/v1: fake-model$/,
  "04-agent-with-tools.ts":
    /^toolResult read_lines \(error\): Refused: \.\.\/package\.json is outside the examples directory\.$/,
  "05-compaction.ts": /^covers \d+ entries: \w+ \.\. \w+ \(still in the log\)$/,
  "06-harness-session.ts": /^reopened "Module review": context identical to before closing: true$/,
  "07-branching.ts": /^fork \w+ \(parent \w+\), 2 messages$/,
  "08-custom-store.ts": /^conformance: passed$/,
  "09-app-runtime.ts": /^session [\w-]+ saved in .*arbor-example-09-.*\/sessions\/.*\.jsonl$/,
  "10-extension-tool-guard.ts":
    /^tool bash: error: Refused by block-rm-rf: "rm -rf build" deletes recursively by force\./,
  "11-extension-compaction.ts": /^compacted by the extension \(fromHook: true\), \d+ tokens before$/,
};

describe("every example runs offline without keys", () => {
  const files = readdirSync(join(root, "examples")).filter((file) => /^\d\d-.*\.ts$/.test(file));

  it("has an expected line for every example", () => {
    expect(Object.keys(EXPECTED_LINE).sort()).toEqual([...files].sort());
  });

  it.each(files)("%s exits 0 and prints its own result line", async (file) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CI: "1" };
    delete env.ANTHROPIC_API_KEY;
    delete env.OPENAI_API_KEY;
    delete env.ARBOR_HOME;
    const { stdout } = await run(
      join(root, "node_modules", ".bin", "tsx"),
      ["--conditions=@arbor/source", join(root, "examples", file)],
      { cwd: root, env, timeout: 60_000 },
    );
    const expected = EXPECTED_LINE[file];
    expect(expected, `no expected line for ${file}`).toBeDefined();
    const lines = stdout.split("\n");
    expect(
      lines.some((line) => expected!.test(line)),
      `${file} printed no line matching ${expected}`,
    ).toBe(true);
  });
});
