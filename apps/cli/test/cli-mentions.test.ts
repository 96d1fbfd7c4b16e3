/**
 * `@path` in every mode: print mode (in the prompt's text or as its own argument), json mode and rpc's
 * `prompt` attach the file — its text after the prompt, an image as an image part — as the interactive
 * editor does; an `@word` that names no file is sent as typed.
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  chatFrames,
  chatTextChunks,
  type OpenAIWireReply,
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { jsonLines, RpcClient, runArbor, type Sandbox, sandbox, writeJson } from "./cli-helpers.js";

const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const answer = (text: string): OpenAIWireReply => ({ kind: "sse", frames: chatFrames(chatTextChunks(text)) });

/** The last user message of the server's `index`th request, as JSON text. */
function lastUser(index: number): string {
  const messages = (server!.requests[index]!.body?.messages ?? []) as { role: string }[];
  return JSON.stringify(messages.filter((message) => message.role === "user").at(-1));
}

function project() {
  const box = sandbox();
  writeFileSync(join(box.cwd, "notes.txt"), "remember the milk\n");
  writeFileSync(join(box.cwd, "pixel.png"), Buffer.from(PNG_1X1, "base64"));
  return box;
}

/** Runs the built bin (`dist/arbor.js`) to its end. */
function runBuilt(
  box: Sandbox,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const binary = fileURLToPath(new URL("../dist/arbor.js", import.meta.url));
  expect(existsSync(binary), `${binary} is missing: build the CLI first`).toBe(true);
  const child = spawn(process.execPath, [binary, ...args], { cwd: box.cwd, env: box.env });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  child.stdin.end();
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("@path outside the interactive editor", () => {
  it("the built arbor -p attaches the file the prompt names", { timeout: 60_000 }, async () => {
    server = await startOpenAIWireServer([answer("Built and read.")]);
    const box = project();
    const run = await runBuilt(box, ["-p", "summarize @notes.txt", "--base-url", server.url, "--model", "m"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("Built and read.\n");
    expect(lastUser(0)).toContain("remember the milk");
  });

  it("print mode attaches a file named in the prompt or as its own argument; other @words stay text", {
    timeout: 60_000,
  }, async () => {
    server = await startOpenAIWireServer([answer("Summed up."), answer("Seen.")]);
    const box = project();
    const base = ["--base-url", server.url, "--model", "m", "--no-session"];
    const first = await runArbor(box, ["-p", "summarize @notes.txt for me@example.com", ...base]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe("Summed up.");
    const sent = lastUser(0);
    expect(sent).toContain("summarize @notes.txt for me@example.com");
    expect(sent).toContain('<file path=\\"notes.txt\\">');
    expect(sent).toContain("remember the milk");
    expect(first.stderr).toContain("attached @notes.txt");

    // A model that takes images (models.json says so) gets the image as an image part.
    writeJson(join(box.home, "models.json"), {
      providers: { wire: { baseUrl: server.url, models: [{ id: "seeing", input: ["text", "image"] }] } },
    });
    const second = await runArbor(box, [
      ...["-p", "describe", "@pixel.png", "@Component", "@gone.txt"],
      ...["--model", "wire/seeing", "--no-session"],
    ]);
    expect(second.code, second.stderr).toBe(0);
    const withImage = lastUser(1);
    expect(withImage).toContain("describe @pixel.png @Component @gone.txt");
    expect(withImage).toContain("data:image/png;base64,");
    expect(withImage).not.toContain("<file");
    // A missing path is said on stderr; a word that is no path (a decorator) is not.
    expect(second.stderr).toContain("@gone.txt: File not found");
    expect(second.stderr).not.toContain("@Component");
  });

  it("a deny rule for reading a file keeps it out of a mention too", { timeout: 60_000 }, async () => {
    server = await startOpenAIWireServer([answer("Nothing secret.")]);
    const box = project();
    writeFileSync(join(box.cwd, ".env"), "API_TOKEN=hunter2\n");
    writeJson(join(box.home, "settings.json"), { permissions: { deny: ["read(.env)"] } });
    const run = await runArbor(box, [
      "-p",
      "check @.env and @notes.txt",
      "--base-url",
      server.url,
      "--model",
      "m",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const sent = lastUser(0);
    expect(sent).not.toContain("hunter2");
    expect(sent).toContain("remember the milk");
    expect(run.stderr).toContain('@.env: not attached: the permission rule "read(.env)" denies reading it');
  });

  it("input piped after a prompt is data (its @words are not attached); a prompt piped alone is a prompt", {
    timeout: 60_000,
  }, async () => {
    server = await startOpenAIWireServer([answer("Reviewed."), answer("Summed up.")]);
    const box = project();
    const base = ["--base-url", server.url, "--model", "m", "--no-session"];
    const diff = await runArbor(box, ["-p", "review this", ...base], { input: "+ see @notes.txt\n" });
    expect(diff.code, diff.stderr).toBe(0);
    expect(lastUser(0)).toContain("review this\\n\\n+ see @notes.txt");
    expect(lastUser(0)).not.toContain("remember the milk");
    expect(diff.stderr).not.toContain("attached");

    const alone = await runArbor(box, ["-p", ...base], { input: "summarize @notes.txt\n" });
    expect(alone.code, alone.stderr).toBe(0);
    expect(lastUser(1)).toContain("remember the milk");
  });

  it("json mode and rpc's prompt attach the file too", { timeout: 60_000 }, async () => {
    server = await startOpenAIWireServer([answer("From json."), answer("From rpc.")]);
    const box = project();
    const base = ["--base-url", server.url, "--model", "m", "--no-session"];
    const json = await runArbor(box, ["--mode", "json", "-p", "read @notes.txt", ...base]);
    expect(json.code, json.stderr).toBe(0);
    expect(lastUser(0)).toContain("remember the milk");
    expect(jsonLines(json.stdout)).toContainEqual(
      expect.objectContaining({ type: "notice", level: "info", message: "attached @notes.txt" }),
    );

    const client = RpcClient.start(box, base);
    await client.waitFor((line) => line.type === "session");
    const mark = client.lines.length;
    expect(await client.send({ id: "p1", type: "prompt", text: "read @notes.txt" })).toMatchObject({
      success: true,
    });
    await client.waitFor((line) => line.type === "settled" && client.lines.indexOf(line) > mark);
    expect(lastUser(1)).toContain("remember the milk");
    expect(client.lines).toContainEqual(
      expect.objectContaining({ type: "notice", message: "attached @notes.txt" }),
    );
    expect(await client.end()).toBe(0);
  });
});
