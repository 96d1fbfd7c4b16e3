import { type AgentTool, defineTool, Type } from "@arbor/agent-core";
import { createAssistantStream, type StreamFn } from "@arbor/ai-providers";
import { script } from "@arbor/ai-providers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HarnessBusyError, type HarnessEvent, type HarnessSession } from "../src/index.js";
import {
  bulkTool,
  createStoreFixture,
  createTestHarness,
  echoTool,
  messageEntryId,
  recordEvents,
  STORE_KINDS,
  type StoreFixture,
  storedEntries,
  textOf,
} from "./helpers.js";

/** A gate a test opens by hand. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { open, opened };
}

/** A tool that runs `body` (with the session at hand) before answering. */
function hookTool(name: string, body: (signal: AbortSignal) => Promise<void> | void): AgentTool {
  return defineTool({
    name,
    description: `Runs the test's ${name} step`,
    parameters: Type.Object({}),
    async execute(_args, { signal }) {
      await body(signal);
      return { content: [{ type: "text", text: `${name} done` }] };
    },
  }) as unknown as AgentTool;
}

function types(events: HarnessEvent[], wanted: readonly string[]): string[] {
  return events.filter((event) => wanted.includes(event.type)).map((event) => event.type);
}

describe.each(STORE_KINDS)("runtime: save points, phases, retries, queues (%s store)", (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture(kind);
  });
  afterEach(async () => fixture.cleanup());

  it("writes pending entries at each save point and not before; settings changed mid-turn follow the turn", async () => {
    let session!: HarnessSession;
    const { harness } = createTestHarness(fixture, {
      steps: [script.toolCall("configure", {}), script.toolCall("echo", { text: "x" }), script.text("end")],
      harness: {
        tools: [
          echoTool(),
          hookTool("configure", async () => {
            await session.setThinkingLevel("low");
            await session.label(messageEntryId(session, "go"), "start");
          }),
        ],
      },
    });
    session = await harness.newSession();
    const observations: string[] = [];
    let unsaved: string[] = [];
    session.subscribe(async (event) => {
      if (event.type === "message_end") {
        const id = session.session.leafId!;
        const stored = (await storedEntries(fixture.store, session.id)).map((entry) => entry.id);
        const file = await fixture.fileText(session.id);
        observations.push(`message_end stored=${stored.includes(id)} file=${file?.includes(id) ?? "n/a"}`);
        unsaved.push(id);
      }
      if (event.type === "save_point") {
        const stored = (await storedEntries(fixture.store, session.id)).map((entry) => entry.id);
        const file = await fixture.fileText(session.id);
        const all = unsaved.every((id) => stored.includes(id) && (file === undefined || file.includes(id)));
        observations.push(
          `save_point ${event.reason} all=${all} named=${unsaved.every((id) => event.entryIds.includes(id))}`,
        );
        unsaved = [];
      }
    });
    await session.prompt("go");
    const fileNote = kind === "jsonl" ? "false" : "n/a";
    // An assistant message that calls tools is stored before they run (save point `tool_calls`).
    expect(observations).toEqual([
      `message_end stored=false file=${fileNote}`,
      `message_end stored=false file=${fileNote}`,
      "save_point tool_calls all=true named=true",
      `message_end stored=false file=${fileNote}`,
      "save_point turn_end all=true named=true",
      `message_end stored=false file=${fileNote}`,
      "save_point tool_calls all=true named=true",
      `message_end stored=false file=${fileNote}`,
      "save_point turn_end all=true named=true",
      `message_end stored=false file=${fileNote}`,
      "save_point turn_end all=true named=true",
    ]);
    const stored = await storedEntries(fixture.store, session.id);
    const kinds = stored.map((entry) =>
      entry.type === "message" ? (entry.message as { role: string }).role : entry.type,
    );
    expect(kinds).toEqual([
      "model_change",
      "thinking_level_change",
      "user",
      "assistant",
      "toolResult",
      "thinking_level_change",
      "label",
      "assistant",
      "toolResult",
      "assistant",
    ]);
    expect(session.session.getLabel(messageEntryId(session, "go"))).toBe("start");
    expect(session.state.thinkingLevel).toBe("low");
  });

  it("refuses structural operations while busy with a typed error; steer, follow-up, abort and settings stay allowed", async () => {
    const release = gate();
    const inside = gate();
    let session!: HarnessSession;
    const { harness, provider } = createTestHarness(fixture, {
      steps: [script.toolCall("wait", {}), script.text("after wait"), script.text("follow-up answered")],
      harness: {
        tools: [
          hookTool("wait", async () => {
            inside.open();
            await release.opened;
          }),
        ],
      },
    });
    session = await harness.newSession();
    const running = session.prompt("start");
    await inside.opened;
    expect(session.phase).toBe("turn");
    expect(session.isBusy).toBe(true);
    for (const attempt of [
      () => session.prompt("again"),
      () => session.continue(),
      () => session.compact(),
      () => session.navigateTree(null),
      () => session.fork(messageEntryId(session, "start")),
    ]) {
      const error = await attempt().then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(HarnessBusyError);
      expect(error).toMatchObject({ code: "harness_busy", running: "prompt", phase: "turn" });
    }
    session.steer("steering note");
    session.followUp("a follow-up");
    await session.setName("busy session");
    release.open();
    await running;
    expect(session.phase).toBe("idle");
    expect(session.isBusy).toBe(false);
    provider.assertDone();
    const texts = session.state.messages.map(textOf);
    expect(texts).toEqual([
      "start",
      "",
      "wait done",
      "steering note",
      "after wait",
      "a follow-up",
      "follow-up answered",
    ]);
    expect(session.session.name).toBe("busy session");
  });

  it("never runs two compactions at once", async () => {
    const inHook = gate();
    const release = gate();
    let session!: HarnessSession;
    const nested: unknown[] = [];
    const { harness } = createTestHarness(fixture, {
      steps: [script.toolCall("bulk", { part: 1 }), script.toolCall("bulk", { part: 2 }), script.text("ok")],
      harness: {
        tools: [bulkTool(2400)],
        settings: { compaction: { keepRecentTokens: 700 } },
        hooks: {
          session_before_compact: async () => {
            await session.compact().catch((error: unknown) => nested.push(error));
            inHook.open();
            await release.opened;
          },
        },
      },
    });
    session = await harness.newSession();
    await session.prompt("fill");
    const first = session.compact();
    await inHook.opened;
    expect(session.phase).toBe("compaction");
    const second = await session.compact().then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(second).toBeInstanceOf(HarnessBusyError);
    expect(second).toMatchObject({ phase: "compaction", running: "compact" });
    expect(nested[0]).toBeInstanceOf(HarnessBusyError);
    release.open();
    expect((await first).kind).toBe("compacted");
    const compactions = (await storedEntries(fixture.store, session.id)).filter(
      (entry) => entry.type === "compaction",
    );
    expect(compactions).toHaveLength(1);
  });

  it("retries transient failures after 2 and 4 s with events; the failed responses stay in the store but leave the context", async () => {
    const { harness, provider, sleeps } = createTestHarness(fixture, {
      steps: [
        script.error("503 Service Unavailable: upstream overloaded"),
        script.error('529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'),
        script.text("third time lucky"),
      ],
      harness: { settings: { retry: { jitter: 0 } } },
    });
    const session = await harness.newSession();
    const events = recordEvents(session);
    await session.prompt("hello");
    provider.assertDone();
    expect(sleeps).toEqual([2000, 4000]);
    const retryEvents = events.filter((event) => event.type.startsWith("retry_"));
    expect(retryEvents).toEqual([
      expect.objectContaining({ type: "retry_scheduled", attempt: 1, delayMs: 2000, maxRetries: 3 }),
      { type: "retry_attempt", attempt: 1 },
      expect.objectContaining({ type: "retry_scheduled", attempt: 2, delayMs: 4000 }),
      { type: "retry_attempt", attempt: 2 },
      { type: "retry_finished", success: true, attempts: 2 },
    ]);
    expect(provider.calls.map((call) => call.options.maxRetries)).toEqual([0, 0, 0]);
    expect(provider.calls[2]!.context.messages.map(textOf)).toEqual(["hello"]);
    expect(session.state.messages.map(textOf)).toEqual(["hello", "third time lucky"]);
    expect(session.state.errorMessage).toBeUndefined();
    const stored = await storedEntries(fixture.store, session.id);
    const failed = stored.filter(
      (entry) =>
        entry.type === "message" && (entry.message as { stopReason?: string }).stopReason === "error",
    );
    expect(failed).toHaveLength(2);
    const path = session.session.getPath().map((ref) => ref.id);
    expect(failed.some((entry) => path.includes(entry.id))).toBe(false);
  });

  it("gives up after the policy's retries, does not retry permanent errors, honours retry-after, and stops on abort", async () => {
    // Gives up.
    let setup = createTestHarness(fixture, {
      steps: [script.error("overloaded"), script.error("overloaded")],
      harness: { settings: { retry: { maxRetries: 1, jitter: 0 } } },
    });
    let session = await setup.harness.newSession();
    let events = recordEvents(session);
    await session.prompt("one");
    expect(events.filter((event) => event.type === "retry_finished")).toEqual([
      expect.objectContaining({
        success: false,
        attempts: 1,
        errorMessage: expect.stringMatching(/gave up after 1 retry/),
      }),
    ]);
    expect(session.state.errorMessage).toBe("overloaded");

    // Permanent.
    setup = createTestHarness(fixture, { steps: [script.error("401 invalid x-api-key")] });
    session = await setup.harness.newSession();
    events = recordEvents(session);
    await session.prompt("two");
    expect(types(events, ["retry_scheduled", "retry_finished"])).toEqual([]);
    expect(setup.sleeps).toEqual([]);

    // retry-after from the response headers.
    let firstCall = true;
    const withHeaders =
      (inner: StreamFn): StreamFn =>
      (model, context, options) => {
        const output = createAssistantStream();
        void (async () => {
          if (firstCall) await options?.onResponse?.({ status: 429, headers: { "retry-after": "7" } }, model);
          firstCall = false;
          for await (const event of inner(model, context, options)) output.push(event);
        })();
        return output;
      };
    setup = createTestHarness(fixture, {
      steps: [script.error("429 Too Many Requests"), script.text("ok")],
      wrapStream: withHeaders,
    });
    session = await setup.harness.newSession();
    await session.prompt("three");
    expect(setup.sleeps).toEqual([7000]);

    // Abort during the wait.
    setup = createTestHarness(fixture, { steps: [script.error("overloaded")] });
    session = await setup.harness.newSession();
    events = recordEvents(session);
    session.subscribe((event) => {
      if (event.type === "retry_scheduled") session.abort();
    });
    await session.prompt("four");
    expect(events.filter((event) => event.type === "retry_finished")).toEqual([
      { type: "retry_finished", success: false, attempts: 1, aborted: true },
    ]);
    expect(session.phase).toBe("idle");
  });

  it("nextTurn messages go with the next prompt; queue updates are reported; abort ends a run and the session goes on", async () => {
    const inside = gate();
    const { harness, provider } = createTestHarness(fixture, {
      steps: [script.text("A"), script.toolCall("wait", {}), script.text("B")],
      harness: {
        tools: [
          hookTool("wait", async (signal) => {
            inside.open();
            await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
          }),
        ],
      },
    });
    const session = await harness.newSession();
    const events = recordEvents(session);
    session.nextTurn("note for later");
    expect(provider.calls).toHaveLength(0);
    expect(session.state.queued.nextTurn.map(textOf)).toEqual(["note for later"]);
    await session.prompt("a");
    expect(provider.calls[0]!.context.messages.map(textOf)).toEqual(["note for later", "a"]);
    expect(
      events
        .filter((event) => event.type === "queue_update")
        .map((event) => (event as unknown as { nextTurn: unknown[] }).nextTurn.length),
    ).toEqual([1, 0]);

    const running = session.prompt("wait for me");
    await inside.opened;
    session.abort();
    await running;
    expect(session.phase).toBe("idle");
    expect(session.state.messages.at(-1)).toMatchObject({ role: "toolResult", isError: true });
    await session.prompt("b");
    expect(textOf(session.state.messages.at(-1))).toBe("B");
    provider.assertDone();
    expect(types(events, ["settled"])).toHaveLength(3);
  });

  it("abort() during a compaction appends nothing and leaves the session idle", async () => {
    let session!: HarnessSession;
    const { harness, summarizer } = createTestHarness(fixture, {
      steps: [script.toolCall("bulk", { part: 1 }), script.toolCall("bulk", { part: 2 }), script.text("ok")],
      harness: {
        tools: [bulkTool(2400)],
        settings: { compaction: { keepRecentTokens: 700 } },
        hooks: {
          session_before_compact: () => {
            session.abort();
          },
        },
      },
    });
    session = await harness.newSession();
    await session.prompt("fill");
    const events = recordEvents(session);
    expect(await session.compact()).toEqual({
      kind: "aborted",
      message: "Compaction aborted; the session is unchanged.",
    });
    expect(summarizer.count()).toBe(0);
    expect(
      (await storedEntries(fixture.store, session.id)).some((entry) => entry.type === "compaction"),
    ).toBe(false);
    expect(types(events, ["compaction_start", "compaction_end", "settled"])).toEqual([
      "compaction_start",
      "compaction_end",
      "settled",
    ]);
    expect(session.phase).toBe("idle");
  });
});
