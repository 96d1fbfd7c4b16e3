import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { type AppRuntimeOptions, createAppRuntime } from "../src/create-app-runtime.js";
import { createRpcServer } from "../src/protocol/rpc-server.js";
import { temporaryDirectory } from "./helpers.js";

type Line = Record<string, unknown>;

function options(cwd: string, home: string): AppRuntimeOptions {
  return {
    cwd,
    env: { HOME: home },
    home,
    providers: { scripted: () => import("../src/demo/index.js") },
    stores: { jsonl: () => import("@arbor/session-store-jsonl") },
    flags: { provider: "scripted" },
    extensions: false,
    permissions: "ask",
  };
}

describe("the permission gate over the protocol", () => {
  it("asks the rpc client; once, for the session, deny; the session answer holds after a resume", {
    timeout: 30_000,
  }, async () => {
    const cwd = temporaryDirectory();
    const home = temporaryDirectory();
    const runtime = await createAppRuntime(options(cwd, home));
    const lines: Line[] = [];
    const server = createRpcServer(runtime, (line) => lines.push(JSON.parse(line) as Line));
    const sessionId = runtime.session.id;
    const request = async (count: number) => {
      await vi.waitFor(() =>
        expect(lines.filter((line) => line.type === "permission_request")).toHaveLength(count),
      );
      return lines.filter((line) => line.type === "permission_request")[count - 1] as Line;
    };
    try {
      server.handleLine('{"type":"prompt","id":"1","text":"run touch a.txt"}');
      const first = await request(1);
      expect(first).toMatchObject({
        toolName: "bash",
        summary: "touch a.txt",
        suggestedRule: "bash(touch a.txt)",
      });
      server.handleLine(
        JSON.stringify({
          type: "permission_reply",
          id: "r1",
          requestId: first.requestId,
          decision: "session",
        }),
      );
      await vi.waitFor(() => expect(existsSync(join(cwd, "a.txt"))).toBe(true));
      await runtime.session.waitForIdle();

      // The same command again: allowed by the session's answer, no question.
      rmSync(join(cwd, "a.txt"));
      server.handleLine('{"type":"prompt","id":"2","text":"run touch a.txt"}');
      await vi.waitFor(() => expect(existsSync(join(cwd, "a.txt"))).toBe(true));
      await runtime.session.waitForIdle();

      server.handleLine('{"type":"prompt","id":"3","text":"run touch b.txt"}');
      const third = await request(2);
      server.handleLine(
        JSON.stringify({ type: "permission_reply", id: "r3", requestId: third.requestId, decision: "deny" }),
      );
      server.handleLine(
        JSON.stringify({ type: "permission_reply", id: "r4", requestId: third.requestId, decision: "once" }),
      );
      await server.close();
    } finally {
      await runtime.dispose();
    }
    expect(existsSync(join(cwd, "b.txt"))).toBe(false);
    expect(lines.find((line) => line.id === "r1")).toMatchObject({ success: true, data: { answered: true } });
    expect(lines.find((line) => line.id === "r4")).toMatchObject({ success: false, code: "not_found" });
    const decisions = lines.filter((line) => line.type === "permission_decision");
    expect(decisions.map((line) => [line.summary, line.decision, line.by, line.scope ?? null])).toEqual([
      ["touch a.txt", "allowed", "user", "session"],
      ["touch a.txt", "allowed", "session", null],
      ["touch b.txt", "denied", "user", null],
    ]);
    const result = lines.find(
      (line) => line.type === "tool_end" && JSON.stringify(line.content).includes("Denied by the user"),
    );
    expect(result).toMatchObject({ isError: true });

    // Resumed, with no one to ask: the session's answer still allows the command; another is refused.
    rmSync(join(cwd, "a.txt"));
    const resumed = await createAppRuntime({
      ...options(cwd, home),
      session: { kind: "open", reference: sessionId },
    });
    const seen: string[] = [];
    resumed.permissions.onDecision((decision) =>
      seen.push(`${decision.summary}: ${decision.decision} by ${decision.by}`),
    );
    try {
      await resumed.session.prompt("run touch a.txt");
      await resumed.session.prompt("run touch c.txt");
    } finally {
      await resumed.dispose();
    }
    expect(existsSync(join(cwd, "a.txt"))).toBe(true);
    expect(existsSync(join(cwd, "c.txt"))).toBe(false);
    expect(seen).toEqual(["touch a.txt: allowed by session", "touch c.txt: denied by mode"]);
  });

  it("an abort while asking is a no: the tool does not run and the question is closed", {
    timeout: 30_000,
  }, async () => {
    const cwd = temporaryDirectory();
    const home = temporaryDirectory();
    const runtime = await createAppRuntime(options(cwd, home));
    const asked: string[] = [];
    const closed: string[] = [];
    runtime.permissions.attachAsker((request) => asked.push(request.requestId));
    runtime.permissions.onDecision((decision) => closed.push(`${decision.requestId}: ${decision.decision}`));
    try {
      const run = runtime.session.prompt("run touch late.txt");
      await vi.waitFor(() => expect(asked).toHaveLength(1));
      expect(runtime.permissions.pending).toHaveLength(1);
      runtime.session.abort("stopped by the test");
      await run.catch(() => undefined);
      await runtime.session.waitForIdle();
    } finally {
      await runtime.dispose();
    }
    expect(existsSync(join(cwd, "late.txt"))).toBe(false);
    expect(closed).toEqual([`${asked[0]}: denied`]);
    expect(runtime.permissions.pending).toEqual([]);
  });
});
