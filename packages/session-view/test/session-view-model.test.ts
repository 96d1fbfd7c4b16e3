import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defineTool, Type } from "@arbor/agent-core";
import { createProviderStream } from "@arbor/ai-providers";
import { createScriptedProvider, type ScriptedStep, script } from "@arbor/ai-providers/testing";
import { createHarness, type HarnessSession } from "@arbor/harness";
import { MemorySessionStore } from "@arbor/session-store";
import { afterEach, describe, expect, test } from "vitest";
import { SessionViewModel, type SessionViewSnapshot, type TranscriptItem } from "../src/index.js";
import { GENERATION_SIZE } from "../src/session-view-model.js";

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

const echo = defineTool({
  name: "echo",
  description: "Echo the text back",
  parameters: Type.Object({ text: Type.String() }),
  execute: ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }),
});

/** A harness session over a memory store, answered by the scripted steps. */
async function startSession(
  steps: ScriptedStep[],
): Promise<{ session: HarnessSession; store: MemorySessionStore }> {
  const root = await mkdtemp(join(tmpdir(), "arbor-session-view-"));
  const provider = createScriptedProvider(steps, { chunkSize: 4 });
  const store = new MemorySessionStore();
  const harness = createHarness({
    streamFn: provider.stream,
    model: provider.model,
    store,
    cwd: root,
    tools: [echo as never],
  });
  const session = await harness.newSession();
  cleanups.push(async () => {
    await session.close();
    await rm(root, { recursive: true, force: true });
  });
  return { session, store };
}

function kinds(items: readonly TranscriptItem[]): string[] {
  return items.map((item) => item.kind);
}

describe("SessionViewModel", () => {
  test("follows a run: user message, streamed reply, tool call with its result, usage totals", async () => {
    const { session } = await startSession([
      script.toolCall("echo", { text: "hi" }, { text: "Calling echo." }),
      script.text("**Done**: the tool said hi.", {
        usage: { input: 100, output: 20, cacheRead: 50, cacheWrite: 0 },
      }),
    ]);
    const view = new SessionViewModel({ persistent: false, streamFrameMs: 0 });
    view.attach(session);
    const snapshots: SessionViewSnapshot[] = [];
    const unsubscribe = view.subscribe(() => snapshots.push(view.getSnapshot()));
    const streamed: string[] = [];
    view.subscribe(() => {
      const live = view.live.streaming;
      const text = live?.find((block) => block.kind === "text");
      if (text !== undefined && text.kind === "text") streamed.push(text.text);
    });

    await session.prompt("say hi");
    await session.waitForIdle();
    unsubscribe();

    const { transcript, live, footer } = view.getSnapshot();
    expect(kinds(transcript.items)).toEqual(["user", "assistant", "tool", "assistant"]);
    const [user, first, tool, last] = transcript.items;
    expect(user).toMatchObject({ kind: "user", text: "say hi" });
    expect(first).toMatchObject({ kind: "assistant", blocks: [{ kind: "markdown", text: "Calling echo." }] });
    expect(tool).toMatchObject({ kind: "tool", name: "echo", argumentLine: "text: hi", isError: false });
    expect(tool?.kind === "tool" && tool.output.lines).toEqual(["echo: hi"]);
    // The reply's Markdown is kept as source: a renderer parses it.
    expect(last).toMatchObject({ blocks: [{ kind: "markdown", text: "**Done**: the tool said hi." }] });
    // The streaming reply was seen growing in the live slice, and it is cleared at the end.
    expect(streamed.length).toBeGreaterThan(1);
    expect(streamed.at(-1)).toBe("**Done**: the tool said hi.");
    expect(live).toMatchObject({ busy: false, phase: "idle", streaming: undefined, tools: [] });
    expect(footer.model).toBe(`${session.state.model.provider}/${session.state.model.id}`);
    expect(footer.sessionId).toBe(session.id);
    expect(footer.persistent).toBe(false);
    // The second reply's usage counts prompt tokens with the cached ones.
    expect(footer.totals.output).toBeGreaterThanOrEqual(20);
    expect(footer.totals.input).toBeGreaterThanOrEqual(150);
    expect(footer.totals.cacheRead).toBe(50);
    // Every notification came with a new snapshot; no two in a row are the same object.
    expect(snapshots.length).toBeGreaterThan(3);
    expect(new Set(snapshots).size).toBe(snapshots.length);
  });

  test("getSnapshot keeps its identity until a slice changes, and only the changed slice is replaced", async () => {
    const { session } = await startSession([script.text("hello")]);
    const view = new SessionViewModel();
    view.attach(session);
    const first = view.getSnapshot();
    expect(view.getSnapshot()).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);

    let calls = 0;
    const unsubscribe = view.subscribe(() => calls++);
    view.setHint("press again");
    const second = view.getSnapshot();
    expect(calls).toBe(1);
    expect(second).not.toBe(first);
    expect(second.live).not.toBe(first.live);
    expect(second.live.hint).toBe("press again");
    expect(second.transcript).toBe(first.transcript);
    expect(second.footer).toBe(first.footer);
    expect(view.getSnapshot()).toBe(second);

    // Setting the same hint again is no change: no notification, same snapshot.
    view.setHint("press again");
    expect(calls).toBe(1);
    expect(view.getSnapshot()).toBe(second);

    view.notice("info", "a notice");
    const third = view.getSnapshot();
    expect(third.transcript).not.toBe(second.transcript);
    expect(third.live).toBe(second.live);
    expect(third.transcript.items.at(-1)).toMatchObject({ kind: "notice", text: "a notice" });

    unsubscribe();
    view.notice("info", "unheard");
    expect(calls).toBe(2);
  });

  test("marks queued messages, shows the queues while they wait, and replays a session it attaches to", async () => {
    const { session } = await startSession([script.text("first answer"), script.text("second answer")]);
    const view = new SessionViewModel({ streamFrameMs: 0 });
    view.attach(session);
    const queues: (readonly string[])[] = [];
    view.subscribe(() => queues.push(view.live.followUp));
    const run = session.prompt("one");
    view.queued("two", "follow-up");
    session.followUp("two");
    await run;
    await session.waitForIdle();
    expect(queues.some((queue) => queue.includes("two"))).toBe(true);
    expect(view.live.followUp).toEqual([]);
    const users = view.transcript.items.filter((item) => item.kind === "user");
    expect(users).toMatchObject([
      { text: "one", note: undefined },
      { text: "two", note: "follow-up" },
    ]);

    // A second view of the same session replays its context, with no live state.
    const replayed = new SessionViewModel({ replayHint: "see the full list" });
    replayed.attach(session, { separator: "resumed" });
    expect(kinds(replayed.transcript.items)).toEqual(["separator", "user", "assistant", "user", "assistant"]);
    replayed.detach();
  });

  test("shows each part of a reply its provider could not read, live and on replay", async () => {
    const root = await mkdtemp(join(tmpdir(), "arbor-session-view-"));
    const { model } = createScriptedProvider([]);
    const harness = createHarness({
      streamFn: (streamModel, _context, options) =>
        createProviderStream(streamModel, options, ({ writer }) => {
          writer.text("The answer.");
          writer.unreadable('content block "citations"');
        }),
      model,
      store: new MemorySessionStore(),
      cwd: root,
    });
    const session = await harness.newSession();
    cleanups.push(async () => {
      await session.close();
      await rm(root, { recursive: true, force: true });
    });
    const view = new SessionViewModel({ streamFrameMs: 0 });
    view.attach(session);
    await session.prompt("Why?");
    const notice = {
      kind: "notice",
      level: "warning",
      text: 'Arbor could not read part of this response: content block "citations".',
    };
    expect(view.transcript.items.filter((item) => item.kind === "notice")).toMatchObject([notice]);
    const replayed = new SessionViewModel();
    replayed.attach(session);
    expect(replayed.transcript.items.filter((item) => item.kind === "notice")).toMatchObject([notice]);
    replayed.detach();
  });

  test("a save the store refuses: said once while it is retried, then the error and why the run stopped", async () => {
    class FailingStore extends MemorySessionStore {
      failing = false;
      override async appendEntries(...args: Parameters<MemorySessionStore["appendEntries"]>) {
        if (this.failing) throw new Error("EIO: i/o error, write");
        return super.appendEntries(...args);
      }
    }
    const store = new FailingStore();
    const provider = createScriptedProvider([script.text("first"), script.text("second")]);
    const harness = createHarness({
      streamFn: provider.stream,
      model: provider.model,
      store,
      cwd: "/tmp",
      settings: { saveRetry: { timeoutMs: 40, initialDelayMs: 10, maxDelayMs: 10 } },
      onError: () => undefined,
    });
    const session = await harness.newSession();
    cleanups.push(() => session.close().catch(() => undefined));
    await session.prompt("one");
    const view = new SessionViewModel({ streamFrameMs: 0 });
    view.attach(session);
    store.failing = true;
    await session.prompt("two");
    const notices = view.transcript.items.flatMap((item) => (item.kind === "notice" ? [item] : []));
    expect(notices.filter((notice) => notice.text.startsWith("the store refused the save"))).toHaveLength(1);
    expect(
      notices.some((notice) => notice.level === "error" && /could not save the session/.test(notice.text)),
    ).toBe(true);
    view.detach();
  });

  test("hands the transcript out in bounded generations, rolling over only once everything was printed", () => {
    const view = new SessionViewModel();
    for (let index = 0; index < GENERATION_SIZE + 10; index++) view.notice("info", `notice ${index}`);
    // Nothing acknowledged as printed: the generation keeps every item.
    expect(view.transcript.generation).toBe(0);
    expect(view.transcript.items).toHaveLength(GENERATION_SIZE + 10);
    view.acknowledgeTranscript(0, view.transcript.items.length);
    view.notice("info", "next");
    expect(view.transcript.generation).toBe(1);
    expect(view.transcript.items.map((item) => (item.kind === "notice" ? item.text : ""))).toEqual(["next"]);
    const keys = new Set<string>();
    for (let index = 0; index < 500; index++) {
      view.acknowledgeTranscript(view.transcript.generation, view.transcript.items.length);
      view.notice("info", String(index));
      expect(view.transcript.items.length).toBeLessThanOrEqual(GENERATION_SIZE);
      keys.add(view.transcript.items.at(-1)!.key);
    }
    expect(keys.size).toBe(500);
  });

  test("a replay longer than the limit starts with a notice counting what it leaves out", async () => {
    const steps = Array.from({ length: 25 }, (_, index) => script.text(`answer ${index}`));
    const { session } = await startSession(steps);
    for (let index = 0; index < 25; index++) await session.prompt(`question ${index}`);
    const view = new SessionViewModel({ replayHint: "arbor sessions show lists them all" });
    view.attach(session);
    const [notice, ...rest] = view.transcript.items;
    expect(notice).toMatchObject({
      kind: "notice",
      text: "… 10 earlier messages (arbor sessions show lists them all)",
    });
    expect(rest).toHaveLength(40);
    view.detach();
  });

  test("shows what a compaction did in the harness's plain words", async () => {
    const { session } = await startSession([script.text("Only answer.")]);
    const view = new SessionViewModel();
    view.attach(session, { replay: false });
    await session.prompt("Only question");
    await session.compact();
    expect(view.transcript.items.at(-1)).toMatchObject({
      kind: "notice",
      level: "info",
      text: "Nothing to compact yet: the session has only one turn.",
    });
    view.detach();
  });

  test("a series of retries that gave up is one notice, saying 'gave up' once", async () => {
    const provider = createScriptedProvider([script.error("overloaded"), script.error("overloaded")]);
    const harness = createHarness({
      streamFn: provider.stream,
      model: provider.model,
      store: new MemorySessionStore(),
      cwd: tmpdir(),
      settings: { retry: { maxRetries: 1, baseDelayMs: 1, jitter: 0 } },
    });
    const session = await harness.newSession();
    cleanups.push(() => session.close());
    const view = new SessionViewModel({ persistent: false, streamFrameMs: 0 });
    view.attach(session);
    await session.prompt("hi");
    const notices = view.transcript.items.flatMap((item) => (item.kind === "notice" ? [item.text] : []));
    expect(notices.filter((text) => text.includes("gave up"))).toEqual(["gave up after 1 retry: overloaded"]);
  });
});
