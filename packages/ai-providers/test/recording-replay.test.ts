import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AssistantEvent } from "../src/events.js";
import { createRecordingProvider } from "../src/recording/recording-provider.js";
import { createReplayProvider } from "../src/recording/replay-provider.js";
import { createScriptedProvider, script } from "../src/testing/index.js";
import type { Context, Message, ToolCall } from "../src/types.js";
import { collect } from "./helpers.js";

let directory: string;
let file: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "arbor-replay-"));
  file = join(directory, "cassette.jsonl");
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

const ask = (text: string, timestamp = Date.now()): Message => ({ role: "user", content: text, timestamp });

/** Strips the partial message (the same object for every event) to compare event sequences. */
const shape = (events: AssistantEvent[]) =>
  events.map(({ partial: _partial, ...rest }) =>
    "message" in rest || "error" in rest
      ? { type: rest.type, reason: (rest as { reason: string }).reason }
      : rest,
  );

describe("record, then replay", () => {
  it("replays the same events and final message, for a conversation with a tool round trip", async () => {
    const inner = createScriptedProvider([
      script.response([
        script.part.thinking("Need the file.", { signature: "sig-123" }),
        script.part.toolCall("read", { path: "a.txt" }, "call_a"),
      ]),
      script.text("The file says hi."),
    ]);
    const recorder = createRecordingProvider(inner, file);
    const context: Context = { systemPrompt: "Help.", messages: [ask("What is in a.txt?")] };
    const liveEvents: AssistantEvent[][] = [];
    const run = async (provider: typeof recorder, conversation: Context) => {
      const stream = provider.stream(inner.model, conversation, { reasoning: "low" });
      const events = await collect(stream);
      return { events, result: await stream.result() };
    };

    const first = await run(recorder, context);
    liveEvents.push(first.events);
    const call = first.result.content.find((block): block is ToolCall => block.type === "toolCall")!;
    const toolResult: Message = {
      role: "toolResult",
      toolCallId: call.id,
      toolName: call.name,
      content: [{ type: "text", text: "hi" }],
      isError: false,
      timestamp: Date.now(),
    };
    const second = await run(recorder, {
      ...context,
      messages: [...context.messages, first.result, toolResult],
    });
    liveEvents.push(second.events);

    // Another run, later: new timestamps, same conversation.
    const replayer = createReplayProvider(file);
    expect(replayer.id).toBe("scripted");
    expect(replayer.models.map((model) => model.id)).toEqual(["scripted-model"]);
    expect(replayer.remaining).toBe(2);
    const again = { systemPrompt: "Help.", messages: [ask("What is in a.txt?", 42)] };
    const replayedFirst = await run(replayer, again);
    expect(shape(replayedFirst.events)).toEqual(shape(liveEvents[0]!));
    expect(replayedFirst.result).toEqual(first.result);
    expect(replayedFirst.result.content[0]).toMatchObject({ type: "thinking", thinkingSignature: "sig-123" });
    const replayedSecond = await run(replayer, {
      ...again,
      messages: [...again.messages, replayedFirst.result, { ...toolResult, timestamp: 7 }],
    });
    expect(replayedSecond.result).toEqual(second.result);
    expect(replayer.remaining).toBe(0);
  });

  it("replays identical requests in recorded order, then says all were used", async () => {
    const inner = createScriptedProvider([script.text("first"), script.text("second")]);
    const recorder = createRecordingProvider(inner, file);
    const context: Context = { messages: [ask("Roll a die")] };
    await recorder.stream(inner.model, context).result();
    await recorder.stream(inner.model, context).result();
    const replayer = createReplayProvider(file);
    const texts = [];
    for (let index = 0; index < 2; index++) {
      const result = await replayer.stream(inner.model, context).result();
      texts.push(result.content.map((block) => (block.type === "text" ? block.text : "")).join(""));
    }
    expect(texts).toEqual(["first", "second"]);
    const third = await replayer.stream(inner.model, context).result();
    expect(third.stopReason).toBe("error");
    expect(third.errorMessage).toContain("all 2 recorded responses to this request were already replayed");
  });

  it("answers an unknown request with an error naming it and the nearest recording, never a throw", async () => {
    const inner = createScriptedProvider([script.text("It is 12:00."), script.text("Bye.")]);
    const recorder = createRecordingProvider(inner, file);
    const base: Message[] = [ask("What time is it?")];
    await recorder.stream(inner.model, { messages: base }).result();
    await recorder.stream(inner.model, { messages: [ask("Goodbye")] }).result();
    const replayer = createReplayProvider(file);
    const stream = replayer.stream(inner.model, { messages: [ask("What time is it in Paris?")] });
    const events = await collect(stream);
    const result = await stream.result();
    expect(events.map((event) => event.type)).toEqual(["start", "error"]);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain(`Replay of ${file}: no recorded response matches this request`);
    expect(result.errorMessage).toContain(
      'scripted/scripted-model, 1 messages, last {"role":"user","content":"What time is it in Paris?"}',
    );
    expect(result.errorMessage).toContain(
      'Nearest recorded request (#1, model scripted/scripted-model, 1 messages) differs at messages[0].content: recorded "What time is it?", asked "What time is it in Paris?".',
    );
    const other = await replayer.stream(inner.model, { messages: base }, { reasoning: "high" }).result();
    expect(other.errorMessage).toContain('differs at options.reasoning: recorded (absent), asked "high"');
  });

  it("honours abort while replaying, keeping what was replayed", async () => {
    const inner = createScriptedProvider([
      script.text("A long recorded answer that streams in many chunks."),
    ]);
    const recorder = createRecordingProvider(inner, file);
    const context: Context = { messages: [ask("Tell me")] };
    await recorder.stream(inner.model, context).result();
    const replayer = createReplayProvider(file);
    const controller = new AbortController();
    const stream = replayer.stream(inner.model, context, { signal: controller.signal });
    for await (const event of stream) if (event.type === "text_delta") controller.abort();
    const result = await stream.result();
    expect(result.stopReason).toBe("aborted");
    expect(result.content).toEqual([{ type: "text", text: "A lo" }]);
  });

  it("replays a recorded failure as the same failure", async () => {
    const inner = createScriptedProvider([
      script.error("overloaded", { partial: [script.part.text("Hel")] }),
    ]);
    const recorder = createRecordingProvider(inner, file);
    const context: Context = { messages: [ask("Hello?")] };
    const live = await recorder.stream(inner.model, context).result();
    const replayed = await createReplayProvider(file).stream(inner.model, context).result();
    expect(replayed).toEqual(live);
    expect(replayed).toMatchObject({ stopReason: "error", errorMessage: "overloaded" });
  });

  it("takes an id from the options, and uses 'replay' when the recordings span providers", async () => {
    const one = createScriptedProvider([script.text("a")], { id: "one" });
    const two = createScriptedProvider([script.text("b")], { id: "two" });
    await createRecordingProvider(one, file)
      .stream(one.model, { messages: [ask("x")] })
      .result();
    await createRecordingProvider(two, file)
      .stream(two.model, { messages: [ask("x")] })
      .result();
    expect(createReplayProvider(file).id).toBe("replay");
    expect(createReplayProvider(file, { id: "cli" }).id).toBe("cli");
    const result = await createReplayProvider(file)
      .stream(two.model, { messages: [ask("x")] })
      .result();
    expect(result.content).toEqual([{ type: "text", text: "b" }]);
  });
});
