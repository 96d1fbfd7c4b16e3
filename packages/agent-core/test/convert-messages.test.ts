import {
  type AssistantMessage,
  emptyUsage,
  InvalidArgumentError,
  type Message,
  type Model,
  transformMessages,
} from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LlmMessageConverter } from "../src/convert-messages.js";
import {
  Agent,
  type AgentMessage,
  type AgentTurnUpdate,
  CannotContinueError,
  convertEachMessage,
  isLlmMessage,
  type MessageToLlmConverter,
  runAgentLoop,
  runAgentLoopContinue,
} from "../src/index.js";
import { LlmMessagePreparer } from "../src/prepare-llm-messages.js";
import { EventLog, echoTool, expectWellFormedRun, textOf, user } from "./helpers.js";

declare module "../src/index.js" {
  interface CustomAgentMessages {
    /** `copies` user messages for the model (0: dropped). */
    memo: { role: "memo"; text: string; copies: number; timestamp: number };
  }
}

function memo(text: string, copies = 1): AgentMessage {
  return { role: "memo", text, copies, timestamp: 1 };
}

/** The per-message converter of these tests: memos become `copies` new user messages, other custom messages vanish. */
const convertMemo: MessageToLlmConverter = (message) => {
  if (message.role === "memo") {
    return Array.from({ length: message.copies }, (_, index) => user(`[memo ${index}] ${message.text}`));
  }
  return isLlmMessage(message) ? [message] : [];
};

/** {@link convertMemo}, counting its calls per message. */
function countingConverter(): { convert: MessageToLlmConverter; calls: Map<AgentMessage, number> } {
  const calls = new Map<AgentMessage, number>();
  const convert: MessageToLlmConverter = (message) => {
    calls.set(message, (calls.get(message) ?? 0) + 1);
    return convertMemo(message);
  };
  return { convert, calls };
}

const base = createScriptedProvider().model;
const strictModel: Model = { ...base, id: "strict", provider: "anthropic", api: "anthropic-messages" };

function assistant(
  source: Model,
  calls: string[],
  stopReason: AssistantMessage["stopReason"],
): AssistantMessage {
  const content: AssistantMessage["content"] = [{ type: "text", text: "reply" }];
  for (const id of calls) content.push({ type: "toolCall", id, name: "echo", arguments: { text: id } });
  return {
    role: "assistant",
    content,
    api: source.api,
    provider: source.provider,
    model: source.id,
    usage: emptyUsage(),
    stopReason,
    timestamp: 1,
  };
}

const transcriptMessage: fc.Arbitrary<AgentMessage> = fc.oneof(
  fc.string({ maxLength: 6 }).map((text) => user(text)),
  fc
    .record({
      calls: fc.array(fc.constantFrom("a", "b", "a|b", "a_b"), { maxLength: 2 }),
      stopReason: fc.constantFrom<AssistantMessage["stopReason"]>("toolUse", "stop", "error", "aborted"),
      foreign: fc.boolean(),
    })
    .map(({ calls, stopReason, foreign }) => assistant(foreign ? base : strictModel, calls, stopReason)),
  fc.constantFrom("a", "b", "a|b").map(
    (id): AgentMessage => ({
      role: "toolResult",
      toolCallId: id,
      toolName: "echo",
      content: [{ type: "text", text: "r" }],
      isError: false,
      timestamp: 1,
    }),
  ),
  fc
    .record({ text: fc.string({ maxLength: 6 }), copies: fc.integer({ min: 0, max: 2 }) })
    .map(({ text, copies }) => memo(text, copies)),
  fc.constant({ role: "unknown-kind", timestamp: 1 } as unknown as AgentMessage),
);

/** What happens to the transcript between two conversions. */
type Change =
  | { kind: "append"; messages: AgentMessage[] }
  | { kind: "new array" }
  | { kind: "truncate"; keep: number }
  | { kind: "reuse old message"; pick: number };

const change: fc.Arbitrary<Change> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("append" as const),
      messages: fc.array(transcriptMessage, { maxLength: 4 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("new array" as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("truncate" as const), keep: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("reuse old message" as const), pick: fc.nat() }) },
);

describe("LlmMessageConverter (incremental conversion)", () => {
  it("equals the full conversion of the transcript after any sequence of changes, and the preparer over it equals transformMessages", () => {
    fc.assert(
      fc.property(fc.array(change, { minLength: 1, maxLength: 12 }), fc.boolean(), (changes, perMessage) => {
        const { convert, calls } = countingConverter();
        const converter = new LlmMessageConverter(perMessage ? convert : undefined);
        const reference = perMessage
          ? convertEachMessage(convertMemo)
          : (messages: AgentMessage[]) => messages.filter(isLlmMessage);
        const preparer = new LlmMessagePreparer();
        let transcript: AgentMessage[] = [];
        for (const step of changes) {
          if (step.kind === "append") transcript.push(...step.messages);
          else if (step.kind === "new array") transcript = [...transcript];
          else if (step.kind === "truncate")
            transcript = transcript.slice(0, step.keep % (transcript.length + 1));
          else if (transcript.length > 0) transcript.push(transcript[step.pick % transcript.length]!);
          const expected = reference([...transcript]);
          const incremental = converter.appendOnly(transcript);
          expect(incremental).toEqual(expected);
          expect(converter.all(transcript)).toEqual(expected);
          expect(preparer.prepare(incremental, strictModel, true)).toEqual(
            transformMessages(expected, strictModel),
          );
        }
        // Each memo was converted once, however often the transcript was converted (results are cached).
        for (const [message, count] of calls) {
          if (message.role === "memo" && message.copies > 0) expect(count).toBe(1);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("prepares a response that repeats one of its own tool-call ids as a full transform does (a found case)", () => {
    // The repeat is renamed with a suffix chosen against the whole output: `a_b_2` is taken already.
    const preparer = new LlmMessagePreparer();
    const transcript: Message[] = [assistant(base, ["a|b", "a_b"], "toolUse")];
    preparer.prepare(transcript, strictModel, false);
    transcript.push(assistant(strictModel, ["a|b", "a|b"], "toolUse"));
    expect(preparer.prepare(transcript, strictModel, false)).toEqual(
      transformMessages(transcript, strictModel),
    );
  });

  it("converts a message appended to the same array once, and starts over for another array", () => {
    const { convert, calls } = countingConverter();
    const converter = new LlmMessageConverter(convert);
    const first = user("one");
    const transcript: AgentMessage[] = [first];
    const converted = converter.appendOnly(transcript);
    transcript.push(user("two"));
    expect(converter.appendOnly(transcript)).toBe(converted); // the same, grown array
    expect(converted.map(textOf)).toEqual(["one", "two"]);
    expect(calls.get(first)).toBe(1);
    expect(converter.appendOnly([first])).not.toBe(converted);
    expect(calls.get(first)).toBe(2); // `[message]` is not cached: converting it again costs one call
  });

  it("rejects a converter result that is not an array, naming the message's role", () => {
    const converter = new LlmMessageConverter(() => undefined as unknown as Message[]);
    expect(() => converter.appendOnly([memo("x")])).toThrow(InvalidArgumentError);
    expect(() => converter.all([memo("x")])).toThrow(
      /convertMessageToLlm must return an array of messages; for a "memo" message it returned undefined/,
    );
  });
});

/** How a scripted run's hooks behave (drawn at random by the property below). */
interface RunPlan {
  history: AgentMessage[];
  prompts: AgentMessage[];
  /** Tool-calling turns before the final text reply. */
  toolTurns: number;
  /** Steering messages injected at the polls after each turn (one list per poll). */
  steering: AgentMessage[][];
  transform: "none" | "identity" | "copy" | "drop first";
  /** What `prepareNextTurn` does before each further call. */
  nextTurn: ("nothing" | "same messages" | "summary + tail" | "other model")[];
}

/** A new user message or memo object each time (a transcript holds each object once). */
function freshMessage(text: string, copies: number): fc.Arbitrary<AgentMessage> {
  return fc.boolean().map((isMemo) => (isMemo ? memo(text, copies) : user(text)));
}

const plan: fc.Arbitrary<RunPlan> = fc.record({
  history: fc.array(
    fc.oneof(
      fc.string({ maxLength: 4 }).map((text) => user(text)),
      fc.string({ maxLength: 4 }).map((text) => memo(text, 1)),
    ),
    { maxLength: 5 },
  ),
  prompts: fc.array(freshMessage("go", 2), { minLength: 1, maxLength: 2 }),
  toolTurns: fc.integer({ min: 0, max: 4 }),
  steering: fc.array(fc.array(freshMessage("steer", 1), { maxLength: 2 }), { maxLength: 5 }),
  transform: fc.constantFrom("none", "identity", "copy", "drop first"),
  nextTurn: fc.array(fc.constantFrom("nothing", "same messages", "summary + tail", "other model"), {
    minLength: 8,
    maxLength: 8,
  }),
});

function transformOf(mode: RunPlan["transform"]): ((messages: AgentMessage[]) => AgentMessage[]) | undefined {
  if (mode === "none") return undefined;
  if (mode === "identity") return (messages) => messages;
  if (mode === "copy") return (messages) => [...messages];
  return (messages) => messages.slice(1);
}

describe("convertMessageToLlm in the loop", () => {
  it("every model call sees exactly transformMessages(full conversion of the transcript), whatever the hooks do", async () => {
    const otherModel: Model = { ...base, id: "other-model" };
    await fc.assert(
      fc.asyncProperty(plan, async (run) => {
        const { convert, calls } = countingConverter();
        let replies = 0;
        const provider = createScriptedProvider(() => {
          replies++;
          return replies <= run.toolTurns
            ? script.toolCall("echo", { text: `t${replies}` })
            : script.text("done");
        });
        // The transcript as the loop holds it, followed through the events and prepareNextTurn's replacements.
        let tracked: AgentMessage[] = [...run.history];
        const seen: AgentMessage[][] = [];
        const steering = run.steering.map((messages) => [...messages]);
        let turn = 0;
        const transform = transformOf(run.transform);
        const log = new EventLog();
        let replaced = false;
        const added = await runAgentLoop(
          run.prompts,
          { messages: run.history, tools: [echoTool] },
          {
            model: provider.model,
            streamFn: (model, context, options) => {
              seen.push(tracked.slice());
              return provider.stream(model, context, options);
            },
            convertMessageToLlm: convert,
            ...(transform === undefined ? {} : { transformContext: transform }),
            getSteeringMessages: () => steering.shift() ?? [],
            prepareNextTurn: (current): AgentTurnUpdate | undefined => {
              const action = run.nextTurn[turn++ % run.nextTurn.length];
              if (action === "same messages") return { context: { ...current.context } };
              if (action === "other model")
                return { model: current.model === otherModel ? provider.model : otherModel };
              if (action === "summary + tail") {
                const messages = [memo("summary", 1), ...current.context.messages.slice(-2)];
                tracked = [...messages];
                replaced = true;
                return { context: { ...current.context, messages } };
              }
              return undefined;
            },
          },
          (event) => {
            log.sink(event);
            if (event.type === "message_end") tracked.push(event.message);
          },
        );
        expect(provider.calls.length).toBeGreaterThan(0);
        provider.calls.forEach((call, index) => {
          const visible = transform === undefined ? seen[index]! : transform(seen[index]!);
          const expected = transformMessages(convertEachMessage(convertMemo)(visible), call.model);
          expect(call.context.messages).toEqual(expected);
        });
        expectWellFormedRun(log.events, added);
        // Over the run's own transcript each message is converted once per run, however many calls it sees.
        if ((run.transform === "none" || run.transform === "identity") && !replaced) {
          for (const [message, count] of calls) expect(count, textOf(message)).toBe(1);
        }
      }),
      { numRuns: 150 },
    );
  });

  it("converts each message once per run, and a replacement with the run's own messages keeps it incremental", async () => {
    const provider = createScriptedProvider([
      script.toolCall("echo", { text: "a" }),
      script.toolCall("echo", { text: "b" }),
      script.text("done"),
    ]);
    const { convert, calls } = countingConverter();
    const summary = memo("summary of earlier work", 1);
    await runAgentLoop(
      [user("go")],
      { messages: [summary, user("old")], tools: [echoTool] },
      {
        model: provider.model,
        streamFn: provider.stream,
        convertMessageToLlm: convert,
        prepareNextTurn: (turn) => ({ context: { ...turn.context, systemPrompt: "new prompt" } }),
      },
      () => {},
    );
    expect(provider.calls).toHaveLength(3);
    expect(provider.calls.map((call) => call.context.messages.length)).toEqual([3, 5, 7]);
    expect(provider.calls[2]!.context.systemPrompt).toBe("new prompt");
    expect(textOf(provider.calls[2]!.context.messages[0])).toBe("[memo 0] summary of earlier work");
    expect([...calls.values()]).toEqual(Array.from({ length: 7 }, () => 1));
  });

  it("is ignored when convertToLlm is set too (convertToLlm has full control)", async () => {
    const provider = createScriptedProvider([script.text("ok")]);
    let perMessage = 0;
    await runAgentLoop(
      [memo("kept as text", 1), user("hi")],
      { messages: [] },
      {
        model: provider.model,
        streamFn: provider.stream,
        convertMessageToLlm: () => {
          perMessage++;
          return [];
        },
        convertToLlm: (messages) =>
          messages.map((message) => (isLlmMessage(message) ? message : user("memo!"))),
      },
      () => {},
    );
    expect(perMessage).toBe(0);
    expect(provider.calls[0]!.context.messages.map(textOf)).toEqual(["memo!", "hi"]);
  });

  it("a throwing converter ends the run with a synthetic error message, well formed", async () => {
    const provider = createScriptedProvider([]);
    const log = new EventLog();
    const added = await runAgentLoop(
      [memo("boom")],
      { messages: [] },
      {
        model: provider.model,
        streamFn: provider.stream,
        convertMessageToLlm: (message) => {
          if (message.role === "memo") throw new Error("cannot convert memos");
          return [];
        },
      },
      log.sink,
    );
    expect(provider.calls).toHaveLength(0);
    const last = added.at(-1) as AssistantMessage;
    expect(last.stopReason).toBe("error");
    expect(last.errorMessage).toBe("Agent loop failed: cannot convert memos");
    expectWellFormedRun(log.events, added);
  });

  it("continue() accepts a trailing custom message the converter turns into a user message, and refuses one it drops", async () => {
    const provider = createScriptedProvider([script.text("answered")]);
    const config = { model: provider.model, streamFn: provider.stream };
    const added = await runAgentLoopContinue(
      { messages: [memo("please answer", 1)] },
      { ...config, convertMessageToLlm: countingConverter().convert },
      () => {},
    );
    expect(added.map(textOf)).toEqual(["answered"]);
    expect(provider.calls[0]!.context.messages.map(textOf)).toEqual(["[memo 0] please answer"]);
    await expect(
      runAgentLoopContinue(
        { messages: [memo("invisible", 0)] },
        { ...config, convertMessageToLlm: countingConverter().convert },
        () => {},
      ),
    ).rejects.toMatchObject({ name: CannotContinueError.name, reason: "last_message_not_llm" });
  });

  it("Agent passes it to every run (AgentOptions and hooks)", async () => {
    const provider = createScriptedProvider([
      script.toolCall("echo", { text: "x" }),
      script.text("done"),
      script.text("again"),
    ]);
    const { convert, calls } = countingConverter();
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: [echoTool],
      messages: [memo("project notes", 1)],
      convertMessageToLlm: convert,
    });
    await agent.prompt("go");
    expect(provider.calls.map((call) => call.context.messages.map(textOf))).toEqual([
      ["[memo 0] project notes", "go"],
      ["[memo 0] project notes", "go", "", "x"],
    ]);
    expect([...calls.values()].every((count) => count === 1)).toBe(true);
    await agent.prompt("more");
    expect(provider.calls[2]!.context.messages.map(textOf)).toEqual([
      "[memo 0] project notes",
      "go",
      "",
      "x",
      "done",
      "more",
    ]);
    expect(agent.hooks.convertMessageToLlm).toBe(convert);
  });
});
