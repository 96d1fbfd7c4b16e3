/**
 * `arbor --permissions ask` in a real terminal: the built binary under a pseudo-terminal (util-linux
 * `script -qfec`), its model on an OpenAI-compatible wire server calling `write`. The question appears with
 * the path; `n` (Deny) writes nothing and the model is told "Denied by the user"; `y` (Allow once) writes;
 * Esc is a no.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
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
import { sandbox } from "./cli-helpers.js";
import { BUILT_BIN, HAS_SCRIPT, plain, spawnOnPty } from "./pty.js";

let server: OpenAIWireServer | undefined;
let child: ChildProcessWithoutNullStreams | undefined;
afterEach(async () => {
  if (child !== undefined && child.exitCode === null) child.kill("SIGKILL");
  child = undefined;
  await server?.close();
  server = undefined;
});

function writeCall(id: string, path: string): OpenAIWireReply {
  return {
    kind: "sse",
    frames: chatFrames(chatToolCallChunks([{ id, name: "write", arguments: { path, content: "hello" } }])),
  };
}

const text = (words: string): OpenAIWireReply => ({ kind: "sse", frames: chatFrames(chatTextChunks(words)) });

function toolResult(request: OpenAIWireRequest | undefined): string {
  const messages = (request?.body?.messages ?? []) as { role: string; content?: unknown }[];
  return String(messages.findLast((message) => message.role === "tool")?.content ?? "");
}

describe.skipIf(!HAS_SCRIPT)("arbor --permissions ask in a terminal", () => {
  it("asks with the path; n writes nothing, y writes, Esc writes nothing", { timeout: 90_000 }, async () => {
    expect(existsSync(BUILT_BIN), `${BUILT_BIN} is missing: build the CLI first`).toBe(true);
    server = await startOpenAIWireServer([
      writeCall("call_1", "denied.txt"),
      text("Understood, not written."),
      writeCall("call_2", "allowed.txt"),
      text("Written."),
      writeCall("call_3", "escaped.txt"),
      text("Not written either."),
    ]);
    const box = sandbox();
    child = spawnOnPty(["--base-url", server.url, "--model", "m", "--permissions", "ask"], {
      cwd: box.cwd,
      env: { ...box.env, TERM: "xterm-256color" },
      cols: 110,
      rows: 40,
    });
    let screen = "";
    child.stdout.on("data", (chunk: Buffer) => {
      screen += chunk.toString("utf8");
    });
    const seen = async (pattern: RegExp, from = 0) => {
      await expect.poll(() => plain(screen.slice(from)), { timeout: 30_000, interval: 100 }).toMatch(pattern);
      return screen.length;
    };
    const type = (keys: string) => child!.stdin.write(keys);

    await seen(/mode ask|›|>/);
    type("write the first file\r");
    let mark = await seen(/Permission \(mode ask\): allow write denied\.txt\?/);
    await seen(/Allow once[\s\S]*Allow for this session[\s\S]*Deny/, mark);
    // Esc answers the question now: the activity line above it does not offer Esc to interrupt.
    const shown = plain(screen);
    const boxTop = shown.lastIndexOf("╭", shown.lastIndexOf("Permission (mode ask)"));
    const lineAbove = shown.slice(shown.lastIndexOf("\n", boxTop - 2) + 1, boxTop);
    expect(lineAbove).toMatch(/write/);
    expect(lineAbove).not.toContain("Esc to interrupt");
    mark = screen.length;
    type("n");
    await seen(/permission: write "denied\.txt" denied by the user/, mark);
    await seen(/Understood, not written\./, mark);
    expect(existsSync(join(box.cwd, "denied.txt"))).toBe(false);
    expect(toolResult(server.requests[1])).toMatch(/^Denied by the user: write was not run/);

    mark = screen.length;
    type("write the second file\r");
    await seen(/allow write allowed\.txt\?/, mark);
    mark = screen.length;
    type("y");
    await seen(/permission: write "allowed\.txt" allowed once by the user/, mark);
    await seen(/Written\./, mark);
    expect(existsSync(join(box.cwd, "allowed.txt"))).toBe(true);

    mark = screen.length;
    type("write the third file\r");
    await seen(/allow write escaped\.txt\?/, mark);
    mark = screen.length;
    type("\u001b");
    await seen(/permission: write "escaped\.txt" denied by the user/, mark);
    await seen(/Not written either\./, mark);
    expect(existsSync(join(box.cwd, "escaped.txt"))).toBe(false);

    type("/quit\r");
    await new Promise<void>((resolve) => {
      if (child!.exitCode !== null) resolve();
      else child!.on("exit", () => resolve());
    });
  });
});
