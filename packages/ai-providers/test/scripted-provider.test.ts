import { Type } from "@sinclair/typebox";
import { describe, expect, it } from "vitest";
import type { AssistantEvent } from "../src/events.js";
import { createScriptedProvider, ScriptedProviderError, script } from "../src/testing/index.js";
import type { Context } from "../src/types.js";
import { collect } from "./helpers.js";

const context: Context = {
  systemPrompt: "You are terse.",
  messages: [{ role: "user", content: "Read the file please", timestamp: 1 }],
  tools: [{ name: "read", description: "Read a file", parameters: Type.Object({ path: Type.String() }) }],
};

describe("createScriptedProvider", () => {
  it("streams text in small chunks with chars/4 usage", async () => {
    const provider = createScriptedProvider([script.text("Hello there, friend")], { chunkSize: 5 });
    const stream = provider.stream(provider.model, context);
    const events = await collect(stream);
    const deltas = events.filter(
      (e): e is Extract<AssistantEvent, { type: "text_delta" }> => e.type === "text_delta",
    );
    expect(deltas.map((d) => d.delta)).toEqual(["Hello", " ther", "e, fr", "iend"]);
    const message = await stream.result();
    const contextChars =
      "You are terse.".length +
      "read".length +
      "Read a file".length +
      JSON.stringify(context.tools?.[0]?.parameters).length +
      "Read the file please".length;
    expect(message.usage.input).toBe(Math.ceil(contextChars / 4));
    expect(message.usage.output).toBe(Math.ceil("Hello there, friend".length / 4));
    expect(message.usage.cost.total).toBeGreaterThan(0);
    provider.assertDone();
  });

  it("scripts thinking, one or several tool calls, and records every call", async () => {
    const provider = createScriptedProvider([
      script.thinking("I should read it.", "Reading.", { signature: "sig" }),
      script.toolCall("read", { path: "a.md" }, { id: "call_a" }),
      script.toolCalls([
        { name: "read", arguments: { path: "b.md" } },
        { name: "read", arguments: { path: "c.md" } },
      ]),
    ]);
    const first = await provider.stream(provider.model, context, { reasoning: "high" }).result();
    expect(first.content).toEqual([
      { type: "thinking", thinking: "I should read it.", thinkingSignature: "sig" },
      { type: "text", text: "Reading." },
    ]);
    const second = await provider.stream(provider.model, context).result();
    expect(second.stopReason).toBe("toolUse");
    expect(second.content).toEqual([
      { type: "toolCall", id: "call_a", name: "read", arguments: { path: "a.md" } },
    ]);
    const third = await provider.stream(provider.model, context).result();
    expect(third.content.map((block) => block.type === "toolCall" && block.arguments.path)).toEqual([
      "b.md",
      "c.md",
    ]);
    const ids = third.content.map((block) => block.type === "toolCall" && block.id);
    expect(new Set(ids).size).toBe(2);

    expect(provider.calls).toHaveLength(3);
    expect(provider.calls[0]?.options).toEqual({ reasoning: "high" });
    expect(provider.calls[0]?.context).toEqual(context);
    expect(provider.calls[0]?.context).not.toBe(context);
    provider.assertDone();
  });

  it("scripts errors (partial content kept) and overflow errors", async () => {
    const provider = createScriptedProvider(
      [script.error("503 overloaded", { partial: [script.part.text("Half an ans")] }), script.overflow()],
      { model: { contextWindow: 10 } },
    );
    const failed = await provider.stream(provider.model, context).result();
    expect(failed).toMatchObject({ stopReason: "error", errorMessage: "503 overloaded" });
    expect(failed.content).toEqual([{ type: "text", text: "Half an ans" }]);
    const overflow = await provider.stream(provider.model, context).result();
    expect(overflow.stopReason).toBe("error");
    expect(overflow.errorMessage).toMatch(/prompt is too long: \d+ tokens > 10 maximum/);
  });

  it("honours abort at every chunk, keeping partial content", async () => {
    const provider = createScriptedProvider([script.text("a long answer that will be cut")], {
      chunkSize: 2,
    });
    const controller = new AbortController();
    const stream = provider.stream(provider.model, context, { signal: controller.signal });
    const seen: string[] = [];
    for await (const event of stream) {
      seen.push(event.type);
      if (event.type === "text_delta" && event.partial.content[0]?.type === "text") {
        if (event.partial.content[0].text.length >= 4) controller.abort();
      }
    }
    const result = await stream.result();
    expect(result.stopReason).toBe("aborted");
    expect(result.content).toEqual([{ type: "text", text: "a lo" }]);
    expect(seen.slice(-2)).toEqual(["text_end", "error"]);
    expect(provider.calls[0]?.aborted).toBe(true);
  });

  it("aborts during a scripted delay", async () => {
    const provider = createScriptedProvider([script.delay(10_000, script.text("never"))]);
    const controller = new AbortController();
    const stream = provider.stream(provider.model, context, { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    const result = await stream.result();
    expect(result.stopReason).toBe("aborted");
    expect(result.content).toEqual([]);
  });

  it("dynamic steps see the call", async () => {
    const provider = createScriptedProvider([
      script.dynamic((call) => script.text(`echo: ${String(call.context.messages[0]?.content)}`)),
    ]);
    const message = await provider.stream(provider.model, context).result();
    expect(message.content).toEqual([{ type: "text", text: "echo: Read the file please" }]);
  });

  it("answers every call with a respond function, after any pushed steps, and never runs out", async () => {
    const provider = createScriptedProvider(
      (call) => script.text(`answer #${call.index + 1} to ${String(call.context.messages[0]?.content)}`),
      { chunkDelayMs: (call) => (call.index === 0 ? 1 : 0) },
    );
    const first = await provider.stream(provider.model, context).result();
    expect(first.content).toEqual([{ type: "text", text: "answer #1 to Read the file please" }]);
    provider.push(script.toolCall("read", { path: "a.txt" }));
    const pushed = await provider.stream(provider.model, context).result();
    expect(pushed.stopReason).toBe("toolUse");
    const third = await provider.stream(provider.model, context).result();
    expect(third.content).toEqual([{ type: "text", text: "answer #3 to Read the file please" }]);
    expect(provider.calls).toHaveLength(3);
    expect(provider.unexpectedCalls).toBe(0);
    expect(() => provider.assertDone()).not.toThrow();
  });

  it("ends the call with an error message when the respond function throws", async () => {
    const provider = createScriptedProvider(() => {
      throw new Error("no answer for this");
    });
    const message = await provider.stream(provider.model, context).result();
    expect(message.stopReason).toBe("error");
    expect(message.errorMessage).toBe("The scripted responder failed: no answer for this");
  });

  it("fails clearly on an unexpected call and on leftover steps", async () => {
    const provider = createScriptedProvider([script.text("only one")]);
    await provider.stream(provider.model, context).result();
    const extra = await provider.stream(provider.model, context).result();
    expect(extra.stopReason).toBe("error");
    expect(extra.errorMessage).toMatch(/unexpected call #2; the script had 1 step\(s\)/);
    expect(() => provider.assertDone()).toThrow(/1 call\(s\) arrived after the script ran out/);

    const leftover = createScriptedProvider([script.text("a"), script.toolCall("bash", { command: "ls" })]);
    await leftover.stream(leftover.model, context).result();
    expect(() => leftover.assertDone()).toThrow(ScriptedProviderError);
    expect(() => leftover.assertDone()).toThrow(/1 scripted step\(s\) were never used: tool call "bash"/);
    leftover.push(script.text("more"));
    expect(leftover.remaining).toBe(2);
  });

  it("streams raw JSON tool arguments as given, including sloppy control characters", async () => {
    const provider = createScriptedProvider([script.toolCall("write", '{"content": "a\nb"}')]);
    const message = await provider.stream(provider.model, context).result();
    expect(message.content[0]).toMatchObject({ arguments: { content: "a\nb" } });
  });
});

describe("the ./testing entry point", () => {
  it("imports no test framework (it ships to users)", async () => {
    const { readdirSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const dir = join(import.meta.dirname, "..", "src");
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter((file) =>
      file.endsWith(".ts"),
    );
    expect(files).toContain(join("testing", "scripted-provider.ts"));
    for (const file of files) {
      expect(readFileSync(join(dir, file), "utf8"), file).not.toMatch(
        /from\s+["'](vitest|jest|mocha|node:test)/,
      );
    }
  });
});
