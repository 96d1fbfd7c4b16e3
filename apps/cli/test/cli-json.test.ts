import {
  anthropicErrorBody,
  anthropicSse,
  completeAnthropicStream,
  type FakeAnthropicServer,
  startFakeAnthropicServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { arborProcess, jsonLines, runArbor, sandbox, sessionFiles } from "./cli-helpers.js";

let anthropic: FakeAnthropicServer | undefined;

afterEach(async () => {
  await anthropic?.close();
  anthropic = undefined;
});

describe("arbor --mode json", () => {
  it("writes one compact JSON event per line: deltas carry only their own text", async () => {
    anthropic = await startFakeAnthropicServer([
      {
        kind: "stream",
        events: completeAnthropicStream([
          anthropicSse.textBlock(0, "The quick brown fox jumps over the lazy dog.", 3),
        ]),
        delayMs: 30,
      },
    ]);
    const box = sandbox();
    const run = await runArbor(box, [
      "--mode",
      "json",
      "-p",
      "a pangram please",
      "--provider",
      "anthropic",
      "--base-url",
      anthropic.url,
      "--api-key",
      "k",
    ]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout);
    expect(events[0]).toMatchObject({ type: "session", version: 2, model: "anthropic/claude-sonnet-5-5" });
    const types = events.map((event) => event.type);
    expect(types.slice(1, 5)).toEqual(["agent_start", "turn_start", "message_end", "message_start"]);
    expect(types.at(-1)).toBe("result");
    expect(events.at(-1)).toEqual({ type: "result", stopReason: "stop", exitCode: 0 });
    const deltas = events.filter((event) => event.type === "text_delta");
    // Paced 30 ms apart, the deltas were not merged: several lines, each only its own text.
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.map((delta) => delta.delta).join("")).toBe("The quick brown fox jumps over the lazy dog.");
    for (const delta of deltas) {
      expect(Object.keys(delta).sort()).toEqual(["contentIndex", "delta", "type"]);
      expect(JSON.stringify(delta).length).toBeLessThan(52 + String(delta.delta).length);
    }
    // The whole message is written once, at its end.
    const ends = events.filter((event) => event.type === "message_end");
    expect(ends.map((end) => (end.message as { role: string }).role)).toEqual(["user", "assistant"]);
    expect(JSON.stringify(ends[1])).toContain("The quick brown fox jumps over the lazy dog.");
    expect(events.filter((event) => JSON.stringify(event).includes("lazy dog.")).length).toBe(1);
  });

  it("merges a fast stream's deltas and stays within 3 bytes per answer character", async () => {
    const box = sandbox();
    const run = await runArbor(box, [
      "--mode",
      "json",
      "-p",
      "words 2000",
      "--provider",
      "scripted",
      "--no-session",
    ]);
    expect(run.code).toBe(0);
    const events = jsonLines(run.stdout);
    const end = events.find(
      (event) => event.type === "message_end" && (event.message as { role: string }).role === "assistant",
    );
    const answer = (end!.message as { content: { text: string }[] }).content[0]!.text;
    expect(answer.split(/\s+/).length).toBe(2000);
    const deltas = events.filter((event) => event.type === "text_delta");
    expect(deltas.map((delta) => delta.delta).join("")).toBe(answer);
    expect(Buffer.byteLength(run.stdout) / answer.length).toBeLessThan(3);
  });

  it("exits 1 when the final message is an error, and says so in the result line", async () => {
    // An overflow that states no limit: the window is taken as 90% of the refused request and the request
    // retried once, smaller; refused again, the run ends with the error.
    const tooLong = {
      kind: "error",
      status: 400,
      body: anthropicErrorBody("invalid_request_error", "prompt is too long"),
    } as const;
    anthropic = await startFakeAnthropicServer([tooLong, tooLong]);
    const box = sandbox();
    const run = await runArbor(
      box,
      [
        "--mode",
        "json",
        "--provider",
        "anthropic",
        "--base-url",
        anthropic.url,
        "--api-key",
        "k",
        "--no-session",
      ],
      { input: "hello" },
    );
    expect(run.code).toBe(1);
    const events = jsonLines(run.stdout);
    const result = events.at(-1)!;
    expect(result).toMatchObject({ type: "result", stopReason: "error", exitCode: 1 });
    expect(String(result.error)).toContain("prompt is too long");
  });

  it("exits 1 for a scripted failure too, after streaming its partial text", async () => {
    const box = sandbox();
    const run = await runArbor(box, ["--mode", "json", "-p", "fail on purpose", "--provider", "scripted"]);
    expect(run.code).toBe(1);
    const events = jsonLines(run.stdout);
    expect(events.some((event) => event.type === "text_delta")).toBe(true);
    expect(events.at(-1)).toMatchObject({
      type: "result",
      stopReason: "error",
      error: "Scripted failure: on purpose",
    });
  });

  it("finishes the run and saves the session when the reader goes away (EPIPE)", async () => {
    const box = sandbox();
    const child = arborProcess(box, ["--mode", "json", "-p", "words 5000", "--provider", "scripted"]);
    child.stdin.end();
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    // Like `| head -1`: read the first line, then close the pipe.
    await new Promise<void>((resolve) => {
      child.stdout.once("data", () => {
        child.stdout.destroy();
        resolve();
      });
    });
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const [file] = sessionFiles(box.home);
    const messages = file!.lines.filter((line) => line.type === "message");
    expect(messages).toHaveLength(2);
    expect(JSON.stringify(messages[1])).toContain("Arbor keeps every conversation");
  });

  it("refuses to run without a prompt", async () => {
    const box = sandbox();
    const run = await runArbor(box, ["--mode", "json", "--provider", "scripted"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("--mode json needs a prompt");
  });
});
