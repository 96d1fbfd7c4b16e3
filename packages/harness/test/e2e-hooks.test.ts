import type { AgentMessage } from "@arbor/agent-core";
import { createAssistantStream, type ProviderResponseInfo, type StreamFn } from "@arbor/ai-providers";
import { script } from "@arbor/ai-providers/testing";
import type { CompactionEntry } from "@arbor/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HarnessHookError } from "../src/index.js";
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

/** A stream function that behaves like a real provider on the wire: it builds a body, lets `onPayload` see it, reports the response. */
function wire(record: { payloads: unknown[] }, response: ProviderResponseInfo) {
  return (inner: StreamFn): StreamFn =>
    (model, context, options) => {
      const output = createAssistantStream();
      void (async () => {
        const body = { model: model.id, messageCount: context.messages.length };
        const replaced = await options?.onPayload?.(body, model);
        record.payloads.push(replaced === undefined ? body : replaced);
        await options?.onResponse?.(response, model);
        for await (const event of inner(model, context, options)) output.push(event);
      })();
      return output;
    };
}

describe.each(STORE_KINDS)("hooks (%s store)", (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture(kind);
  });
  afterEach(async () => fixture.cleanup());

  it("tool_call blocks a tool; the model sees the reason; tool_result patches chain in order", async () => {
    const { harness, provider } = createTestHarness(fixture, {
      steps: [
        script.toolCalls([
          { name: "echo", arguments: { text: "rm -rf /" } },
          { name: "echo", arguments: { text: "hello" } },
        ]),
        script.text("ok"),
      ],
      harness: {
        tools: [echoTool()],
        hooks: {
          tool_call: (event) =>
            String(event.args.text).startsWith("rm")
              ? { block: true, reason: "Refused: destructive" }
              : undefined,
          tool_result: [
            (event) => ({ content: [{ type: "text", text: `${textOf(event.result)} [first]` }] }),
            (event) => ({ content: [{ type: "text", text: `${textOf(event.result)} [second]` }] }),
          ],
        },
      },
    });
    const session = await harness.newSession();
    await session.prompt("run both");
    const results = provider.calls[1]!.context.messages.filter((message) => message.role === "toolResult");
    expect(results.map((message) => [textOf(message), message.isError])).toEqual([
      ["Refused: destructive", true],
      ["echo: hello [first] [second]", false],
    ]);
  });

  it("before_provider_request patches options, before_provider_payload patches the wire body, after_provider_response observes", async () => {
    const record = { payloads: [] as unknown[] };
    const responses: number[] = [];
    const { harness, provider } = createTestHarness(fixture, {
      steps: [script.text("ok")],
      wrapStream: wire(record, { status: 200, headers: { "x-request-id": "req_1" } }),
      harness: {
        hooks: {
          before_provider_request: [
            () => ({ options: { headers: { "x-first": "1" }, maxTokens: 99 } }),
            (event) => ({ options: { headers: { "x-second": String(event.options.maxTokens) } } }),
          ],
          before_provider_payload: [
            (event) => ({ payload: { ...(event.payload as object), patched: ["first"] } }),
            (event) => {
              const body = event.payload as { patched: string[] };
              return { payload: { ...body, patched: [...body.patched, "second"] } };
            },
          ],
          after_provider_response: (event) => {
            responses.push(event.status);
          },
        },
      },
    });
    const session = await harness.newSession();
    await session.prompt("hi");
    const options = provider.calls[0]!.options as { headers: Record<string, string>; maxTokens: number };
    expect(options.headers).toEqual({ "x-first": "1", "x-second": "99" });
    expect(options.maxTokens).toBe(99);
    expect(record.payloads).toEqual([
      { model: "scripted-model", messageCount: 1, patched: ["first", "second"] },
    ]);
    expect(responses).toEqual([200]);
  });

  it("context prunes what one call sees; before_agent_start adds messages and changes the system prompt for one run", async () => {
    const { harness, provider } = createTestHarness(fixture, {
      steps: [script.text("A"), script.text("B"), script.text("C")],
      harness: { systemPrompt: "You are the base prompt." },
    });
    const session = await harness.newSession();
    await session.prompt("a");
    const unsubscribe = session.on("context", (event) => ({
      messages: event.messages.filter((message) => textOf(message) !== "a"),
    }));
    session.on("before_agent_start", (event) =>
      event.text === "b"
        ? {
            messages: [
              {
                role: "custom",
                customType: "retrieved",
                content: "retrieved context",
                display: false,
                timestamp: Date.now(),
              } as unknown as AgentMessage,
            ],
            systemPrompt: `${event.systemPrompt}\nExtra for this run.`,
          }
        : undefined,
    );
    await session.prompt("b");
    const call = provider.calls[1]!.context;
    expect(call.messages.map(textOf)).toEqual(["A", "b", "retrieved context"]);
    expect(call.systemPrompt).toMatch(/^You are the base prompt\.[\s\S]*Extra for this run\.$/);
    // The session keeps everything; the next run has the base prompt again.
    expect(session.state.messages.map(textOf)).toEqual(["a", "A", "b", "retrieved context", "B"]);
    unsubscribe();
    await session.prompt("c");
    expect(provider.calls[2]!.context.systemPrompt).not.toContain("Extra for this run.");
    expect(provider.calls[2]!.context.messages.map(textOf)[0]).toBe("a");
  });

  it("session_before_compact can cancel a compaction or supply its summary", async () => {
    let mode: "cancel" | "supply" = "cancel";
    const { harness, summarizer } = createTestHarness(fixture, {
      steps: [script.toolCall("bulk", { part: 1 }), script.toolCall("bulk", { part: 2 }), script.text("ok")],
      harness: {
        tools: [bulkTool(2400)],
        settings: { compaction: { keepRecentTokens: 700 } },
        hooks: {
          session_before_compact: (event) =>
            mode === "cancel"
              ? { cancel: true }
              : {
                  compaction: { summary: `Hook summary of ${event.preparation.covered.entryCount} entries` },
                },
        },
      },
    });
    const session = await harness.newSession();
    await session.prompt("go");
    expect(await session.compact()).toEqual({
      kind: "cancelled",
      message: "Compaction cancelled by a session_before_compact hook; the session is unchanged.",
    });
    expect(
      (await storedEntries(fixture.store, session.id)).some((entry) => entry.type === "compaction"),
    ).toBe(false);
    mode = "supply";
    const outcome = await session.compact();
    expect(outcome).toMatchObject({ kind: "compacted", fromHook: true });
    expect(summarizer.count()).toBe(0);
    const entry = (await storedEntries(fixture.store, session.id)).find(
      (candidate): candidate is CompactionEntry => candidate.type === "compaction",
    )!;
    expect(entry.summary).toMatch(/^Hook summary of \d+ entries$/);
    expect(entry.fromHook).toBe(true);
    expect(entry.details).toMatchObject({ reason: "manual", tokensAfter: expect.any(Number) });
  });

  it("session_before_tree can cancel a move or supply the branch summary", async () => {
    let mode: "cancel" | "supply" = "cancel";
    const { harness, summarizer } = createTestHarness(fixture, {
      steps: [script.text("A"), script.text("B")],
      harness: {
        hooks: {
          session_before_tree: (event) =>
            mode === "cancel"
              ? { cancel: true }
              : {
                  summary: {
                    summary: `left ${event.entriesToSummarize.length} entries`,
                    details: { by: "hook" },
                  },
                },
        },
      },
    });
    const session = await harness.newSession();
    await session.prompt("a");
    await session.prompt("b");
    const leaf = session.session.leafId;
    const target = messageEntryId(session, "A");
    expect(await session.navigateTree(target)).toEqual({ kind: "cancelled" });
    expect(session.session.leafId).toBe(leaf);
    mode = "supply";
    const result = await session.navigateTree(target);
    expect(result).toMatchObject({ kind: "moved", fromHook: true, summary: "left 2 entries" });
    expect(summarizer.count()).toBe(0);
    const entry = session.session.getEntry(session.session.leafId!)!;
    expect(entry).toMatchObject({ type: "branch_summary", fromHook: true, details: { by: "hook" } });
  });

  it("prepareNextTurn and shouldStopAfterTurn steer the loop; model and thinking changes become entries", async () => {
    const { harness, provider } = createTestHarness(fixture, {
      steps: [
        script.toolCall("echo", { text: "1" }),
        script.toolCall("echo", { text: "2" }),
        script.text("never"),
      ],
      harness: {
        tools: [echoTool()],
        hooks: {
          prepareNextTurn: () => ({ thinkingLevel: "high" }),
          shouldStopAfterTurn: (turn) => turn.toolResults.some((result) => textOf(result) === "echo: 2"),
        },
      },
    });
    const session = await harness.newSession();
    await session.prompt("go");
    expect(provider.calls.map((call) => call.options.reasoning)).toEqual(["off", "high"]);
    expect(provider.remaining).toBe(1);
    const stored = await storedEntries(fixture.store, session.id);
    const change = stored.filter((entry) => entry.type === "thinking_level_change");
    expect(change.map((entry) => (entry as { thinkingLevel: string }).thinkingLevel)).toEqual([
      "off",
      "high",
    ]);
    expect(session.state.thinkingLevel).toBe("high");
  });

  it("a throwing handler is reported and skipped; handlers of the harness run before the session's", async () => {
    const order: string[] = [];
    const { harness, errors } = createTestHarness(fixture, {
      steps: [script.toolCall("echo", { text: "x" }), script.text("fine")],
      harness: {
        tools: [echoTool()],
        hooks: {
          tool_call: [
            () => {
              order.push("harness 1");
              throw new Error("hook bug");
            },
          ],
        },
      },
    });
    harness.on("tool_call", () => {
      order.push("harness 2");
    });
    const session = await harness.newSession();
    session.on("tool_call", () => {
      order.push("session");
    });
    const events = recordEvents(session);
    await session.prompt("go");
    expect(order).toEqual(["harness 1", "harness 2", "session"]);
    expect(textOf(session.state.messages.at(-1))).toBe("fine");
    const hookErrors = events.filter((event) => event.type === "hook_error");
    expect(hookErrors).toHaveLength(1);
    expect(errors.some((error) => error instanceof HarnessHookError && error.hook === "tool_call")).toBe(
      true,
    );
    // The tool ran: a throwing hook does not block.
    expect(session.state.messages.some((message) => textOf(message) === "echo: x")).toBe(true);
  });
});
