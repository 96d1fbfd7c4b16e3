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
    const { stdout } = await run(tsx, ["--conditions=source", join(root, "examples", "01-minimal.ts")], {
      cwd: root,
      env: { ...process.env, CI: "1" },
    });
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

describe("every example runs offline without keys", () => {
  const files = readdirSync(join(root, "examples")).filter((file) => /^\d\d-.*\.ts$/.test(file));

  it.each(files)("%s exits 0 and prints", async (file) => {
    const env: NodeJS.ProcessEnv = { ...process.env, CI: "1" };
    delete env.ANTHROPIC_API_KEY;
    delete env.OPENAI_API_KEY;
    const { stdout } = await run(
      join(root, "node_modules", ".bin", "tsx"),
      ["--conditions=source", join(root, "examples", file)],
      { cwd: root, env, timeout: 60_000 },
    );
    expect(stdout.trim().split("\n").length).toBeGreaterThan(3);
  });
});
