/**
 * Provider faults through the wire servers: each fault ends as retried-and-succeeded or as one clear
 * error with exit code 1 — never a stack trace, never a hang — and the session stays consistent (it
 * reopens with no orphan tool call or result).
 */

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  anthropicErrorBody,
  anthropicSse,
  chatFrames,
  chatTextChunks,
  chatToolCallChunks,
  completeAnthropicStream,
  type FakeAnthropicReply,
  type OpenAIWireReply,
  openAIErrorReply,
  startFakeAnthropicServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import { describe, expect, it } from "vitest";
import { libraryStore, reopen } from "./stored.js";
import {
  type Box,
  CONCURRENCY,
  finished,
  inParallel,
  jsonLines,
  type Run,
  record,
  runArbor,
  STACK_TRACE,
  sandbox,
  serverFlags,
  startArbor,
  startStrictServer,
} from "./support.js";

const JSONL = { name: "jsonl" as const, flags: () => [] };
const ok = (text: string): OpenAIWireReply => ({ kind: "sse", frames: chatFrames(chatTextChunks(text)) });
const okAnthropic = (text: string): FakeAnthropicReply => ({
  kind: "stream",
  events: completeAnthropicStream([anthropicSse.textBlock(0, text)]),
});

interface Fault {
  name: string;
  /** `retried`: exit 0 with the answer; `error`: exit 1 with one error line matching `message`. */
  expect: "retried" | "error";
  message?: RegExp;
  /** Requests the server must have received (e.g. 1: failed at once, no retry). */
  requests?: number;
  /** What stderr must say on the way (e.g. the retry line naming the idle timeout). */
  notice?: RegExp;
  run(box: Box): Promise<{ run: Run; requests: number }>;
}

/** A run may take this long before it counts as hung (a stall case: far less than the 60 s default). */
const HANG_MS = 60_000;

/** The idle timeout the stall cases set in `settings.json`, as a user would (the default is 60 s). */
const STALL_IDLE_MS = 1000;

/** Writes `settings.json` into the box's Arbor home. */
function settings(box: Box, value: Record<string, unknown>): void {
  writeFileSync(join(box.home, "settings.json"), `${JSON.stringify(value)}\n`);
}

async function viaOpenAI(box: Box, replies: OpenAIWireReply[], args: string[] = [], timeoutMs = HANG_MS) {
  const server = await startOpenAIWireServer(replies);
  try {
    const run = await runArbor(
      box,
      ["-p", "hello", "--mode", "json", "--base-url", server.url, "--model", "m", ...args],
      { timeoutMs },
    );
    return { run, requests: server.requests.length };
  } finally {
    await server.close();
  }
}

async function viaAnthropic(box: Box, replies: FakeAnthropicReply[], timeoutMs = HANG_MS) {
  const server = await startFakeAnthropicServer(replies);
  try {
    const run = await runArbor(
      box,
      [
        "-p",
        "hello",
        "--mode",
        "json",
        "--provider",
        "anthropic",
        "--base-url",
        server.url,
        "--api-key",
        "sk-ant-fake",
      ],
      { timeoutMs },
    );
    return { run, requests: server.requests.length };
  } finally {
    await server.close();
  }
}

/** Sends SIGINT once the server has received `afterRequests` requests (and `delayMs` more). */
async function interrupted(box: Box, replies: OpenAIWireReply[], afterRequests: number, delayMs: number) {
  const server = await startOpenAIWireServer(replies);
  try {
    const child = startArbor(box, [
      "-p",
      "hello",
      "--mode",
      "json",
      "--base-url",
      server.url,
      "--model",
      "m",
    ]);
    const done = finished(child, 60_000);
    while (server.requests.length < afterRequests && child.exitCode === null)
      await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, delayMs));
    const requestsAtInterrupt = server.requests.length;
    child.kill("SIGINT");
    const run = await done;
    // Nothing after the interrupt: no further model call.
    return { run, requests: server.requests.length - requestsAtInterrupt + afterRequests };
  } finally {
    await server.close();
  }
}

const FAULTS: Fault[] = [
  {
    name: "429 with retry-after: 1",
    expect: "retried",
    requests: 2,
    run: (box) =>
      viaOpenAI(box, [
        openAIErrorReply(429, "rate limited", { headers: { "retry-after": "1" } }),
        ok("after the wait"),
      ]),
  },
  {
    name: "429 without retry-after",
    expect: "retried",
    requests: 2,
    run: (box) => viaOpenAI(box, [openAIErrorReply(429, "rate limited"), ok("after backoff")]),
  },
  {
    name: "429 with retry-after past the cap (1 h)",
    expect: "error",
    requests: 1,
    message: /rate limited|retry|3600|wait/i,
    run: (box) =>
      viaOpenAI(box, [
        openAIErrorReply(429, "rate limited", { headers: { "retry-after": "3600" } }),
        ok("never"),
      ]),
  },
  {
    name: "529 overloaded (Anthropic)",
    expect: "retried",
    requests: 2,
    run: (box) =>
      viaAnthropic(box, [
        { kind: "error", status: 529, body: anthropicErrorBody("overloaded_error", "Overloaded") },
        okAnthropic("after overload"),
      ]),
  },
  {
    name: "500",
    expect: "retried",
    requests: 2,
    run: (box) =>
      viaOpenAI(box, [
        openAIErrorReply(500, "internal server error", { type: "server_error" }),
        ok("after 500"),
      ]),
  },
  {
    name: "disconnect mid-text",
    expect: "retried",
    run: (box) =>
      viaOpenAI(box, [
        {
          kind: "sse",
          frames: chatFrames(chatTextChunks("a long answer that is cut off", { size: 3 })),
          disconnectAfter: 3,
        },
        ok("whole answer"),
      ]),
  },
  {
    name: "disconnect mid-tool-arguments",
    expect: "retried",
    run: (box) =>
      viaOpenAI(box, [
        {
          kind: "sse",
          frames: chatFrames(
            chatToolCallChunks([{ id: "call_cut", name: "bash", arguments: { command: "echo never run" } }]),
          ),
          disconnectAfter: 3,
        },
        ok("no tool after all"),
      ]),
  },
  {
    name: "in-stream error (Anthropic overloaded_error event)",
    expect: "retried",
    run: (box) =>
      viaAnthropic(box, [
        {
          kind: "stream",
          events: [anthropicSse.messageStart(), anthropicSse.error("overloaded_error", "Overloaded")],
        },
        okAnthropic("after the stream error"),
      ]),
  },
  {
    name: `stalled stream mid-text, idle timeout ${STALL_IDLE_MS / 1000} s in settings.json (retried)`,
    expect: "retried",
    requests: 2,
    notice: /^arbor: retry 1 of 1 in [\d.]+ s: .*stream stalled: no data from the server for 1 s/m,
    run: (box) => {
      settings(box, { streamIdleTimeoutMs: STALL_IDLE_MS });
      // Far below the 60 s default: without the setting the run counts as hung.
      return viaOpenAI(
        box,
        [
          {
            kind: "sse",
            frames: chatFrames(chatTextChunks("an answer that stops half-way", { size: 4 })),
            stallAfter: 3,
          },
          ok("the answer after the stall"),
        ],
        [],
        20_000,
      );
    },
  },
  {
    name: `stalled stream mid-tool-arguments (Anthropic), idle timeout ${STALL_IDLE_MS / 1000} s (retried)`,
    expect: "retried",
    requests: 2,
    notice: /stream stalled: no data from the server for 1 s/,
    run: (box) => {
      settings(box, { streamIdleTimeoutMs: STALL_IDLE_MS });
      return viaAnthropic(
        box,
        [
          {
            kind: "stream",
            events: completeAnthropicStream([
              anthropicSse.toolUseBlock(0, {
                id: "toolu_stalled",
                name: "bash",
                json: JSON.stringify({ command: "echo never run" }),
                chunkSize: 6,
              }),
            ]),
            // message_start, ping, the block's start and two argument pieces, then nothing.
            stallAfter: 5,
          },
          okAnthropic("no tool after the stall"),
        ],
        20_000,
      );
    },
  },
  {
    name: "401",
    expect: "error",
    requests: 1,
    message: /401|key|auth|unauthori/i,
    run: (box) =>
      viaOpenAI(box, [openAIErrorReply(401, "Incorrect API key provided", { type: "authentication_error" })]),
  },
  {
    name: "context overflow (400 context_length_exceeded)",
    expect: "error",
    message: /context|too long|maximum|window|compact/i,
    run: (box) =>
      viaOpenAI(
        box,
        Array.from({ length: 6 }, () =>
          openAIErrorReply(400, "This model's maximum context length is 8192 tokens.", {
            code: "context_length_exceeded",
          }),
        ),
      ),
  },
  {
    name: "SIGINT while streaming",
    expect: "error",
    message: /abort|interrupt/i,
    run: (box) =>
      interrupted(
        box,
        [{ kind: "sse", frames: chatFrames(chatTextChunks("x".repeat(400), { size: 2 })), frameDelayMs: 30 }],
        1,
        300,
      ),
  },
  {
    name: "SIGINT while a tool runs",
    expect: "error",
    message: /abort|interrupt/i,
    requests: 1,
    run: (box) =>
      interrupted(
        box,
        [
          {
            kind: "sse",
            frames: chatFrames(
              chatToolCallChunks([{ id: "call_sleep", name: "bash", arguments: { command: "sleep 30" } }]),
            ),
          },
          ok("must not be asked"),
        ],
        1,
        800,
      ),
  },
];

/**
 * One fault: what went wrong (nothing: it ended as it should and the session is consistent). The session
 * is then continued (`-r <id> -p …`) against a strict server, which refuses a tool call without its
 * result and the reverse.
 */
async function tryFault(fault: Fault): Promise<string[]> {
  const box = sandbox();
  const { run, requests } = await fault.run(box);
  const problems: string[] = [];
  const result = jsonLines(run.stdout).find((line) => line.type === "result");
  if (run.hung) problems.push("hung");
  if (STACK_TRACE.test(run.stderr)) problems.push("stack trace");
  if (fault.expect === "retried" && run.code !== 0)
    problems.push(`exit ${run.code}: ${run.stderr.slice(0, 200)}`);
  if (fault.expect === "error") {
    if (run.code !== 1) problems.push(`exit ${run.code}, expected 1`);
    const errorLines = run.stderr.split("\n").filter((line) => /^arbor: (error|aborted)/.test(line));
    const said = `${errorLines.join("\n")}\n${String(result?.error ?? "")}`;
    if (errorLines.length > 1) problems.push(`${errorLines.length} error lines`);
    if (fault.message !== undefined && !fault.message.test(said))
      problems.push(`unclear: ${JSON.stringify(said)}`);
  }
  if (fault.notice !== undefined && !fault.notice.test(run.stderr))
    problems.push(`stderr does not say ${fault.notice}: ${JSON.stringify(run.stderr.slice(0, 300))}`);
  if (fault.requests !== undefined && requests !== fault.requests)
    problems.push(`${requests} requests, expected ${fault.requests}`);
  const session = jsonLines(run.stdout).find((line) => line.type === "session");
  const id = String(session?.sessionId ?? "");
  if (id === "") return problems;
  const found = await reopen(libraryStore(JSONL, box), id);
  if (found.error !== undefined) problems.push(`session does not open: ${found.error}`);
  problems.push(...found.orphans);
  if (found.missing) return problems;
  const strict = await startStrictServer({ answer: "Continued." });
  try {
    const resumed = await runArbor(box, ["-r", id, "-p", "continue", ...serverFlags(strict)]);
    if (resumed.code !== 0 || resumed.stdout.trim() !== "Continued.")
      problems.push(`-r: exit ${resumed.code}: ${resumed.stderr.slice(0, 200)}`);
    if (strict.violations.length > 0)
      problems.push(`-r sent an invalid request: ${strict.violations.join("; ")}`);
  } finally {
    await strict.close();
  }
  return problems;
}

describe("provider faults", () => {
  it(`${FAULTS.length} faults: retried and succeeded, or one clear error with exit 1; the session continues`, async () => {
    // The faults are independent (each its own server and home): CONCURRENCY at a time.
    const outcomes = await inParallel(FAULTS, CONCURRENCY, tryFault);
    const failures: string[] = [];
    for (const [index, fault] of FAULTS.entries()) {
      const problems = outcomes[index] ?? [];
      if (problems.length > 0) failures.push(`${fault.name}: ${problems.join("; ")}`);
      record({
        category: "provider faults",
        kind: fault.name,
        trials: 1,
        failures: problems.length > 0 ? 1 : 0,
        lost: problems.length > 0 ? problems.join("; ") : "nothing",
      });
    }
    expect(failures).toEqual([]);
  });
});
