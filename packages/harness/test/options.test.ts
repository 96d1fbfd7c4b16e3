import {
  type AssistantEvent,
  type AssistantStream,
  type Context,
  createProviderRegistry,
} from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { MemorySessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { HookRunner } from "../src/hook-registry.js";
import {
  createHarness,
  HookRegistry,
  InvalidHarnessOptionsError,
  resolveHarnessSettings,
  UnknownToolError,
  UnresolvedModelError,
} from "../src/index.js";
import { wrapStreamFn } from "../src/provider-stream.js";
import { createSystemPromptBuilder } from "../src/resources/index.js";
import { echoTool } from "./helpers.js";

describe("resolveHarnessSettings", () => {
  it("fills the defaults: compaction of seed 000, retries after 2, 4 and 8 s", () => {
    const settings = resolveHarnessSettings();
    expect(settings.compaction).toMatchObject({
      enabled: true,
      reserveTokens: 16_384,
      keepRecentTokens: 20_000,
    });
    expect(settings.retry).toMatchObject({ maxRetries: 3, baseDelayMs: 2000 });
    expect(settings).toMatchObject({
      retryEnabled: true,
      thinkingLevel: "off",
      steeringMode: "one-at-a-time",
      followUpMode: "one-at-a-time",
      toolExecution: "parallel",
    });
  });

  it("names the invalid field", () => {
    expect(() => resolveHarnessSettings({ compaction: { reserveTokens: 3 } })).toThrow(
      /settings\.compaction: [\s\S]*reserveTokens: expected integer >= 256/,
    );
    expect(() => resolveHarnessSettings({ retry: { maxRetries: -1 } })).toThrow(
      /settings\.retry: [\s\S]*maxRetries/,
    );
    expect(() => resolveHarnessSettings({ steeringMode: "some" as never })).toThrow(
      InvalidHarnessOptionsError,
    );
  });
});

describe("createHarness", () => {
  const provider = createScriptedProvider();
  const store = new MemorySessionStore();

  it("requires a stream function, a store and a model", () => {
    expect(() => createHarness({ model: provider.model, store } as never)).toThrow(/streamFn/);
    expect(() => createHarness({ streamFn: provider.stream, model: provider.model } as never)).toThrow(
      /store/,
    );
    expect(() => createHarness({ streamFn: provider.stream, store } as never)).toThrow(/model/);
  });

  it("resolves models through a registry and names unknown references", async () => {
    const registry = createProviderRegistry([provider]);
    const harness = createHarness({
      registry,
      model: "scripted/scripted-model",
      store,
    });
    expect(harness.defaultModel).toBe(provider.model);
    expect(() => createHarness({ registry, model: "scripted/nope", store })).toThrow(UnresolvedModelError);
    expect(() =>
      createHarness({ streamFn: provider.stream, model: "x/y", store, models: [provider.model] }),
    ).toThrow(/"x\/y".*scripted\/scripted-model/);
    const session = await harness.newSession();
    await expect(session.setModel("scripted/unknown")).rejects.toBeInstanceOf(UnresolvedModelError);
  });

  it("refuses two tools with one name and unknown hook names", () => {
    expect(() =>
      createHarness({
        streamFn: provider.stream,
        model: provider.model,
        store,
        tools: [echoTool(), echoTool()],
      }),
    ).toThrow(/two tools are named "echo"/);
    expect(() =>
      createHarness({
        streamFn: provider.stream,
        model: provider.model,
        store,
        hooks: { tool_cal: () => {} } as never,
      }),
    ).toThrow(/Unknown hook "tool_cal"/);
  });

  it("includes the recall tool unless told not to; setActiveTools names unknown tools", async () => {
    const withRecall = createHarness({
      streamFn: provider.stream,
      model: provider.model,
      store,
      systemPrompt: createSystemPromptBuilder(),
    });
    const session = await withRecall.newSession();
    expect(session.state.activeToolNames).toEqual(["recall"]);
    expect(session.systemPrompt).toContain("recall");
    await expect(session.setActiveTools(["recall", "nope"])).rejects.toBeInstanceOf(UnknownToolError);
    const without = createHarness({
      streamFn: provider.stream,
      model: provider.model,
      store,
      recallTool: false,
      tools: [echoTool()],
      systemPrompt: (options) => `custom prompt with ${options.tools.map((tool) => tool.name).join(",")}`,
    });
    const plain = await without.newSession();
    expect(plain.state.activeToolNames).toEqual(["echo"]);
    expect(plain.systemPrompt).toBe("custom prompt with echo");
  });
});

describe("HookRegistry", () => {
  it("keeps registration order and removes a handler", async () => {
    const registry = new HookRegistry();
    const calls: string[] = [];
    registry.on("shouldStopAfterTurn", () => {
      calls.push("a");
      return false;
    });
    const remove = registry.on("shouldStopAfterTurn", () => {
      calls.push("b");
      return true;
    });
    const runner = new HookRunner(
      [registry],
      () => ({ sessionId: "s", signal: new AbortController().signal }),
      () => {},
    );
    expect(await runner.shouldStopAfterTurn({} as never)).toBe(true);
    remove();
    expect(await runner.shouldStopAfterTurn({} as never)).toBe(false);
    expect(calls).toEqual(["a", "b", "a"]);
  });
});

describe("wrapStreamFn", () => {
  it("turns a throwing stream function or a failing request hook into an error message", async () => {
    const registry = new HookRegistry();
    const runner = new HookRunner(
      [registry],
      () => ({ sessionId: "s", signal: new AbortController().signal }),
      () => {},
    );
    const observer = { onRequest: () => {}, onResponse: () => {} };
    const model = createScriptedProvider().model;
    const context: Context = { messages: [] };
    const throwing = wrapStreamFn(
      () => {
        throw new Error("boom");
      },
      runner,
      observer,
    );
    const firstStream = throwing(model, context);
    const firstEvents: AssistantEvent[] = [];
    for await (const event of firstStream) firstEvents.push(event);
    expect(firstEvents.map((event) => event.type)).toEqual(["start", "error"]);
    const first = await firstStream.result();
    expect(first).toMatchObject({ stopReason: "error", errorMessage: "The stream function threw: boom" });

    // Behind a request hook, a stream that breaks mid-way (a StreamFn against its contract) ends with an
    // error that keeps the partial message.
    const hooked = new HookRegistry();
    hooked.on("before_provider_request", () => undefined);
    const hookedRunner = new HookRunner(
      [hooked],
      () => ({ sessionId: "s", signal: new AbortController().signal }),
      () => {},
    );
    const partialProvider = createScriptedProvider([script.text("half an answer")], { chunkSize: 4 });
    const breaking = wrapStreamFn(
      (m, c, o) => {
        const inner = partialProvider.stream(m, c, o);
        return {
          result: () => inner.result(),
          async *[Symbol.asyncIterator]() {
            for await (const event of inner) {
              yield event;
              if (event.type === "text_delta") throw new Error("socket closed");
            }
          },
        };
      },
      hookedRunner,
      observer,
    );
    const broken = await drain(breaking(model, context));
    expect(broken).toMatchObject({
      stopReason: "error",
      errorMessage: "The response stream failed: socket closed",
      content: [{ type: "text", text: "half" }],
    });

    registry.on("before_provider_request", () => ({ options: { headers: { a: "1" } } }));
    const provider = createScriptedProvider([script.text("fine")]);
    const wrapped = wrapStreamFn(provider.stream, runner, observer);
    const second = await drain(wrapped(model, context));
    expect(second).toMatchObject({ stopReason: "stop", content: [{ type: "text", text: "fine" }] });
    expect(provider.calls[0]!.options.headers).toEqual({ a: "1" });
  });
});

async function drain(stream: AssistantStream) {
  for await (const _event of stream) {
    // draining
  }
  return stream.result();
}
