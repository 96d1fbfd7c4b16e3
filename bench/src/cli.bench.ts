/**
 * `arbor` cold start and the size of `--mode json`, on the BUILT CLI (`node apps/cli/dist/arbor.js`; run
 * `pnpm build` first).
 *
 * Each command is started as a fresh process, round-robin with the baseline — a bare `node -e ""` measured in
 * the same run — so that a busy machine slows both alike; the median and the fastest of the runs are reported,
 * with their ratio to the baseline's median. Goals (issues 8 and 19): `arbor --version` ≤ 150 ms, and a
 * one-line print-mode answer ≤ 300 ms end to end, both from the scripted provider (`arbor -p hi --provider
 * scripted`) and from the real providers — Anthropic and OpenAI through their official SDKs — talking to the
 * local wire servers of `@internal/conformance` (`arbor -p hi --provider anthropic --base-url <server>`);
 * the pi agent needs 807 ms and ~1.0–1.9 s (bare node: 61 ms). For the wire-server rows the time from the
 * spawn to the server receiving the request is reported too, and their floors are measured in the same
 * rounds: the same request through Node's `fetch` alone and through each SDK alone (bundled like `arbor`;
 * see `sdk-floors.ts`), so a wire row's excess over its floor is what Arbor itself adds. `--mode json` ≤ 3
 * bytes per character of a 2,000-word answer (the pi agent: 435).
 *
 * `arbor` compiles its bundle through a V8 code cache (apps/cli/src/compile-cache.ts) in `$HOME/.cache/arbor`
 * of the bench's temporary home: round 0, not counted, makes it, as a user's first run would; one row runs
 * with the cache off, which is what every run costs the first time after an install or an upgrade.
 *
 * The processes are started with the asynchronous `spawn`: the wire servers live in this process's event
 * loop, which a `spawnSync` would block.
 *
 * `ARBOR_BENCH_COMPARE_CLI=<path to another build's arbor.js>` adds the print-mode rows for that build
 * too, measured in the same rounds (e.g. a build of the main branch, for before/after figures).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import {
  anthropicSse,
  chatFrames,
  chatTextChunks,
  completeAnthropicStream,
  type OpenAIWireRequest,
  ResponsesStream,
  responsesFrames,
  startFakeAnthropicServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import type { Bench } from "./bench.js";
import { ms } from "./measure.js";
import { buildSdkFloors } from "./sdk-floors.js";

const CLI = fileURLToPath(new URL("../../apps/cli/dist/arbor.js", import.meta.url));
const COMPARE_CLI = process.env.ARBOR_BENCH_COMPARE_CLI;
const RUNS = 11;
const ANSWER = "Hello! How can I help you today?";

interface Command {
  name: string;
  args: string[];
  goalMs?: number;
  /** Extra environment (a fake API key). */
  env?: NodeJS.ProcessEnv;
  /** The wire server whose request times are reported for this command. */
  server?: WireClock;
  /** The row this one's time is compared with: the same answer through the SDK alone. */
  floor?: string;
}

/** When each request reached a wire server (`performance.now()`), in arrival order. */
interface WireClock {
  arrivals: number[];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Runs one process to its end; resolves to its wall time, measured from just before the spawn. */
function run(
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<{ start: number; ms: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const child = spawn(process.execPath, args, { env, cwd, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      stdout += text;
    });
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text;
    });
    child.on("error", reject);
    child.on("close", (status) => {
      const elapsed = performance.now() - start;
      if (status !== 0) reject(new Error(`${args.join(" ")} exited ${status}: ${stderr}`));
      else resolve({ start, ms: elapsed, stdout });
    });
  });
}

/** Records the arrival time of every request a server stores in `requests`. */
function clockOf(requests: unknown[]): WireClock {
  const clock: WireClock = { arrivals: [] };
  const push = requests.push.bind(requests);
  requests.push = (...items: unknown[]) => {
    clock.arrivals.push(performance.now());
    return push(...items);
  };
  return clock;
}

/** The OpenAI server's answer, on whichever API the provider calls. */
function openAIAnswer(request: OpenAIWireRequest) {
  return {
    kind: "sse" as const,
    frames: request.path.includes("/responses")
      ? responsesFrames(new ResponsesStream().created().message("msg_1", ANSWER).completed().events)
      : chatFrames(chatTextChunks(ANSWER)),
  };
}

const bench: Bench = {
  name: "cli: cold start of the built arbor, and bytes of --mode json per answer character",
  async run() {
    if (!existsSync(CLI)) return [`skipped: ${CLI} does not exist; run \`pnpm build\` first.`];
    const root = mkdtempSync(join(tmpdir(), "arbor-cli-bench-"));
    const rounds = RUNS + 1;
    // Each round: the floors (two on the Anthropic server), then Arbor (and the compared build).
    const repliesPerServer = rounds * (COMPARE_CLI === undefined ? 4 : 5);
    const anthropic = await startFakeAnthropicServer(
      Array.from({ length: repliesPerServer }, () => ({
        kind: "stream" as const,
        events: completeAnthropicStream([anthropicSse.textBlock(0, ANSWER)]),
      })),
    );
    const openai = await startOpenAIWireServer(Array.from({ length: repliesPerServer }, () => openAIAnswer));
    // No keys and no local server: the provider is always the one named.
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: root,
      ARBOR_HOME: join(root, "home"),
      ARBOR_LOCAL_SERVER_URL: "http://127.0.0.1:9/v1",
      NO_COLOR: "1",
    };
    const anthropicClock = clockOf(anthropic.requests);
    const openaiClock = clockOf(openai.requests);
    const floors = await buildSdkFloors(join(root, "floors"));
    const ANTHROPIC_FLOOR = "node + @anthropic-ai/sdk alone, same request (floor)";
    const OPENAI_FLOOR = "node + openai SDK alone, same request (floor)";
    /** The print-mode rows of one build. */
    const printRows = (cli: string, label: string): Command[] => [
      {
        name: `arbor -p hi --provider scripted${label}`,
        args: [cli, "-p", "hi", "--provider", "scripted"],
        goalMs: 300,
      },
      {
        name: `arbor -p hi --provider anthropic --base-url <wire server>${label}`,
        args: [cli, "-p", "hi", "--provider", "anthropic", "--base-url", anthropic.url],
        env: { ANTHROPIC_API_KEY: "sk-ant-fake" },
        server: anthropicClock,
        goalMs: 300,
        floor: ANTHROPIC_FLOOR,
      },
      {
        name: `arbor -p hi --provider openai --base-url <wire server>${label}`,
        args: [cli, "-p", "hi", "--provider", "openai", "--base-url", openai.url],
        env: { OPENAI_API_KEY: "sk-fake" },
        server: openaiClock,
        goalMs: 300,
        floor: OPENAI_FLOOR,
      },
    ];
    const commands: Command[] = [
      { name: 'node -e "" (baseline)', args: ["-e", ""] },
      { name: "arbor --version", args: [CLI, "--version"], goalMs: 150 },
      { name: "arbor --help", args: [CLI, "--help"] },
      {
        name: "node: fetch one answer from the wire server (no SDK)",
        args: [floors.fetch, anthropic.url],
        server: anthropicClock,
      },
      { name: ANTHROPIC_FLOOR, args: [floors.anthropic, anthropic.url], server: anthropicClock },
      { name: OPENAI_FLOOR, args: [floors.openai, openai.url], server: openaiClock },
      ...printRows(CLI, ""),
      {
        // What the first run after an install or an upgrade costs: the bundle compiled from source.
        name: "arbor -p hi --provider anthropic --base-url <wire server>, compile cache off (a first run)",
        args: [CLI, "-p", "hi", "--provider", "anthropic", "--base-url", anthropic.url],
        env: { ANTHROPIC_API_KEY: "sk-ant-fake", ARBOR_COMPILE_CACHE: "off" },
        server: anthropicClock,
        floor: ANTHROPIC_FLOOR,
      },
      {
        name: "arbor -p hi --provider scripted --no-session --no-tools",
        args: [CLI, "-p", "hi", "--provider", "scripted", "--no-session", "--no-tools"],
      },
      ...(COMPARE_CLI === undefined ? [] : printRows(COMPARE_CLI, " (compared build)")),
    ];
    try {
      const times = commands.map(() => [] as number[]);
      const toRequest = commands.map(() => [] as number[]);
      for (let round = 0; round < rounds; round++) {
        for (const [index, command] of commands.entries()) {
          const seen = command.server?.arrivals.length ?? 0;
          const result = await run(command.args, { ...env, ...command.env }, root);
          if (command.server !== undefined) {
            if (!result.stdout.includes(ANSWER))
              throw new Error(`${command.name}: unexpected answer ${JSON.stringify(result.stdout)}`);
            const arrival = command.server.arrivals[seen];
            if (arrival === undefined) throw new Error(`${command.name}: the server received no request`);
            if (round > 0) toRequest[index]!.push(arrival - result.start);
          }
          if (round > 0) times[index]!.push(result.ms); // round 0 warms the disk cache
        }
      }
      const baseline = median(times[0]!);
      const lines = [
        `${RUNS} runs each, round-robin; median (fastest), and the median's ratio to bare node's median.`,
        "Request at: median time from the spawn to the wire server receiving the request.",
        "",
        "Over floor: the median's excess over the same answer through the SDK alone (the floor rows).",
        "",
        "| command | median | fastest | × node | over node | request at | over floor | goal |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |",
      ];
      commands.forEach((command, index) => {
        const values = times[index]!;
        const middle = median(values);
        const goal =
          command.goalMs === undefined
            ? ""
            : `≤ ${command.goalMs} ms: ${middle <= command.goalMs ? "met" : "NOT met"}`;
        const requestAt = toRequest[index]!.length > 0 ? ms(median(toRequest[index]!)) : "";
        const floorIndex = commands.findIndex((other) => other.name === command.floor);
        const overFloor = floorIndex < 0 ? "" : ms(middle - median(times[floorIndex]!));
        lines.push(
          `| ${command.name} | ${ms(middle)} | ${ms(Math.min(...values))} | ${(middle / baseline).toFixed(2)} | ${ms(middle - baseline)} | ${requestAt} | ${overFloor} | ${goal} |`,
        );
      });

      const json = (
        await run(
          [CLI, "--mode", "json", "-p", "words 2000", "--provider", "scripted", "--no-session"],
          env,
          root,
        )
      ).stdout;
      const events = json
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { type: string; delta?: string; message?: { role: string } });
      const answer = events
        .filter((event) => event.type === "text_delta")
        .map((event) => event.delta)
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
      await Promise.all([anthropic.close(), openai.close()]);
      rmSync(root, { recursive: true, force: true });
    }
  },
};

export default bench;
