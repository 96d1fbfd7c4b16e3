import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import {
  anthropicSse,
  completeAnthropicStream,
  type FakeAnthropicServer,
  startFakeAnthropicServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { type ArborRun, type Sandbox, sandbox } from "./cli-helpers.js";

/** The clone's wrapper around the built CLI (`bash scripts/main.sh` builds it; CI builds before testing). */
const WRAPPER = fileURLToPath(new URL("../../../scripts/arbor", import.meta.url));

let anthropic: FakeAnthropicServer | undefined;
afterEach(async () => {
  await anthropic?.close();
  anthropic = undefined;
});

/** Runs a shell command line in the sandbox's project directory. */
function shell(box: Sandbox, line: string, env: Record<string, string> = {}, input = ""): Promise<ArborRun> {
  const child = spawn("bash", ["-c", line], { cwd: box.cwd, env: { ...box.env, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("getting arbor from a clone", { timeout: 120_000 }, () => {
  it("scripts/arbor runs the built CLI, and the tour's last line works exactly as printed", async () => {
    const box = sandbox();
    const tour = await shell(box, `${WRAPPER} tour --pace 0`);
    expect(tour.stderr).toBe("");
    expect(tour.code).toBe(0);
    const lines = tour.stdout.trimEnd().split("\n");
    const last = lines.at(-1)!.trim();
    // The command names the wrapper by its absolute path: nothing needs to be on PATH.
    expect(last).toMatch(new RegExp(`^cd \\S+ && ${WRAPPER} -r \\w{8} --provider anthropic$`));
    const folder = /^cd (\S+) &&/.exec(last)![1]!;

    anthropic = await startFakeAnthropicServer([
      { kind: "stream", events: completeAnthropicStream([anthropicSse.textBlock(0, "Continued for real.")]) },
    ]);
    // As printed, from the directory the user is in; a piped prompt makes it a one-shot run.
    const resumed = await shell(
      box,
      last,
      { ANTHROPIC_API_KEY: "sk-ant-test", ANTHROPIC_BASE_URL: anthropic.url },
      "carry on",
    );
    expect(resumed.stderr).not.toMatch(/error|not built/i);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe("Continued for real.\n");
    // The request carried the tour's conversation: the session was resumed, not started afresh.
    expect(JSON.stringify(anthropic.requests[0]?.body.messages)).toContain("greet.mjs");
    rmSync(folder, { recursive: true, force: true });
  });
});
