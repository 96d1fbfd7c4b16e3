import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  chatFrames,
  chatTextChunks,
  chatToolCallChunks,
  estimatedRequestTokens,
  type OpenAIWireReply,
  type OpenAIWireRequest,
  type OpenAIWireServer,
  startOpenAIWireServer,
  withTokenLimit,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { runMainInProcess, sandbox, writeJson } from "./cli-helpers.js";

/**
 * `arbor -p` against a server with a small window, driven past it by large tool results from the three
 * sources — the built-in `read` (a 200 KB file), an MCP server's tool (5 MB) and an extension's tool
 * (300 KB) — and by long answers. The server refuses any request over its window and reports the usage it
 * counted. Checked: every prompt answered (exit 0), nothing on stderr but the compaction and pruning lines
 * (no warning about settings nobody set), no request over the window — except, when the model claims four
 * times the server's window, the one overflow that teaches it, recovered in the same run — and every request
 * right after a compaction at most 60% of the window.
 */

const MISBEHAVING = fileURLToPath(
  new URL("../../../packages/mcp/test/fixtures/misbehaving-server.mjs", import.meta.url),
);

const EXTENSION = `
export default function dump(arbor) {
  arbor.registerTool({
    name: "ext_dump",
    description: "Dumps the build log.",
    parameters: { type: "object", properties: {} },
    execute() {
      return { content: [{ type: "text", text: "build step ok\\n".repeat(22_000) }] };
    },
  });
}
`;

/** Prompt → the tool the model calls for it. */
const TOOL_OF: Record<string, { name: string; arguments: Record<string, unknown> }> = {
  "use read": { name: "read", arguments: { path: "big.log" } },
  "use mcp": { name: "mcp__big__huge", arguments: { text: "all" } },
  "use ext": { name: "ext_dump", arguments: {} },
};

interface ChatMessage {
  role: string;
  content?: unknown;
}

function text(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content ?? "");
}

/** The model behind the server (it reports the usage the server counted, as real servers do). */
function model(request: OpenAIWireRequest): OpenAIWireReply {
  const messages = (request.body?.messages ?? []) as ChatMessage[];
  const usage = { prompt: estimatedRequestTokens(request), completion: 50 };
  const system = text(messages.find((message) => message.role === "system")?.content);
  if (system.startsWith("You write summaries")) {
    return {
      kind: "sse",
      frames: chatFrames(chatTextChunks("## Goal\n- Read the outputs one by one.", { usage })),
    };
  }
  const last = messages.at(-1);
  if (last?.role === "tool") {
    const answer = `Read it. ${"The output says the build went well. ".repeat(40)}`;
    return { kind: "sse", frames: chatFrames(chatTextChunks(answer, { usage })) };
  }
  const prompt = text(last?.content).replace(/^"|"$/g, "");
  const call = TOOL_OF[prompt];
  if (call === undefined)
    return { kind: "sse", frames: chatFrames(chatTextChunks("Nothing to do.", { usage })) };
  const id = `call_${messages.length}`;
  return { kind: "sse", frames: chatFrames(chatToolCallChunks([{ id, ...call }], { usage })) };
}

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const COMPACTION_LINE =
  /^arbor: (compacting the context|Compacted the conversation|Pruned \d+ old tool results?)/;

async function drive(window: number, claimed: number) {
  server = await startOpenAIWireServer(Array.from({ length: 200 }, () => withTokenLimit(window, model)));
  const box = sandbox();
  writeFileSync(join(box.cwd, "big.log"), "log line of the build with some words in it\n".repeat(4_600));
  mkdirSync(join(box.cwd, ".arbor", "extensions"), { recursive: true });
  writeFileSync(join(box.cwd, ".arbor", "extensions", "dump.mjs"), EXTENSION);
  writeJson(join(box.home, "settings.json"), {
    modelLimits: { "openai-compatible/m": { contextWindow: claimed } },
    mcpServers: {
      big: { command: process.execPath, args: [MISBEHAVING, "huge-result"], callTimeoutMs: 30_000 },
    },
  });
  const others: string[] = [];
  const afterCompaction: number[] = [];
  let runs = 0;
  // Enough rounds to pass the window at least once.
  const rounds = window <= 8000 ? 2 : 4;
  const prompts = Array.from({ length: rounds }, () => ["use read", "use mcp", "use ext"]).flat();
  for (const prompt of prompts) {
    const before = server.requests.length;
    const args = ["-p", prompt, "--provider", "openai-compatible", "--base-url", server.url, "--model", "m"];
    if (runs > 0) args.push("-c");
    const run = await runMainInProcess(box, args);
    runs++;
    expect(run.code, `${prompt}: ${run.stderr}`).toBe(0);
    expect(run.stdout).toContain("Read it.");
    const lines = run.stderr.split("\n").filter((line) => line !== "");
    others.push(...lines.filter((line) => !COMPACTION_LINE.test(line)));
    if (lines.some((line) => /^arbor: Compacted the conversation/.test(line))) {
      // The first request of the model after the summary.
      const next = server.requests
        .slice(before)
        .filter(
          (request) => !text((request.body?.messages as ChatMessage[])?.[0]?.content).startsWith("You write"),
        )
        .at(-1);
      if (next !== undefined) afterCompaction.push(estimatedRequestTokens(next));
    }
  }
  const over = server.requests.filter((request) => estimatedRequestTokens(request) > window);
  const largest = Math.max(...server.requests.map((request) => estimatedRequestTokens(request)));
  return { others, over, afterCompaction, largest, lines: others.length };
}

describe("arbor -p at small windows, with large results from read, an MCP server and an extension", () => {
  it.each([6000, 32_000])("a %i-token server", { timeout: 120_000 }, async (window) => {
    const { others, over, afterCompaction, largest } = await drive(window, window);
    expect(others).toEqual([]);
    // Driven to the window: the largest request took more than three quarters of it.
    expect(largest).toBeGreaterThan(window * 0.75);
    expect(over).toEqual([]);
    for (const tokens of afterCompaction) expect(tokens).toBeLessThanOrEqual(window * 0.6);
  });

  it("a 6,000-token server behind a model that claims 24,000: one overflow, recovered in the same run", {
    timeout: 120_000,
  }, async () => {
    const { others, over } = await drive(6000, 24_000);
    expect(others.filter((line) => !/found too long|Nothing to compact/.test(line))).toEqual([]);
    expect(over).toHaveLength(1);
  });
});
