/**
 * `arbor` cold start and the size of `--mode json`, on the BUILT CLI (`node apps/cli/dist/arbor.js`; run
 * `pnpm build` first).
 *
 * Each command is started as a fresh process, round-robin with the baseline — a bare `node -e ""` measured in
 * the same run — so that a busy machine slows both alike; the median and the fastest of the runs are reported,
 * with their ratio to the baseline's median. Goals (issue 8): `arbor --version` ≤ 150 ms and a scripted
 * print-mode answer (`arbor -p hi --provider scripted`) ≤ 300 ms, where the pi agent needs 807 ms and ~1.0 s
 * (bare node: 61 ms); `--mode json` ≤ 3 bytes per character of a 2,000-word answer (the pi agent: 435).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Bench } from "./bench.js";
import { ms } from "./measure.js";

const CLI = fileURLToPath(new URL("../../apps/cli/dist/arbor.js", import.meta.url));
const RUNS = 11;

interface Command {
  name: string;
  args: string[];
  goalMs?: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): { ms: number; stdout: string; status: number } {
  const start = performance.now();
  const result = spawnSync(process.execPath, args, {
    env,
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
  const elapsed = performance.now() - start;
  if (result.status !== 0) throw new Error(`${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return { ms: elapsed, stdout: result.stdout, status: result.status };
}

const bench: Bench = {
  name: "cli: cold start of the built arbor, and bytes of --mode json per answer character",
  run() {
    if (!existsSync(CLI)) return [`skipped: ${CLI} does not exist; run \`pnpm build\` first.`];
    const root = mkdtempSync(join(tmpdir(), "arbor-cli-bench-"));
    // No keys and no local server: the provider is always the one named.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: root,
      ARBOR_HOME: join(root, "home"),
      ARBOR_LOCAL_SERVER_URL: "http://127.0.0.1:9/v1",
      NO_COLOR: "1",
    };
    const commands: Command[] = [
      { name: 'node -e "" (baseline)', args: ["-e", ""] },
      { name: "arbor --version", args: [CLI, "--version"], goalMs: 150 },
      { name: "arbor --help", args: [CLI, "--help"] },
      {
        name: "arbor -p hi --provider scripted",
        args: [CLI, "-p", "hi", "--provider", "scripted"],
        goalMs: 300,
      },
      {
        name: "  … with --no-session --no-tools",
        args: [CLI, "-p", "hi", "--provider", "scripted", "--no-session", "--no-tools"],
      },
    ];
    try {
      const times = commands.map(() => [] as number[]);
      for (let round = 0; round < RUNS + 1; round++) {
        commands.forEach((command, index) => {
          const { ms: elapsed } = run(command.args, env, root);
          if (round > 0) times[index]!.push(elapsed); // round 0 warms the disk cache
        });
      }
      const baseline = median(times[0]!);
      const lines = [
        `${RUNS} runs each, round-robin; median (fastest), and the median's ratio to bare node's median.`,
        "",
        "| command | median | fastest | × node | over node | goal |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
      ];
      commands.forEach((command, index) => {
        const values = times[index]!;
        const middle = median(values);
        const goal =
          command.goalMs === undefined
            ? ""
            : `≤ ${command.goalMs} ms: ${middle <= command.goalMs ? "met" : "NOT met"}`;
        lines.push(
          `| ${command.name} | ${ms(middle)} | ${ms(Math.min(...values))} | ${(middle / baseline).toFixed(2)} | ${ms(middle - baseline)} | ${goal} |`,
        );
      });

      const json = run(
        [CLI, "--mode", "json", "-p", "words 2000", "--provider", "scripted", "--no-session"],
        env,
        root,
      ).stdout;
      const events = json
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; d?: string; message?: { role: string } });
      const answer = events
        .filter((event) => event.type === "text_delta")
        .map((event) => event.d)
        .join("");
      const bytes = Buffer.byteLength(json);
      const deltas = events.filter((event) => event.type === "text_delta").length;
      lines.push(
        "",
        `--mode json, a 2,000-word scripted answer: ${answer.length.toLocaleString("en-US")} characters, ` +
          `${bytes.toLocaleString("en-US")} bytes in ${events.length} lines (${deltas} text_delta lines): ` +
          `${(bytes / answer.length).toFixed(2)} bytes per answer character (goal ≤ 3; the pi agent: 435).`,
      );
      return lines;
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
};

export default bench;
