import { type AgentTool, defineTool, Type } from "@arbor/agent-core";
import { script } from "@arbor/ai-providers/testing";
import { MemorySessionStore, SessionConflictError, type SessionEntry } from "@arbor/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type KeptEntries,
  SessionUnsavedError,
  type UnsavedEntries,
  type UnsavedEntriesKeeper,
} from "../src/index.js";
import { createStoreFixture, createTestHarness, recordEvents, type StoreFixture } from "./helpers.js";

/** A memory store whose appends fail while `refuse` returns an error for the append's number (1, 2, …). */
class FaultyStore extends MemorySessionStore {
  appends = 0;
  refuse: (append: number, expected: string | null | undefined) => unknown = () => undefined;
  refuseCreate = false;

  override async createSession(...args: Parameters<MemorySessionStore["createSession"]>) {
    if (this.refuseCreate) throw diskFull();
    return super.createSession(...args);
  }

  override async appendEntries(...args: Parameters<MemorySessionStore["appendEntries"]>) {
    this.appends++;
    const error = this.refuse(this.appends, args[2]?.expectedLastEntryId);
    if (error !== undefined) throw error;
    return super.appendEntries(...args);
  }
}

/** A disk-full error as `fs.writeSync` throws it. */
function diskFull(): Error {
  return Object.assign(new Error("ENOSPC: no space left on device, write"), {
    code: "ENOSPC",
    syscall: "write",
  });
}

/** The `bash` of these tests: counts its runs. */
function countingTool(runs: { count: number; log: string[] }, onRun?: () => Promise<void>): AgentTool {
  return defineTool({
    name: "bash",
    description: "Runs a step",
    parameters: Type.Object({ command: Type.String() }),
    async execute({ command }) {
      runs.count++;
      runs.log.push(command);
      await onRun?.();
      return { content: [{ type: "text", text: `ran ${command}` }] };
    },
  }) as unknown as AgentTool;
}

/** An 8-step tool loop, then an answer. */
function toolLoop(steps = 8) {
  return [
    ...Array.from({ length: steps }, (_, step) => script.toolCall("bash", { command: `echo step ${step}` })),
    script.text("All steps are done."),
  ];
}

/** A keeper that records what it was given (and fails while `failing`). */
function recordingKeeper() {
  const kept: UnsavedEntries[] = [];
  const released: KeptEntries[] = [];
  const keeper: UnsavedEntriesKeeper & { kept: UnsavedEntries[]; released: KeptEntries[] } = {
    kept,
    released,
    async keep(unsaved, previous) {
      kept.push(structuredClone(unsaved));
      return (
        previous ?? { location: `/recovery/${unsaved.sessionId}.jsonl`, howToApply: "`recover` applies them" }
      );
    },
    async release(location) {
      released.push(location);
    },
  };
  return keeper;
}

describe("a save point the store refuses (docs/reference/harness.md, Failed saves)", () => {
  let fixture: StoreFixture;
  let store: FaultyStore;
  beforeEach(async () => {
    fixture = await createStoreFixture("memory");
    store = new FaultyStore();
    fixture.store = store;
  });
  afterEach(async () => fixture.cleanup());

  it("stops the run: no tool runs and no model call is made after the save failed", async () => {
    const runs = { count: 0, log: [] as string[] };
    const keeper = recordingKeeper();
    const { harness, calls } = createTestHarness(fixture, {
      steps: toolLoop(),
      harness: { tools: [countingTool(runs)], unsavedEntries: keeper },
    });
    const session = await harness.newSession();
    const events = recordEvents(session);
    let runsAtFailure = -1;
    session.subscribe((event) => {
      if (event.type === "save_error") runsAtFailure = runs.count;
    });
    // Appends 1-2 store step 0 (its call, then its result); from the 3rd on the disk is full.
    store.refuse = (append) => (append >= 3 ? diskFull() : undefined);
    await session.prompt("run the steps");
    expect(events.filter((event) => event.type === "save_error")).toHaveLength(1);
    expect(runs.count - runsAtFailure).toBe(0);
    expect(runs.log).toEqual(["echo step 0"]);
    const failedAt = events.findIndex((event) => event.type === "save_error");
    const modelCallsAfter = events
      .slice(failedAt)
      .filter((event) => event.type === "message_start" && event.message.role === "assistant").length;
    expect(modelCallsAfter).toBe(0);
    expect(calls.filter((call) => call === "main")).toHaveLength(2);
    const stopped = events.find((event) => event.type === "run_stopped");
    expect(stopped).toMatchObject({
      reason: "save_failed",
      kept: { location: `/recovery/${session.id}.jsonl` },
    });
    expect(stopped?.type === "run_stopped" && stopped.message).toMatch(
      /^The run stopped before running anything more: the session could not be saved \(ENOSPC: no space left on device, write \(9 attempts over 30 s\)\)\. The 2 entries not stored are kept in \/recovery\/.*\.jsonl; `recover` applies them\.$/,
    );
    // The call that was not run is answered, so the kept context is one a strict server accepts.
    const last = session.state.messages.at(-1) as { role: string; content: { text: string }[] };
    expect(last.role).toBe("toolResult");
    expect(last.content[0]?.text).toMatch(/^Not run: the session could not be saved/);
    await harness.close();
  });

  it("stores the assistant message that calls tools before they run", async () => {
    const runs = { count: 0, log: [] as string[] };
    const seen: string[] = [];
    let sessionId = "";
    const tool = countingTool(runs, async () => {
      const stored = await store.readSession(sessionId);
      const calls = stored.entries
        .map((ref) => ref.entry())
        .filter((entry) => entry.type === "message" && entry.message.role === "assistant");
      seen.push(`${calls.length} assistant message(s) stored while step ${runs.count - 1} runs`);
    });
    const { harness } = createTestHarness(fixture, {
      steps: toolLoop(2),
      harness: { tools: [tool] },
    });
    const session = await harness.newSession();
    sessionId = session.id;
    const events = recordEvents(session);
    await session.prompt("run the steps");
    expect(seen).toEqual([
      "1 assistant message(s) stored while step 0 runs",
      "2 assistant message(s) stored while step 1 runs",
    ]);
    const reasons = events.flatMap((event) => (event.type === "save_point" ? [event.reason] : []));
    expect(reasons).toEqual(["tool_calls", "turn_end", "tool_calls", "turn_end", "turn_end"]);
    await harness.close();
  });

  it("retries a refused save with growing delays; the run goes on when the store is back", async () => {
    const runs = { count: 0, log: [] as string[] };
    const keeper = recordingKeeper();
    const { harness, sleeps } = createTestHarness(fixture, {
      steps: toolLoop(),
      harness: { tools: [countingTool(runs)], unsavedEntries: keeper },
    });
    const session = await harness.newSession();
    const events = recordEvents(session);
    store.refuse = (append) => (append >= 3 && append <= 6 ? diskFull() : undefined);
    await session.prompt("run the steps");
    expect(sleeps).toEqual([250, 500, 1000, 2000]);
    const retries = events.flatMap((event) => (event.type === "save_retry" ? [event.attempt] : []));
    expect(retries).toEqual([1, 2, 3, 4]);
    expect(events.some((event) => event.type === "save_error" || event.type === "run_stopped")).toBe(false);
    expect(runs.count).toBe(8);
    expect(keeper.kept).toEqual([]);
    const stored = await store.readSession(session.id);
    expect(stored.entries.map((entry) => entry.id)).toEqual(session.session.getPath().map((ref) => ref.id));
    await harness.close();
  });

  it("gives up after the time set, with delays up to the largest", async () => {
    const { harness, sleeps } = createTestHarness(fixture, {
      steps: toolLoop(1),
      harness: {
        tools: [countingTool({ count: 0, log: [] })],
        settings: { saveRetry: { timeoutMs: 5_000, initialDelayMs: 1_000, maxDelayMs: 2_000 } },
      },
    });
    const session = await harness.newSession();
    store.refuse = () => diskFull();
    await session.prompt("run the steps");
    expect(sleeps).toEqual([1_000, 2_000, 2_000]);
    await harness.close();
  });

  it("never retries a conflict; keeps the entries at once, after the entry the store expected", async () => {
    const runs = { count: 0, log: [] as string[] };
    const keeper = recordingKeeper();
    const { harness, sleeps } = createTestHarness(fixture, {
      steps: toolLoop(),
      harness: { tools: [countingTool(runs)], unsavedEntries: keeper },
    });
    const session = await harness.newSession();
    const events = recordEvents(session);
    store.refuse = (append, expected) =>
      append >= 3 ? new SessionConflictError(session.id, expected ?? null, "e-other") : undefined;
    await session.prompt("run the steps");
    expect(sleeps).toEqual([]);
    expect(events.some((event) => event.type === "save_retry")).toBe(false);
    expect(runs.count).toBe(1);
    const last = keeper.kept.at(-1) as UnsavedEntries;
    expect(last.conflict).toBe(true);
    const stored = await store.readSession(session.id);
    expect(last.expectedLastEntryId).toBe(stored.entries.at(-1)?.id);
    await harness.close();
  });

  it("keeps every entry not stored; the next run writes them first and releases the copy", async () => {
    const runs = { count: 0, log: [] as string[] };
    const keeper = recordingKeeper();
    const { harness, provider } = createTestHarness(fixture, {
      steps: [...toolLoop(), script.text("Second answer.")],
      harness: { tools: [countingTool(runs)], unsavedEntries: keeper },
    });
    const session = await harness.newSession();
    store.refuse = (append) => (append >= 4 ? diskFull() : undefined);
    await session.prompt("run the steps");
    const stored = await store.readSession(session.id);
    const storedIds = new Set(stored.entries.map((entry) => entry.id));
    const kept = keeper.kept.at(-1) as UnsavedEntries;
    // Every entry of the session is in the store or in what was kept; the kept ones follow the stored ones.
    const all = session.session.getPath().map((ref) => ref.id);
    expect(all.filter((id) => !storedIds.has(id))).toEqual(
      kept.entries.map((entry: SessionEntry) => entry.id),
    );
    expect(kept.expectedLastEntryId).toBe(stored.entries.at(-1)?.id);
    expect(kept.sessionStored).toBe(true);
    expect(kept.header.id).toBe(session.id);

    // The store still refuses: the next prompt runs nothing.
    const callsBefore = provider.calls.length;
    await expect(session.prompt("again")).rejects.toBeInstanceOf(SessionUnsavedError);
    await expect(session.prompt("again")).rejects.toThrow(/nothing runs until they are saved/);
    expect(provider.calls.length).toBe(callsBefore);
    expect(runs.count).toBe(2);

    // It is back: the kept entries are written first, the copy is released, and the run goes on.
    store.refuse = () => undefined;
    await session.continue();
    expect(keeper.released).toEqual([
      { location: `/recovery/${session.id}.jsonl`, howToApply: "`recover` applies them" },
    ]);
    const after = await store.readSession(session.id);
    const afterIds = new Set(after.entries.map((entry) => entry.id));
    expect(session.session.getPath().every((ref) => afterIds.has(ref.id))).toBe(true);
    await harness.close();
  });

  it("keeps a new session's header when even its first save fails", async () => {
    const keeper = recordingKeeper();
    const { harness } = createTestHarness(fixture, {
      steps: toolLoop(1),
      harness: {
        tools: [countingTool({ count: 0, log: [] })],
        unsavedEntries: keeper,
        settings: { saveRetry: { timeoutMs: 0 } },
      },
    });
    const session = await harness.newSession({ createOnFirstFlush: true });
    store.refuseCreate = true;
    store.refuse = () => diskFull();
    await session.prompt("run the steps");
    const kept = keeper.kept.at(-1) as UnsavedEntries;
    expect(kept.sessionStored).toBe(false);
    expect(kept.expectedLastEntryId).toBeNull();
    expect(kept.entries.map((entry) => entry.type)).toEqual([
      "model_change",
      "thinking_level_change",
      "message",
      "message",
      "message",
    ]);
    await harness.close();
  });
});
