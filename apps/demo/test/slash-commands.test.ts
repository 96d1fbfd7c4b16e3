/**
 * A slash command typed in the page's prompt box (a `prompt` command whose text is `/name …`) runs the
 * terminal's slash command — the same registry and code, through app-runtime's protocol — instead of going
 * to the model; its notices reach the page as `notice` records. `arbor --mode rpc` does the same.
 */
import { rmSync } from "node:fs";
import { type AppRuntime, createRpcServer } from "@arbor/app-runtime";
import { afterAll, describe, expect, test } from "vitest";
import { DemoHub } from "../src/index.js";
import { offlineRuntime } from "./helpers.js";

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function runtimeInTemporaryHome(): Promise<AppRuntime> {
  return offlineRuntime(folders, "arbor-slash-");
}

type Record_ = { type: string } & Record<string, unknown>;

function logged(hub: DemoHub): Record_[] {
  return (hub.log.since(0) ?? []).map((event) => JSON.parse(event.data) as Record_);
}

function userTexts(runtime: AppRuntime): string[] {
  return runtime.session.state.messages
    .filter((message) => message.role === "user")
    .map((message) => JSON.stringify((message as { content: unknown }).content));
}

async function withHub(run: (hub: DemoHub, runtime: AppRuntime) => Promise<void>): Promise<void> {
  const runtime = await runtimeInTemporaryHome();
  const hub = new DemoHub(runtime, { coalesceMs: 0 });
  try {
    for (const text of ["first question", "second question", "third question"]) {
      expect((await hub.command({ type: "prompt", text })).ok).toBe(true);
      await hub.idle();
    }
    await run(hub, runtime);
  } finally {
    hub.close();
    await runtime.dispose();
  }
}

describe("slash commands typed in the demo's prompt", () => {
  test("/compact compacts the session and sends nothing to the model", async () => {
    await withHub(async (hub, runtime) => {
      const before = userTexts(runtime);
      const answer = await hub.command({ type: "prompt", text: "/compact keep the questions" });
      expect(answer).toMatchObject({ ok: true, data: { command: true, name: "compact" } });
      await hub.idle();
      const compactions = runtime.session.session.getPath().filter((ref) => ref.type === "compaction");
      expect(compactions).toHaveLength(1);
      expect(userTexts(runtime).join(" ")).not.toContain("/compact");
      expect(userTexts(runtime).length).toBeLessThanOrEqual(before.length);
      const ends = logged(hub).filter((record) => record.type === "compaction_end");
      expect(ends.at(-1)).toMatchObject({ reason: "manual", outcome: "compacted" });
    });
  });

  test("/name names the session; an unknown command is a notice, not a prompt", async () => {
    await withHub(async (hub, runtime) => {
      const messages = runtime.session.state.messages.length;
      await hub.command({ type: "prompt", text: "/name Slash demo" });
      expect(runtime.session.state.name).toBe("Slash demo");
      const unknown = await hub.command({ type: "prompt", text: "/compcat" });
      expect(unknown).toMatchObject({ ok: true, data: { command: true, name: "compcat" } });
      await hub.idle();
      expect(runtime.session.state.messages).toHaveLength(messages);
      const notices = logged(hub).filter((record) => record.type === "notice");
      expect(notices.at(-1)).toMatchObject({ level: "error", source: "/compcat" });
      expect(String(notices.at(-1)?.message)).toContain("Did you mean /compact");
    });
  });

  test("a command that opens a picker in the terminal lists its rows in a notice", async () => {
    await withHub(async (hub, runtime) => {
      await hub.command({ type: "prompt", text: "/thinking" });
      const notice = logged(hub)
        .filter((record) => record.type === "notice")
        .at(-1);
      expect(notice).toMatchObject({ level: "info", source: "/thinking" });
      expect(String(notice?.message)).toContain("/thinking <first column>");
      expect(String(notice?.message)).toContain(runtime.session.state.thinkingLevel);
    });
  });

  test("a text starting with a path is still a prompt", async () => {
    await withHub(async (hub, runtime) => {
      const answer = await hub.command({ type: "prompt", text: "/usr/bin is missing" });
      expect(answer.ok && (answer.data as { command?: boolean }).command).toBeFalsy();
      await hub.idle();
      expect(userTexts(runtime).at(-1)).toContain("/usr/bin is missing");
    });
  });
});

describe("slash commands over arbor --mode rpc", () => {
  test("/compact compacts, and its notices are notice records", async () => {
    const runtime = await runtimeInTemporaryHome();
    const lines: Record_[] = [];
    const server = createRpcServer(runtime, (line) => lines.push(JSON.parse(line) as Record_));
    try {
      for (const [id, text] of ["first question", "second question", "/compact", "/compcat"].entries()) {
        server.handleLine(JSON.stringify({ type: "prompt", id, text }));
        await new Promise((resolve) => setTimeout(resolve, 0));
        await runtime.session.waitForIdle();
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      await server.close();
      await runtime.dispose();
    }
    const responses = lines.filter((line) => line.type === "response");
    expect(responses.find((line) => line.id === 2)).toMatchObject({
      success: true,
      data: { command: true, name: "compact" },
    });
    expect(lines.some((line) => line.type === "compaction_end" && line.outcome === "compacted")).toBe(true);
    expect(lines.filter((line) => line.type === "notice").at(-1)).toMatchObject({ source: "/compcat" });
  });
});
