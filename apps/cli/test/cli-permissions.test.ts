/**
 * Permission modes and rules through the real `arbor` process, against an OpenAI-compatible wire server whose
 * model calls `write` or `bash`: `--permissions plan` refuses a write, a deny rule holds in `auto`, `ask` in
 * print mode refuses unless a rule allows, and each decision is recorded in the session (`sessions show`).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
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
import { jsonLines, runArbor, type Sandbox, sandbox, sessionFiles, writeJson } from "./cli-helpers.js";

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function toolCall(name: string, args: Record<string, unknown>): OpenAIWireReply {
  return { kind: "sse", frames: chatFrames(chatToolCallChunks([{ id: "call_1", name, arguments: args }])) };
}

const DONE: OpenAIWireReply = { kind: "sse", frames: chatFrames(chatTextChunks("Done.")) };

/** The tool message the model received in the second request. */
function toolResult(request: OpenAIWireRequest | undefined): string {
  const messages = (request?.body?.messages ?? []) as { role: string; content?: unknown }[];
  return String(messages.find((message) => message.role === "tool")?.content ?? "");
}

async function run(box: Sandbox, replies: OpenAIWireReply[], args: string[]) {
  server = await startOpenAIWireServer(replies);
  return runArbor(box, ["-p", "do it", "--base-url", server.url, "--model", "m", ...args]);
}

/** The `arbor.permission` records of the sandbox's only session file. */
function permissionRecords(box: Sandbox): Record<string, unknown>[] {
  const [file] = sessionFiles(box.home);
  return file!.lines
    .filter((entry) => entry.type === "custom" && entry.customType === "arbor.permission")
    .map((entry) => entry.data as Record<string, unknown>);
}

describe("arbor --permissions", () => {
  it("plan refuses a write: no file, an error tool result, a line on stderr, the decision recorded", {
    timeout: 60_000,
  }, async () => {
    const box = sandbox();
    const result = await run(
      box,
      [toolCall("write", { path: "notes.txt", content: "hi" }), DONE],
      ["--permissions", "plan"],
    );
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(box.cwd, "notes.txt"))).toBe(false);
    const told = toolResult(server!.requests[1]);
    expect(told).toMatch(/Refused by the permission mode: write was not run \(plan mode is read-only/);
    expect(told).toContain("--permissions auto");
    expect(result.stderr).toContain('arbor: permission: write "notes.txt" refused by mode plan');
    expect(result.stdout.trim()).toBe("Done.");
    expect(permissionRecords(box)).toEqual([
      expect.objectContaining({ toolName: "write", decision: "denied", by: "mode", mode: "plan" }),
    ]);
    const shown = await runArbor(box, ["sessions", "show", sessionFiles(box.home)[0]!.path]);
    expect(shown.stdout).toContain('permission: write "notes.txt" refused by mode plan');
  });

  it("a deny rule of settings.json holds in auto, also inside a compound command", {
    timeout: 60_000,
  }, async () => {
    const box = sandbox();
    writeJson(join(box.home, "settings.json"), { permissions: { deny: ["bash(rm *)", "edit(secret/**)"] } });
    mkdirSync(join(box.cwd, "victim"));
    const bash = await run(box, [toolCall("bash", { command: "touch made.txt && rm -rf victim" }), DONE], []);
    expect(bash.code, bash.stderr).toBe(0);
    expect(existsSync(join(box.cwd, "victim"))).toBe(true);
    expect(existsSync(join(box.cwd, "made.txt"))).toBe(false);
    expect(toolResult(server!.requests[1])).toMatch(/^Denied by the permission rule "bash\(rm \*\)"/);
    await server?.close();

    const write = await run(box, [toolCall("write", { path: "./secret/key.txt", content: "x" }), DONE], []);
    expect(write.code, write.stderr).toBe(0);
    expect(existsSync(join(box.cwd, "secret"))).toBe(false);
    expect(toolResult(server!.requests[1])).toMatch(/^Denied by the permission rule "edit\(secret\/\*\*\)"/);
    expect(write.stderr).toContain('permission: write "secret/key.txt" denied by rule edit(secret/**)');
  });

  it("ask in print mode refuses with the way to allow it, and runs what an allow rule allows", {
    timeout: 60_000,
  }, async () => {
    const box = sandbox();
    const refused = await run(
      box,
      [toolCall("bash", { command: "touch made.txt" }), DONE],
      ["--permissions", "ask"],
    );
    expect(refused.code, refused.stderr).toBe(0);
    expect(existsSync(join(box.cwd, "made.txt"))).toBe(false);
    const told = toolResult(server!.requests[1]);
    expect(told).toContain('Permission needed: bash was not run. The permission mode is "ask"');
    expect(told).toContain('"permissions": { "allow": ["bash(touch made.txt)"] }');
    expect(refused.stderr).toMatch(/permission: bash "touch made.txt" refused by mode ask; to allow it, add/);
    await server?.close();

    writeJson(join(box.cwd, ".arbor", "settings.json"), {
      permissions: { mode: "ask", allow: ["bash(touch *)"] },
    });
    const allowed = await run(box, [toolCall("bash", { command: "touch made.txt" }), DONE], []);
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(existsSync(join(box.cwd, "made.txt"))).toBe(true);
  });

  it("json mode writes each decision as a permission_decision record", { timeout: 60_000 }, async () => {
    const box = sandbox();
    const result = await run(
      box,
      [toolCall("edit", { path: "a.txt", edits: [{ oldText: "a", newText: "b" }] }), DONE],
      ["--mode", "json", "--permissions", "plan"],
    );
    expect(result.code, result.stderr).toBe(0);
    const records = jsonLines(result.stdout).filter((line) => line.type === "permission_decision");
    expect(records).toEqual([
      expect.objectContaining({
        toolCallId: "call_1",
        toolName: "edit",
        summary: "a.txt",
        decision: "denied",
        by: "mode",
        mode: "plan",
        reason: expect.stringContaining("plan mode is read-only"),
      }),
    ]);
  });

  it("a bad rule in settings.json is one clear message", { timeout: 60_000 }, async () => {
    const box = sandbox();
    writeJson(join(box.home, "settings.json"), { permissions: { allow: ["shell(ls)"] } });
    const result = await runArbor(box, ["-p", "hi", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('permissions.allow[0]: "shell(ls)" is not a rule');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    const flag = await runArbor(box, ["-p", "hi", "--permissions", "never"]);
    expect(flag.code).not.toBe(0);
    expect(flag.stderr).toContain("expected one of auto, ask, edits, plan");
  });
});
