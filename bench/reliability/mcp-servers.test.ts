/**
 * MCP servers that misbehave, through the real `arbor` binary in print mode: tool names the model APIs
 * refuse, a tool listed twice, names that clean up to the same one, broken input schemas, a server that
 * crashes at start, one that never answers `initialize`, one that hangs on `tools/list`, one that dies in the
 * middle of a call, one that never answers a call, a malformed result, a 5 MB result. Each trial configures
 * the bad server next to a good one in `settings.json` (10 s to start and 30 s per call for the bad one, 5 s
 * for the call that never ends) and asks a model server that refuses what Anthropic and OpenAI refuse (a tool
 * name outside `^[a-zA-Z0-9_-]{1,64}$`, two tools of one name). `arbor` must answer (exit 0), say each problem in one line naming the server (and
 * the tool), give the model a one-line error for a failed call, keep the good server's tools, never print a
 * stack trace and never hang past the timeouts.
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  chatFrames,
  chatTextChunks,
  chatToolCallChunks,
  type OpenAIWireReply,
  type OpenAIWireRequest,
  openAIErrorReply,
  startOpenAIWireServer,
} from "@internal/conformance";
import { describe, expect, it } from "vitest";
import {
  type Box,
  CONCURRENCY,
  inParallel,
  type Run,
  record,
  runArbor,
  STACK_TRACE,
  sandbox,
  trials,
} from "./support.js";

const FIXTURES = fileURLToPath(new URL("../../packages/mcp/test/fixtures/", import.meta.url));
const MISBEHAVING = join(FIXTURES, "misbehaving-server.mjs");
const GOOD = join(FIXTURES, "mcp-test-server.mjs");

/**
 * The bad server's timeouts in `settings.json` (the defaults are 30 s to start and 60 s per call): long
 * enough for a healthy server to load the SDK and start, and for a 5 MB answer to cross the pipe, while the
 * other trials' processes run too, on two busy cores. The server that never answers a call has 5 s.
 */
const START_TIMEOUT_MS = 10_000;
const CALL_TIMEOUT_MS = 30_000;
const SHORT_CALL_TIMEOUT_MS = 5000;

/**
 * A run may take this long before it counts as hung: the start timeout, a call timeout, up to 4 s to stop a
 * server that ignores its closed stdin, and the start of `arbor` on a busy machine.
 */
const HANG_MS = 60_000;

/** The model's final answer. */
const ANSWER = "All done with the tools.";

/** What Anthropic and OpenAI accept as a tool name. */
const VALID_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

interface BadServer {
  /** The row of the table. */
  kind: string;
  /** The fixture's behavior (`packages/mcp/test/fixtures/misbehaving-server.mjs`). */
  behavior: string;
  transport?: "stdio" | "http";
  /** The lines stderr must have about MCP, one each (and no other line naming an MCP server). */
  warnings: RegExp[];
  /** How many of the bad server's tools the model is offered. */
  offered: number;
  /** Its `callTimeoutMs` (default {@link CALL_TIMEOUT_MS}). */
  callTimeoutMs?: number;
  /** The bad server's tools the model calls (each pattern: every offered tool it matches). */
  calls?: RegExp;
  /** What the calls' results must say, one pattern per call (in any order). */
  results?: RegExp[];
  /** The results are errors: each must be one line naming the server and the tool. */
  failedCall?: boolean;
}

const SKIPPED = (tool: string, reason: string) =>
  new RegExp(`^arbor: MCP server "bad": tool "${tool}" skipped: ${reason}`);

const SERVERS: BadServer[] = [
  {
    kind: "a 100-character tool name (stdio)",
    behavior: "overlong-names",
    warnings: [],
    offered: 2,
    calls: /^mcp__bad__search_/,
    results: [/^search_a{40}_b{40}_repository_: mcp$/],
  },
  {
    kind: "a 100-character tool name (streamable HTTP)",
    behavior: "overlong-names",
    transport: "http",
    warnings: [],
    offered: 2,
    calls: /^mcp__bad__search_/,
    results: [/^search_a{40}_b{40}_repository_: mcp$/],
  },
  {
    kind: "a tool listed twice",
    behavior: "duplicate",
    warnings: [SKIPPED("echo", "listed twice \\(the first is kept\\)$")],
    offered: 2,
    calls: /^mcp__bad__echo$/,
    results: [/^echo: mcp$/],
  },
  {
    kind: "`x.y` and `x_y` (names that clean up to the same one)",
    behavior: "cleaning",
    warnings: [],
    offered: 2,
    calls: /^mcp__bad__x_y/,
    results: [/^x\.y: mcp$/, /^x_y: mcp$/],
  },
  {
    kind: 'tools named "" and "!!!"',
    behavior: "empty-names",
    warnings: [],
    offered: 3,
    calls: /^mcp__bad__tool_[0-9a-f]{8}$/,
    results: [/^: mcp$/, /^!!!: mcp$/],
  },
  {
    kind: "broken input schemas: not an object schema, an unknown type, a `$ref` to nothing",
    behavior: "broken-schemas",
    warnings: [
      SKIPPED("not_an_object", 'its inputSchema is of type "string", not an object schema$'),
      SKIPPED("bad_keyword", "its inputSchema does not compile: schema is invalid: "),
      SKIPPED("dangling_ref", "its inputSchema does not compile: can't resolve reference #/\\$defs/missing"),
    ],
    offered: 1,
    calls: /^mcp__bad__echo$/,
    results: [/^echo: mcp$/],
  },
  {
    kind: "crashes at start",
    behavior: "crash-on-start",
    warnings: [
      /^arbor: MCP server "bad" failed to start: .*\(stderr: fatal: could not read the configuration\)$/,
    ],
    offered: 0,
  },
  {
    kind: "never answers `initialize` (stdio)",
    behavior: "silent",
    warnings: [/^arbor: MCP server "bad" failed to start: no answer to initialize within 10000 ms$/],
    offered: 0,
  },
  {
    kind: "never answers `initialize` (streamable HTTP)",
    behavior: "silent",
    transport: "http",
    warnings: [/^arbor: MCP server "bad" failed to start: no answer to initialize within 10000 ms$/],
    offered: 0,
  },
  {
    kind: "hangs on `tools/list`",
    behavior: "hang-on-list",
    warnings: [/^arbor: MCP server "bad" failed to start: no answer to tools\/list within 10000 ms/],
    offered: 0,
  },
  {
    kind: "dies in the middle of a call",
    behavior: "die-mid-call",
    warnings: [],
    offered: 2,
    calls: /^mcp__bad__die$/,
    results: [
      /^MCP server "bad", tool "die": .*Connection closed \(stderr: die: exiting in the middle of a call\)$/,
    ],
    failedCall: true,
  },
  {
    kind: "never answers a call",
    behavior: "hang-on-call",
    callTimeoutMs: SHORT_CALL_TIMEOUT_MS,
    warnings: [],
    offered: 2,
    calls: /^mcp__bad__hang$/,
    results: [/^MCP server "bad", tool "hang": .*Request timed out/],
    failedCall: true,
  },
  {
    kind: "a malformed result (`content` is not a list)",
    behavior: "malformed-result",
    warnings: [],
    offered: 2,
    calls: /^mcp__bad__malformed$/,
    results: [/^MCP server "bad", tool "malformed": a malformed result \(its content is a string/],
    failedCall: true,
  },
  {
    kind: "a 5 MB result",
    behavior: "huge-result",
    warnings: [],
    offered: 2,
    calls: /^mcp__bad__huge$/,
    results: [/^x{1000}/],
  },
];

/** The tool names of a Chat Completions request. */
function toolNames(request: OpenAIWireRequest): string[] {
  const tools = (request.body?.tools ?? []) as { function?: { name?: string } }[];
  return tools.map((tool) => String(tool.function?.name ?? ""));
}

/** What a strict vendor says about the request's tool names (nothing when they are fine). */
function nameProblems(names: readonly string[]): string[] {
  const problems = names
    .filter((name) => !VALID_TOOL_NAME.test(name))
    .map((name) => `tool name ${JSON.stringify(name)} does not match ${VALID_TOOL_NAME}`);
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) problems.push(`two tools are named ${JSON.stringify(name)}`);
    seen.add(name);
  }
  return problems;
}

interface Observed {
  /** The turn's first request came. */
  asked: boolean;
  /** The tool names of the turn's first request. */
  offered: string[];
  /** The tool messages of the request after the calls. */
  results: string[];
  /** What the model server refused. */
  refused: string[];
}

/**
 * The model server of one trial: it refuses invalid or repeated tool names (400, as the vendors do), calls
 * the bad server's tools the case names (all in one response), then answers {@link ANSWER}.
 */
async function modelServer(server: BadServer) {
  const observed: Observed = { asked: false, offered: [], results: [], refused: [] };
  const reply = (request: OpenAIWireRequest): OpenAIWireReply => {
    const names = toolNames(request);
    const problems = nameProblems(names);
    if (problems.length > 0) {
      observed.refused.push(...problems);
      return openAIErrorReply(400, problems.join("; "));
    }
    const messages = (request.body?.messages ?? []) as { role: string; content?: unknown }[];
    const tools = messages.filter((message) => message.role === "tool");
    if (tools.length > 0) {
      observed.results = tools.map((message) => String(message.content ?? ""));
    } else if (names.length > 0 && !observed.asked) {
      // The turn's first request (others, without tools, are the harness's own: a title, a summary).
      observed.asked = true;
      observed.offered = names;
      const called = server.calls === undefined ? [] : names.filter((name) => server.calls!.test(name));
      if (called.length > 0) {
        return {
          kind: "sse",
          frames: chatFrames(
            chatToolCallChunks(
              called.map((name, index) => ({ id: `call_${index}`, name, arguments: { text: "mcp" } })),
            ),
          ),
        };
      }
    }
    return { kind: "sse", frames: chatFrames(chatTextChunks(ANSWER)) };
  };
  const wire = await startOpenAIWireServer([]);
  const refill = () => {
    while (wire.remaining < 8) wire.push(reply);
  };
  refill();
  const timer = setInterval(refill, 20);
  return {
    url: wire.url,
    observed,
    close: async () => {
      clearInterval(timer);
      await wire.close();
    },
  };
}

/** Writes the bad server (and the good one) into the box's `settings.json`. */
function configure(box: Box, server: BadServer, bad: Record<string, unknown>): void {
  const callTimeoutMs = server.callTimeoutMs ?? CALL_TIMEOUT_MS;
  const settings = {
    mcpServers: {
      good: { command: process.execPath, args: [GOOD, "--stdio"] },
      bad: { ...bad, startTimeoutMs: START_TIMEOUT_MS, callTimeoutMs },
    },
  };
  writeFileSync(join(box.home, "settings.json"), `${JSON.stringify(settings)}\n`);
}

/** The lines of stderr that speak of an MCP server. */
function mcpLines(stderr: string): string[] {
  return stderr.split("\n").filter((line) => /MCP server/.test(line));
}

/** Does every pattern match a different one of `texts` (and is every text matched)? */
function matchesAll(patterns: readonly RegExp[], texts: readonly string[]): boolean {
  if (patterns.length !== texts.length) return false;
  const left = [...texts];
  for (const pattern of patterns) {
    const index = left.findIndex((text) => pattern.test(text));
    if (index === -1) return false;
    left.splice(index, 1);
  }
  return true;
}

interface Outcome {
  problems: string[];
  /** How it ended, for the table. */
  ended: string;
}

function clip(text: string, max = 120): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** One trial of one bad server: what went wrong (nothing: it ended as it should), and how it ended. */
async function tryServer(server: BadServer): Promise<Outcome> {
  const box = sandbox();
  const model = await modelServer(server);
  let http: { url: string; close(): Promise<void> } | undefined;
  const started = Date.now();
  let run: Run;
  try {
    if (server.transport === "http") {
      const fixture = (await import(MISBEHAVING)) as {
        startMisbehavingHttpServer(behavior: string): Promise<{ url: string; close(): Promise<void> }>;
      };
      http = await fixture.startMisbehavingHttpServer(server.behavior);
      configure(box, server, { url: http.url });
    } else {
      configure(box, server, { command: process.execPath, args: [MISBEHAVING, server.behavior] });
    }
    run = await runArbor(
      box,
      ["-p", "use the tools", "--no-session", "--base-url", model.url, "--model", "m"],
      {
        timeoutMs: HANG_MS,
      },
    );
  } finally {
    await http?.close();
    await model.close();
  }
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const { observed } = model;
  const problems: string[] = [];
  if (run.hung) problems.push(`hung (killed after ${HANG_MS / 1000} s)`);
  if (STACK_TRACE.test(run.stderr) || STACK_TRACE.test(run.stdout)) problems.push("stack trace");
  if (run.code !== 0) problems.push(`exit ${run.code}: ${clip(run.stderr.trim(), 300)}`);
  if (run.stdout.trim() !== ANSWER) problems.push(`answered ${JSON.stringify(clip(run.stdout.trim()))}`);
  if (observed.refused.length > 0) problems.push(`the model API refused: ${observed.refused.join("; ")}`);
  const lines = mcpLines(run.stderr);
  if (!matchesAll(server.warnings, lines))
    problems.push(`stderr said ${JSON.stringify(lines.map((line) => clip(line)))}`);
  const bad = observed.offered.filter((name) => name.startsWith("mcp__bad__"));
  if (bad.length !== server.offered) problems.push(`offered ${bad.length} of its tools: ${bad.join(", ")}`);
  if (!observed.offered.includes("mcp__good__echo"))
    problems.push("the good server's tools were not offered");
  const results = observed.results;
  if (server.results !== undefined && !matchesAll(server.results, results))
    problems.push(`the model received ${JSON.stringify(results.map((result) => clip(result)))}`);
  if (server.failedCall && results.some((result) => result.includes("\n")))
    problems.push("an error result of more than one line");
  const said =
    lines.length === 0
      ? "no warning"
      : lines.map((line) => clip(line.replace(/^arbor: /, ""), 160)).join(" / ");
  const told =
    results.length === 0
      ? ""
      : `; the model got ${results.map((result) => (result.length > 200 ? `${result.length} characters` : clip(result, 160))).join(" / ")}`;
  return { problems, ended: `exit ${run.code} after ${seconds} s; ${said}${told}` };
}

describe("MCP servers", () => {
  const rounds = trials(1, 5);
  it(`${SERVERS.length} misbehaving servers × ${rounds}: arbor answers, one line per problem, no stack trace, no hang`, async () => {
    const work = SERVERS.flatMap((server) => Array.from({ length: rounds }, () => server));
    const outcomes = await inParallel(work, CONCURRENCY, tryServer);
    const failures: string[] = [];
    for (const server of SERVERS) {
      const mine = outcomes.filter((_outcome, index) => work[index] === server);
      const failed = mine.filter((outcome) => outcome.problems.length > 0);
      for (const outcome of failed) failures.push(`${server.kind}: ${outcome.problems.join("; ")}`);
      record({
        category: "MCP servers",
        kind: server.kind,
        trials: mine.length,
        failures: failed.length,
        lost: failed.length > 0 ? failed[0]!.problems.join("; ") : mine[0]!.ended,
      });
    }
    expect(failures).toEqual([]);
  });
});
