import { join } from "node:path";
import {
  anthropicErrorBody,
  anthropicSse,
  completeAnthropicStream,
  type FakeAnthropicReply,
  type FakeAnthropicServer,
  startFakeAnthropicServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { arborProcess, runArbor, sandbox, writeJson } from "./cli-helpers.js";

let anthropic: FakeAnthropicServer | undefined;

afterEach(async () => {
  await anthropic?.close();
  anthropic = undefined;
});

/** A 529 that asks for a retry after `ms` milliseconds. */
function overloaded(ms: number): FakeAnthropicReply {
  return {
    kind: "error",
    status: 529,
    body: anthropicErrorBody("overloaded_error", "Overloaded"),
    headers: { "retry-after-ms": String(ms) },
  };
}

const flags = (url: string) => ["--provider", "anthropic", "--base-url", url, "--api-key", "sk-ant-test"];

describe("retries in print mode", { timeout: 60_000 }, () => {
  it("says each retry on stderr while it waits (attempt n of m, delay, cause), then prints the answer", async () => {
    anthropic = await startFakeAnthropicServer([
      overloaded(1500),
      { kind: "stream", events: completeAnthropicStream([anthropicSse.textBlock(0, "Back again.")]) },
    ]);
    const box = sandbox();
    const child = arborProcess(box, ["-p", "hi", ...flags(anthropic.url)]);
    child.stdin.end();
    let stderr = "";
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8");
    });
    const noticed = new Promise<boolean>((resolve) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        // The notice arrives while the process is still waiting to retry, not at the end.
        if (stderr.includes("\n")) resolve(child.exitCode === null);
      });
    });
    const code = new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(await noticed).toBe(true);
    expect(await code).toBe(0);
    expect(stderr).toBe(
      "arbor: retry 1 of 3 in 1.5 s: Anthropic API error 529 (overloaded_error): Overloaded [request req_fake_error]\n",
    );
    expect(stdout).toBe("Back again.\n");
  });

  it("gives up with one line per retry and one final error, never 'gave up after 0 retries'", async () => {
    anthropic = await startFakeAnthropicServer([
      overloaded(10),
      overloaded(10),
      overloaded(10),
      overloaded(10),
    ]);
    const box = sandbox();
    const run = await runArbor(box, ["-p", "hi", ...flags(anthropic.url)]);
    expect(run.code).toBe(1);
    const cause = "Anthropic API error 529 (overloaded_error): Overloaded [request req_fake_error]";
    expect(run.stderr.split("\n").filter((line) => line !== "")).toEqual([
      `arbor: retry 1 of 3 in 0 s: ${cause}`,
      `arbor: retry 2 of 3 in 0 s: ${cause}`,
      `arbor: retry 3 of 3 in 0 s: ${cause}`,
      `arbor: error: ${cause}`,
    ]);
    expect(anthropic.requests).toHaveLength(4);
  });
});

describe("a stalled stream", { timeout: 60_000 }, () => {
  it("is abandoned after the settings' streamIdleTimeoutMs and retried, saying so", async () => {
    anthropic = await startFakeAnthropicServer([
      { kind: "stall" },
      { kind: "stream", events: completeAnthropicStream([anthropicSse.textBlock(0, "After the stall.")]) },
    ]);
    const box = sandbox();
    writeJson(join(box.home, "settings.json"), { streamIdleTimeoutMs: 300 });
    const run = await runArbor(box, ["-p", "hi", ...flags(anthropic.url)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("After the stall.\n");
    expect(run.stderr).toMatch(
      /^arbor: retry 1 of 1 in [\d.]+ s: .*stream stalled: no data from the server for 0\.3 s .*\n$/,
    );
    expect(anthropic.requests).toHaveLength(2);
  });

  it("a server that stays stalled is given up after one more idle limit, said in two lines", async () => {
    anthropic = await startFakeAnthropicServer([{ kind: "stall" }, { kind: "stall" }, { kind: "stall" }]);
    const box = sandbox();
    writeJson(join(box.home, "settings.json"), { streamIdleTimeoutMs: 300 });
    const run = await runArbor(box, ["-p", "hi", ...flags(anthropic.url)]);
    expect(run.code).toBe(1);
    const lines = run.stderr.split("\n").filter((line) => line !== "");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^arbor: retry 1 of 1 in [\d.]+ s: .*stream stalled/);
    expect(lines[1]).toMatch(/^arbor: error: .*stream stalled/);
    expect(anthropic.requests).toHaveLength(2);
  });
});
