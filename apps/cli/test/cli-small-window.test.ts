import { writeFileSync } from "node:fs";
import { join } from "node:path";
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
import { runArbor, sandbox } from "./cli-helpers.js";

/** The server's context limit; the model's metadata does not know it. */
const LIMIT = 6000;
const PROMPTS = 8;

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

interface ChatMessage {
  role: string;
  content?: unknown;
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  return JSON.stringify(content ?? "");
}

/**
 * The model behind the server: a summarizer request gets a short summary; a prompt "read file K" gets a
 * `read` call of `fileK.txt`, and the tool result (whole or elided) the answer "file K read".
 */
function model(request: OpenAIWireRequest): OpenAIWireReply {
  const messages = (request.body?.messages ?? []) as ChatMessage[];
  // The usage a real server reports: what it counted for the request.
  const usage = { prompt: estimatedRequestTokens(request), completion: 10 };
  const system = text(messages.find((message) => message.role === "system")?.content);
  if (system.startsWith("You write summaries")) {
    return {
      kind: "sse",
      frames: chatFrames(chatTextChunks("## Goal\nRead the files one by one.", { usage })),
    };
  }
  const last = messages.at(-1);
  if (last?.role === "tool") {
    const read = /file (\d+) line/.exec(text(last.content))?.[1] ?? "?";
    return { kind: "sse", frames: chatFrames(chatTextChunks(`file ${read} read`, { usage })) };
  }
  const file = /read file (\d+)/.exec(text(last?.content))?.[1] ?? "0";
  return {
    kind: "sse",
    frames: chatFrames(
      chatToolCallChunks(
        [{ id: `call_${file}_${messages.length}`, name: "read", arguments: { path: `file${file}.txt` } }],
        { usage },
      ),
    ),
  };
}

describe("arbor against a server with a 6,000-token limit (default settings)", () => {
  it("answers eight prompts that each read a 40 KB file", { timeout: 240_000 }, async () => {
    server = await startOpenAIWireServer(Array.from({ length: 400 }, () => withTokenLimit(LIMIT, model)));
    const box = sandbox();
    for (let index = 1; index <= PROMPTS; index++) {
      const lines = Array.from(
        { length: 800 },
        (_, line) => `file ${index} line ${line}: ${"lorem ipsum ".repeat(3)}`,
      );
      writeFileSync(join(box.cwd, `file${index}.txt`), `${lines.join("\n")}\n`);
    }
    const answers: string[] = [];
    for (let index = 1; index <= PROMPTS; index++) {
      const args = ["-p", `read file ${index}`, "--base-url", server.url, "--model", "local-model"];
      if (index > 1) args.push("-c");
      const run = await runArbor(box, args);
      expect(run.stderr, `prompt ${index}`).not.toMatch(/error/i);
      expect(run.code, `prompt ${index}: ${run.stderr}`).toBe(0);
      answers.push(run.stdout.trim());
    }
    expect(answers).toEqual(Array.from({ length: PROMPTS }, (_, index) => `file ${index + 1} read`));
    // One overflow taught the window (kept in the session for the later runs); every other request fitted.
    const over = server.requests.filter((request) => estimatedRequestTokens(request) > LIMIT);
    expect(over).toHaveLength(1);
  });
});
