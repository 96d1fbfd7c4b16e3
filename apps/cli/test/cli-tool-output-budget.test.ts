import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  chatFrames,
  chatTextChunks,
  chatToolCallChunks,
  type OpenAIWireReply,
  type OpenAIWireRequest,
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { runMainInProcess, sandbox, sessionFiles, writeJson } from "./cli-helpers.js";

const MISBEHAVING = fileURLToPath(
  new URL("../../../packages/mcp/test/fixtures/misbehaving-server.mjs", import.meta.url),
);

/** The size of the fixture's `huge` answer. */
const FIVE_MB = 5 * 1024 * 1024;

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface ChatMessage {
  role: string;
  tool_call_id?: string;
  content?: unknown;
}

/** The tool messages of a Chat Completions request, by call id. */
function toolMessages(request: OpenAIWireRequest): Map<string, string> {
  const messages = (request.body?.messages ?? []) as ChatMessage[];
  return new Map(
    messages
      .filter((message) => message.role === "tool")
      .map((message) => [String(message.tool_call_id), String(message.content ?? "")]),
  );
}

describe("arbor and an MCP server that answers 5 MB", () => {
  it("sends the model the cut result, not 5 MB, and keeps the whole output in the session", {
    timeout: 60_000,
  }, async () => {
    const calls: OpenAIWireReply = {
      kind: "sse",
      frames: chatFrames(
        chatToolCallChunks([
          { id: "call_big", name: "mcp__big__huge", arguments: { text: "a" } },
          { id: "call_small", name: "mcp__small__huge", arguments: { text: "b" } },
        ]),
      ),
    };
    const answer: OpenAIWireReply = { kind: "sse", frames: chatFrames(chatTextChunks("Both read.")) };
    server = await startOpenAIWireServer([calls, answer]);
    const box = sandbox();
    writeJson(join(box.home, "settings.json"), {
      mcpServers: {
        big: { command: process.execPath, args: [MISBEHAVING, "huge-result"], callTimeoutMs: 30_000 },
        small: {
          command: process.execPath,
          args: [MISBEHAVING, "huge-result"],
          callTimeoutMs: 30_000,
          toolOutputTokens: 1_000,
        },
      },
    });
    const run = await runMainInProcess(box, ["-p", "read both", "--base-url", server.url, "--model", "m"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe("Both read.");

    const results = toolMessages(server.requests[1]!);
    const note = (id: string, shown: RegExp) =>
      new RegExp(
        `\\[Output cut to fit the context: showing the first ${shown.source} of 5,242,880 characters\\. ` +
          `The whole output is kept in the session: call recall with \\{"toolCallId":"${id}","offset":\\d+\\} to read on\\.\\]`,
      );
    // The session's budget (at most 25,000 tokens: 100,000 characters) for one server, its own for the other.
    const big = results.get("call_big")!;
    expect(big).toMatch(note("call_big", /[\d,]+ and last [\d,]+/));
    expect(big.length).toBeLessThanOrEqual(100_000 + 400);
    const small = results.get("call_small")!;
    expect(small).toMatch(note("call_small", /3,200 and last 800/));
    expect(small.length).toBeLessThanOrEqual(4_000 + 400);
    expect(JSON.stringify(server.requests[1]!.body).length).toBeLessThan(200_000);

    // The session holds each whole output once, in its own entry after the cut result.
    const [file] = sessionFiles(box.home);
    const kept = file!.lines.filter(
      (line) => line.type === "custom" && line.customType === "arbor.tool_output",
    );
    expect(kept.map((line) => (line.data as { toolCallId: string }).toolCallId).sort()).toEqual([
      "call_big",
      "call_small",
    ]);
    for (const line of kept) {
      expect((line.data as { totalChars: number; text: string }).totalChars).toBe(FIVE_MB);
      expect((line.data as { text: string }).text).toBe("x".repeat(FIVE_MB));
    }
  });
});
