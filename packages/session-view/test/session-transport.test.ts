import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, Type } from "@arbor/agent-core";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { createHarness, type HarnessSession } from "@arbor/harness";
import { MemorySessionStore } from "@arbor/session-store";
import { afterEach, describe, expect, test } from "vitest";
import {
  harnessSessionState,
  harnessTransport,
  type ProtocolEvent,
  type ProtocolEventListener,
  type SessionHistory,
  type SessionState,
  type SessionTransport,
  SessionViewModel,
  type TranscriptItem,
} from "../src/index.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const echo = defineTool({
  name: "echo",
  description: "Echo the text back",
  parameters: Type.Object({ text: Type.String() }),
  execute: async ({ text }, { onUpdate }) => {
    onUpdate({ content: [{ type: "text", text: "first line\n" }] });
    onUpdate({ content: [{ type: "text", text: "first line\nsecond line\n" }] });
    return { content: [{ type: "text", text: `echo: ${text}` }] };
  },
});

async function startSession(): Promise<HarnessSession> {
  const root = await mkdtemp(join(tmpdir(), "arbor-session-transport-"));
  const provider = createScriptedProvider(
    [
      script.toolCall("echo", { text: "hi" }, { text: "Calling echo." }),
      script.text("**Done**: the tool said hi."),
      script.text("Second answer."),
    ],
    { chunkSize: 4 },
  );
  const harness = createHarness({
    streamFn: provider.stream,
    model: provider.model,
    store: new MemorySessionStore(),
    cwd: root,
    tools: [echo as never],
  });
  const session = await harness.newSession();
  cleanups.push(async () => {
    await session.close();
    await rm(root, { recursive: true, force: true });
  });
  return session;
}

/** What a transcript shows, without the keys a store gives its items. */
function shown(items: readonly TranscriptItem[]): unknown[] {
  return items.map(({ key: _key, ...item }) => item);
}

/**
 * A transport as a page has one: records arrive as JSON text, and state and history answer later (promises),
 * read from the session the way a server's `get_state` / `get_messages` would.
 */
function remoteTransport(session: HarnessSession): SessionTransport & { records: ProtocolEvent[] } {
  const listeners = new Set<ProtocolEventListener>();
  const records: ProtocolEvent[] = [];
  harnessTransport(session).subscribe((record) => {
    const wire = JSON.parse(JSON.stringify(record)) as ProtocolEvent;
    records.push(wire);
    for (const listener of listeners) listener(wire);
  });
  return {
    records,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    state: async (): Promise<SessionState> => harnessSessionState(session),
    history: async (): Promise<SessionHistory> => ({
      messages: JSON.parse(JSON.stringify(session.state.messages)),
      warnings: [],
      totals: undefined,
    }),
  };
}

describe("SessionViewModel over a transport", () => {
  test("records over a remote transport make the same transcript, live and footer as the in-process view", async () => {
    const session = await startSession();
    const local = new SessionViewModel({ streamFrameMs: 0 });
    local.attach(session);
    const transport = remoteTransport(session);
    const remote = new SessionViewModel({ streamFrameMs: 0 });
    remote.attach(transport);
    const tools: string[] = [];
    const streamed: string[] = [];
    remote.subscribe(() => {
      for (const tool of remote.live.tools) if (tool.progress !== undefined) tools.push(tool.progress);
      const text = remote.live.streaming?.find((block) => block.kind === "text");
      if (text?.kind === "text") streamed.push(text.text);
      const call = remote.live.streaming?.find((block) => block.kind === "toolCall");
      if (call?.kind === "toolCall" && JSON.stringify(call.args) === '{"text":"hi"}') streamed.push("args");
    });

    await session.prompt("say hi");
    await session.waitForIdle();
    // The remote state answers after the settled record: wait for it.
    await expect.poll(() => remote.live.busy).toBe(false);

    expect(shown(remote.transcript.items)).toEqual(shown(local.transcript.items));
    expect(remote.transcript.items.map((item) => item.kind)).toEqual([
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(remote.live).toMatchObject({ busy: false, phase: "idle", streaming: undefined, tools: [] });
    expect(remote.footer).toMatchObject({ sessionId: session.id, model: local.footer.model });
    expect(remote.footer.totals).toEqual(local.footer.totals);
    expect(remote.footer.context).toEqual(local.footer.context);
    // The reply grew from its deltas; the call's arguments were parsed as they streamed; the tool's progress
    // was the last line of its output so far.
    expect(streamed.at(-1)).toBe("**Done**: the tool said hi.");
    expect(streamed).toContain("args");
    expect(tools).toEqual(expect.arrayContaining(["first line", "second line"]));
    expect(transport.records.map((record) => record.type)).toContain("toolcall_delta");
  });

  test("attaching over a remote transport replays the history when it arrives; a later attach drops the earlier answer", async () => {
    const session = await startSession();
    await session.prompt("say hi");
    const view = new SessionViewModel();
    view.attach(remoteTransport(session), { separator: "attached" });
    // Only the separator until the history answers.
    expect(view.transcript.items.map((item) => item.kind)).toEqual(["separator"]);
    await expect.poll(() => view.transcript.items.length).toBe(5);
    expect(view.transcript.items.map((item) => item.kind)).toEqual([
      "separator",
      "user",
      "assistant",
      "tool",
      "assistant",
    ]);
    expect(view.footer.sessionId).toBe(session.id);

    const other = new SessionViewModel();
    other.attach(remoteTransport(session));
    other.attach(session, { replay: false });
    await new Promise((resolve) => setTimeout(resolve, 10));
    // The in-process attach came last: the remote history that answered after it is not shown.
    expect(other.transcript.items).toEqual([]);
  });
});
