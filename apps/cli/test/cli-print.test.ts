import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  anthropicErrorBody,
  anthropicSse,
  chatFrames,
  chatTextChunks,
  chatToolCallChunks,
  completeAnthropicStream,
  type FakeAnthropicServer,
  type OpenAIWireServer,
  openAIErrorReply,
  startFakeAnthropicServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { runArbor, sandbox, sessionFiles } from "./cli-helpers.js";

let openai: OpenAIWireServer | undefined;
let anthropic: FakeAnthropicServer | undefined;

afterEach(async () => {
  await openai?.close();
  await anthropic?.close();
  openai = undefined;
  anthropic = undefined;
});

describe("arbor print mode against an OpenAI-compatible server", () => {
  it("prints only the final answer, after running the tool the model called in the working directory", async () => {
    openai = await startOpenAIWireServer([
      {
        kind: "sse",
        frames: chatFrames(
          chatToolCallChunks([
            { id: "call_1", name: "write", arguments: { path: "out.txt", content: "from the model\n" } },
          ]),
        ),
      },
      { kind: "sse", frames: chatFrames(chatTextChunks("I wrote out.txt for you.")) },
    ]);
    const box = sandbox();
    const run = await runArbor(box, [
      "-p",
      "write out.txt",
      "--base-url",
      openai.url,
      "--model",
      "local-model",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("I wrote out.txt for you.\n");
    expect(readFileSync(join(box.cwd, "out.txt"), "utf8")).toBe("from the model\n");
    // The second request carried the tool result back to the model.
    const second = openai.requests[1]?.body as { messages: { role: string; content: unknown }[] };
    expect(second.messages.some((message) => message.role === "tool")).toBe(true);
    expect(openai.requests[0]?.body?.model).toBe("local-model");
    // The session was saved: the prompt, the tool call, its result, the answer.
    const [file] = sessionFiles(box.home);
    const roles = file!.lines.flatMap((line) =>
      line.type === "message" ? [(line.message as { role: string }).role] : [],
    );
    expect(roles).toEqual(["user", "assistant", "toolResult", "assistant"]);
  });

  it("reads the prompt from stdin and exits 1 with the server's message when the request fails", async () => {
    openai = await startOpenAIWireServer([openAIErrorReply(400, "this model is not loaded")]);
    const box = sandbox();
    const run = await runArbor(box, ["--base-url", openai.url, "--model", "m"], {
      input: "hello from stdin\n",
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^arbor: error: .*this model is not loaded/m);
    const body = openai.requests[0]?.body as { messages: { role: string; content: unknown }[] };
    expect(JSON.stringify(body.messages.at(-1))).toContain("hello from stdin");
  });

  it("never writes the API key to the session file or the recording", async () => {
    const key = "sk-test-SECRET-4242-do-not-store";
    openai = await startOpenAIWireServer([{ kind: "sse", frames: chatFrames(chatTextChunks("Recorded.")) }]);
    const box = sandbox();
    const cassette = join(box.cwd, "cassette.jsonl");
    const run = await runArbor(box, [
      "-p",
      "record this",
      "--base-url",
      openai.url,
      "--model",
      "m",
      "--api-key",
      key,
      "--record",
      cassette,
    ]);
    expect(run.code).toBe(0);
    expect(openai.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    const [file] = sessionFiles(box.home);
    expect(file!.text).toContain("record this");
    expect(file!.text).not.toContain(key);
    expect(readFileSync(cassette, "utf8")).toContain("Recorded.");
    expect(readFileSync(cassette, "utf8")).not.toContain(key);
    expect(run.stdout + run.stderr).not.toContain(key);

    // The cassette replays offline, with no server and no key.
    await openai.close();
    openai = undefined;
    const replay = await runArbor(box, ["-p", "record this", "--replay", cassette, "--no-session"]);
    expect(replay.stderr).toBe("");
    expect(replay.stdout).toBe("Recorded.\n");
  });
});

describe("arbor print mode against the Anthropic Messages API", () => {
  it("streams the answer from the server and exits 0", async () => {
    anthropic = await startFakeAnthropicServer([
      {
        kind: "stream",
        events: completeAnthropicStream([anthropicSse.textBlock(0, "Bonjour from Claude.")]),
      },
    ]);
    const box = sandbox();
    const run = await runArbor(box, [
      "-p",
      "say hello",
      "--provider",
      "anthropic",
      "--base-url",
      anthropic.url,
      "--api-key",
      "sk-ant-test",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Bonjour from Claude.\n");
    expect(anthropic.requests[0]?.path).toBe("/v1/messages");
    expect(anthropic.requests[0]?.body.model).toBe("claude-sonnet-5-5");
    expect(JSON.stringify(anthropic.requests[0]?.body.system)).toContain("coding");
  });

  it("exits 1 when the server refuses the request, with its reason on stderr", async () => {
    anthropic = await startFakeAnthropicServer([
      {
        kind: "error",
        status: 400,
        body: anthropicErrorBody("invalid_request_error", "max_tokens: must be at most 8192"),
      },
    ]);
    const box = sandbox();
    const run = await runArbor(box, [
      "-p",
      "hi",
      "--model",
      "anthropic/claude-haiku-4-5",
      "--base-url",
      anthropic.url,
      "--api-key",
      "sk-ant-test",
    ]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("max_tokens: must be at most 8192");
    expect(anthropic.requests[0]?.body.model).toBe("claude-haiku-4-5");
  });

  it("--no-session writes no session file", async () => {
    anthropic = await startFakeAnthropicServer([
      { kind: "stream", events: completeAnthropicStream([anthropicSse.textBlock(0, "ok")]) },
    ]);
    const box = sandbox();
    const run = await runArbor(box, [
      "-p",
      "hi",
      "--provider",
      "anthropic",
      "--base-url",
      anthropic.url,
      "--api-key",
      "k",
      "--no-session",
    ]);
    expect(run.code).toBe(0);
    expect(existsSync(join(box.home, "sessions"))).toBe(false);
  });
});
