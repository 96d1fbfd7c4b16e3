import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { emptyUsage } from "../src/cost.js";
import { MISSING_TOOL_RESULT_TEXT } from "../src/tool-pairing.js";
import { normalizeToolCallId, OMITTED_IMAGE_TEXT, transformMessages } from "../src/transform-messages.js";
import type {
  AssistantMessage,
  ContentBlock,
  Message,
  Model,
  StopReason,
  ToolCall,
  ToolResultMessage,
  UserMessage,
} from "../src/types.js";

function makeModel(overrides: Partial<Model> & Pick<Model, "id" | "provider" | "api">): Model {
  return {
    name: overrides.id,
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 200_000,
    maxTokens: 8_192,
    ...overrides,
  };
}

const claude = makeModel({ id: "claude-sonnet-4-5", provider: "anthropic", api: "anthropic-messages" });
const claudeOpus = makeModel({ id: "claude-opus-4-1", provider: "anthropic", api: "anthropic-messages" });
const gpt = makeModel({ id: "gpt-5", provider: "openai", api: "openai-responses" });
const local = makeModel({ id: "llama", provider: "local", api: "openai-completions", input: ["text"] });
const scripted = makeModel({ id: "script", provider: "scripted", api: "scripted" });

function assistant(
  model: Model,
  content: AssistantMessage["content"],
  stopReason: StopReason = "stop",
  timestamp = 10,
): AssistantMessage {
  return {
    role: "assistant",
    content,
    api: model.api,
    provider: model.provider,
    model: model.id,
    usage: emptyUsage(),
    stopReason,
    timestamp,
  };
}

function call(id: string, name = "read"): ToolCall {
  return { type: "toolCall", id, name, arguments: { path: id } };
}

function result(toolCallId: string, text = `result of ${toolCallId}`, timestamp = 20): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName: "read",
    content: [{ type: "text", text }],
    isError: false,
    timestamp,
  };
}

function user(text: string, timestamp = 1): UserMessage {
  return { role: "user", content: text, timestamp };
}

function synthetic(toolCallId: string, timestamp: number, toolName = "read"): ToolResultMessage {
  return {
    role: "toolResult",
    toolCallId,
    toolName,
    content: [{ type: "text", text: MISSING_TOOL_RESULT_TEXT }],
    isError: true,
    timestamp,
  };
}

function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** Freezes the input, transforms it and checks it is unchanged. */
function transform(messages: Message[], target: Model, options?: Parameters<typeof transformMessages>[2]) {
  const snapshot = structuredClone(messages);
  const output = transformMessages(deepFreeze(messages), target, options);
  expect(messages).toEqual(snapshot);
  return output;
}

describe("normalizeToolCallId", () => {
  it("replaces characters outside [a-zA-Z0-9_-] and truncates to 64 for anthropic-messages", () => {
    expect(normalizeToolCallId("toolu_01AbC-xyz", claude)).toBe("toolu_01AbC-xyz");
    expect(normalizeToolCallId("call.1:a b", claude)).toBe("call_1_a_b");
    expect(normalizeToolCallId("x".repeat(80), claude)).toBe("x".repeat(64));
    expect(normalizeToolCallId("", claude)).toBe("call");
  });

  it("turns pi-style Responses ids into valid OpenAI ids", () => {
    expect(normalizeToolCallId("call_abc|fc_def", gpt)).toBe("call_abc_fc_def");
    expect(normalizeToolCallId("call_abc|fc_def", local)).toBe("call_abc_fc_def");
    const long = `call_${"a".repeat(30)}|fc_${"b".repeat(400)}`;
    const normalized = normalizeToolCallId(long, gpt);
    expect(normalized).toHaveLength(64);
    expect(normalized).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
  });

  it("leaves ids of other apis unchanged unless they exceed 64 characters", () => {
    expect(normalizeToolCallId("call|1 weird.id", scripted)).toBe("call|1 weird.id");
    expect(normalizeToolCallId("", scripted)).toBe("");
    expect(normalizeToolCallId("y".repeat(70), scripted)).toBe("y".repeat(64));
    // a surrogate pair on the cut is not split
    expect(normalizeToolCallId(`${"y".repeat(63)}😀z`, scripted)).toBe("y".repeat(63));
  });
});

describe("transformMessages: thinking and signatures", () => {
  it("keeps thinking, redacted thinking and all signatures of the target model unchanged", () => {
    const message = assistant(
      claude,
      [
        { type: "thinking", thinking: "Let me think.", thinkingSignature: "sig-1" },
        { type: "thinking", thinking: "", thinkingSignature: "encrypted", redacted: true },
        { type: "text", text: "Answer", textSignature: "text-sig" },
        { ...call("toolu_1"), thoughtSignature: "thought-sig" },
      ],
      "toolUse",
    );
    const output = transform([user("hi"), message, result("toolu_1")], claude);
    expect(output).toEqual([user("hi"), message, result("toolu_1")]);
  });

  it("keeps own tool-call ids verbatim even when the normalizer would change them", () => {
    const message = assistant(gpt, [call("call_abc|fc_def")], "toolUse");
    const output = transform([message, result("call_abc|fc_def")], gpt);
    expect(output).toEqual([message, result("call_abc|fc_def")]);
  });

  it("gives an own tool-call id a provider reused a suffix, and its result with it", () => {
    const first = assistant(claude, [call("toolu_1")], "toolUse");
    const again = assistant(claude, [call("toolu_1"), call("toolu_1_2")], "toolUse", 30);
    const output = transform(
      [
        user("u"),
        first,
        result("toolu_1", "one"),
        again,
        result("toolu_1", "two"),
        result("toolu_1_2", "three"),
      ],
      claude,
    );
    const ids = output.flatMap((message) =>
      message.role === "assistant"
        ? message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
        : [],
    );
    expect(ids).toEqual(["toolu_1", "toolu_1_3", "toolu_1_2"]);
    expect(
      output.flatMap((message) =>
        message.role === "toolResult"
          ? [[message.toolCallId, (message.content[0] as { text: string }).text]]
          : [],
      ),
    ).toEqual([
      ["toolu_1", "one"],
      ["toolu_1_3", "two"],
      ["toolu_1_2", "three"],
    ]);
  });

  it("turns another model's thinking into text and strips its signatures", () => {
    const message = assistant(
      gpt,
      [
        { type: "thinking", thinking: "Reasoning here.", thinkingSignature: "rs_123" },
        { type: "thinking", thinking: "  \n ", thinkingSignature: "rs_456" },
        { type: "thinking", thinking: "", thinkingSignature: "opaque", redacted: true },
        { type: "text", text: "Answer", textSignature: "msg_1" },
        { ...call("call_1"), thoughtSignature: "thought" },
      ],
      "toolUse",
    );
    const output = transform([message, result("call_1")], claude);
    expect(output).toEqual([
      {
        ...message,
        content: [
          { type: "text", text: "Reasoning here." },
          { type: "text", text: "Answer" },
          { type: "toolCall", id: "call_1", name: "read", arguments: { path: "call_1" } },
        ],
      },
      result("call_1"),
    ]);
  });

  it("treats the same provider and api with another model id as another model", () => {
    const message = assistant(claudeOpus, [
      { type: "thinking", thinking: "Opus thought.", thinkingSignature: "sig" },
      { type: "text", text: "Hi", textSignature: "t" },
    ]);
    const output = transform([message], claude);
    expect(output).toEqual([
      {
        ...message,
        content: [
          { type: "text", text: "Opus thought." },
          { type: "text", text: "Hi" },
        ],
      },
    ]);
  });

  it("drops an assistant message left without content", () => {
    const message = assistant(gpt, [
      { type: "thinking", thinking: "", thinkingSignature: "rs", redacted: true },
    ]);
    expect(transform([user("hi"), message, user("again", 2)], claude)).toEqual([
      user("hi"),
      user("again", 2),
    ]);
  });
});

describe("transformMessages: failed responses", () => {
  it("skips errored and aborted assistant messages with their tool calls and results", () => {
    const errored = {
      ...assistant(claude, [{ type: "text", text: "partial" }, call("toolu_e")], "error"),
      errorMessage: "overloaded",
    };
    const aborted = assistant(claude, [call("toolu_a")], "aborted");
    const good = assistant(claude, [{ type: "text", text: "done" }]);
    const output = transform(
      [user("hi"), errored, result("toolu_e"), user("retry", 2), aborted, result("toolu_a"), good],
      claude,
    );
    expect(output).toEqual([user("hi"), user("retry", 2), good]);
  });

  it("does not let a skipped message close the turn before it", () => {
    const first = assistant(claude, [call("toolu_1")], "toolUse");
    const errored = assistant(claude, [{ type: "text", text: "oops" }], "error");
    const output = transform([first, errored, result("toolu_1")], claude);
    expect(output).toEqual([first, result("toolu_1")]);
  });
});

describe("transformMessages: tool-call ids", () => {
  it("normalizes another model's ids for Anthropic and rewrites their results", () => {
    const message = assistant(gpt, [call("call_abc|fc_def"), call("call_x|fc_y")], "toolUse");
    const output = transform([message, result("call_abc|fc_def"), result("call_x|fc_y")], claude);
    expect(output).toEqual([
      {
        ...message,
        content: [
          { type: "toolCall", id: "call_abc_fc_def", name: "read", arguments: { path: "call_abc|fc_def" } },
          { type: "toolCall", id: "call_x_fc_y", name: "read", arguments: { path: "call_x|fc_y" } },
        ],
      },
      result("call_abc_fc_def", "result of call_abc|fc_def"),
      result("call_x_fc_y", "result of call_x|fc_y"),
    ]);
  });

  it("shortens ids longer than 64 characters for OpenAI apis", () => {
    const longId = `call_${"a".repeat(30)}|fc_${"b".repeat(100)}`;
    const expectedId = `call_${"a".repeat(30)}_fc_${"b".repeat(25)}`;
    for (const target of [gpt, local]) {
      const output = transform([assistant(claude, [call(longId)], "toolUse"), result(longId)], target);
      expect(
        output.map((message) => (message.role === "toolResult" ? message.toolCallId : undefined)),
      ).toEqual([undefined, expectedId]);
      expect(output[0]).toMatchObject({ content: [{ id: expectedId }] });
    }
  });

  it("leaves another model's ids alone for other apis unless too long", () => {
    const message = assistant(claude, [call("id with spaces|pipes"), call("z".repeat(70))], "toolUse");
    const output = transform([message, result("id with spaces|pipes"), result("z".repeat(70))], scripted);
    expect(output.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : []))).toEqual([
      "id with spaces|pipes",
      "z".repeat(64),
    ]);
  });

  it("disambiguates ids that collide after normalization, avoiding ids kept unchanged", () => {
    // "a|b" and "a.b" both normalize to "a_b"; "a_b_2" is valid and appears later, so it is kept.
    const first = assistant(gpt, [call("a|b"), call("a.b")], "toolUse");
    const second = assistant(gpt, [call("a_b_2")], "toolUse", 30);
    const output = transform(
      [
        first,
        result("a.b", "dot"),
        result("a|b", "pipe"),
        user("next", 25),
        second,
        result("a_b_2", "valid"),
      ],
      claude,
    );
    expect(output).toEqual([
      {
        ...first,
        content: [
          { type: "toolCall", id: "a_b", name: "read", arguments: { path: "a|b" } },
          { type: "toolCall", id: "a_b_3", name: "read", arguments: { path: "a.b" } },
        ],
      },
      result("a_b_3", "dot"),
      result("a_b", "pipe"),
      user("next", 25),
      { ...second, content: [{ type: "toolCall", id: "a_b_2", name: "read", arguments: { path: "a_b_2" } }] },
      result("a_b_2", "valid"),
    ]);
  });

  it("keeps disambiguated long ids within 64 characters", () => {
    const prefix = "p".repeat(64);
    const message = assistant(gpt, [call(`${prefix}1`), call(`${prefix}2`)], "toolUse");
    const output = transform([message, result(`${prefix}2`, "two"), result(`${prefix}1`, "one")], claude);
    expect(output).toEqual([
      {
        ...message,
        content: [
          { type: "toolCall", id: prefix, name: "read", arguments: { path: `${prefix}1` } },
          { type: "toolCall", id: `${"p".repeat(62)}_2`, name: "read", arguments: { path: `${prefix}2` } },
        ],
      },
      result(`${"p".repeat(62)}_2`, "two"),
      result(prefix, "one"),
    ]);
  });

  it("gives a reused id of another model a fresh id in each later turn", () => {
    const first = assistant(local, [call("call_0")], "toolUse");
    const second = assistant(local, [call("call_0")], "toolUse", 30);
    const output = transform([first, result("call_0", "one"), second, result("call_0", "two", 40)], claude);
    expect(output).toEqual([
      first,
      result("call_0", "one"),
      {
        ...second,
        content: [{ type: "toolCall", id: "call_0_2", name: "read", arguments: { path: "call_0" } }],
      },
      result("call_0_2", "two", 40),
    ]);
  });

  it("never gives another model's call an id the target model used itself", () => {
    const foreign = assistant(local, [call("toolu_1")], "toolUse");
    const own = assistant(claude, [call("toolu_1")], "toolUse", 30);
    const output = transform(
      [foreign, result("toolu_1", "foreign"), own, result("toolu_1", "own", 40)],
      claude,
    );
    expect(output).toEqual([
      {
        ...foreign,
        content: [{ type: "toolCall", id: "toolu_1_2", name: "read", arguments: { path: "toolu_1" } }],
      },
      result("toolu_1_2", "foreign"),
      own,
      result("toolu_1", "own", 40),
    ]);
  });

  it("pairs results in order with calls that repeat one id in a message", () => {
    const message = assistant(local, [call("dup"), call("dup")], "toolUse");
    const output = transform([message, result("dup", "first"), result("dup", "second")], claude);
    expect(output).toEqual([
      {
        ...message,
        content: [
          { type: "toolCall", id: "dup", name: "read", arguments: { path: "dup" } },
          { type: "toolCall", id: "dup_2", name: "read", arguments: { path: "dup" } },
        ],
      },
      result("dup", "first"),
      result("dup_2", "second"),
    ]);
  });

  it("uses a custom normalizer once per distinct id", () => {
    const seen: string[] = [];
    const normalize = (id: string, model: Model) => {
      seen.push(`${model.id}:${id}`);
      return id.toUpperCase();
    };
    const message = assistant(local, [call("a"), call("b")], "toolUse");
    const output = transform([message, result("a"), result("b")], claude, { normalizeToolCallId: normalize });
    expect(seen).toEqual(["claude-sonnet-4-5:a", "claude-sonnet-4-5:b"]);
    expect(output.flatMap((m) => (m.role === "toolResult" ? [m.toolCallId] : []))).toEqual(["A", "B"]);
  });
});

describe("transformMessages: tool results", () => {
  it("adds a synthetic result right after an unanswered call", () => {
    const message = assistant(claude, [call("toolu_1", "bash")], "toolUse", 15);
    const output = transform([user("hi"), message, user("stop", 50)], claude);
    expect(output).toEqual([user("hi"), message, synthetic("toolu_1", 15, "bash"), user("stop", 50)]);
  });

  it("places synthetic results after the last existing result of partially answered parallel calls", () => {
    const message = assistant(claude, [call("c1"), call("c2"), call("c3")], "toolUse", 15);
    const output = transform([message, result("c2", "two", 21), user("next", 50)], claude);
    expect(output).toEqual([
      message,
      result("c2", "two", 21),
      synthetic("c1", 21),
      synthetic("c3", 21),
      user("next", 50),
    ]);
  });

  it("answers the calls of the last assistant message too", () => {
    const message = assistant(claude, [call("c1"), call("c2")], "toolUse", 15);
    expect(transform([user("hi"), message, result("c1")], claude)).toEqual([
      user("hi"),
      message,
      result("c1"),
      synthetic("c2", 20),
    ]);
  });

  it("treats a result after a user message as an orphan", () => {
    const message = assistant(claude, [call("c1")], "toolUse", 15);
    const output = transform([message, user("interrupt", 16), result("c1")], claude);
    expect(output).toEqual([message, synthetic("c1", 15), user("interrupt", 16)]);
  });

  it("drops orphan and duplicate results", () => {
    const message = assistant(claude, [call("c1")], "toolUse", 15);
    const output = transform(
      [result("before"), message, result("c1", "first"), result("c1", "second"), result("unknown")],
      claude,
    );
    expect(output).toEqual([message, result("c1", "first")]);
  });
});

describe("transformMessages: images", () => {
  const image = { type: "image", data: "aGVsbG8=", mimeType: "image/png" } as const;
  const withImages: Message[] = [
    { role: "user", content: [{ type: "text", text: "look" }, image], timestamp: 1 },
    assistant(claude, [call("c1")], "toolUse"),
    { ...result("c1"), content: [image, { type: "text", text: "a screenshot" }] },
  ];

  it("replaces images by a placeholder for a text-only model", () => {
    const output = transform(withImages, local);
    expect(output[0]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "look" },
        { type: "text", text: OMITTED_IMAGE_TEXT },
      ],
      timestamp: 1,
    });
    expect(output[2]).toEqual({
      ...result("c1"),
      content: [
        { type: "text", text: OMITTED_IMAGE_TEXT },
        { type: "text", text: "a screenshot" },
      ],
    });
  });

  it("keeps images for a model that accepts them and passes string content through", () => {
    expect(transform(withImages, claude)).toEqual(withImages);
    expect(transform([user("plain")], local)).toEqual([user("plain")]);
  });
});

describe("transformMessages: purity", () => {
  it("returns new messages and content arrays", () => {
    const messages: Message[] = [
      user("hi"),
      assistant(claude, [{ type: "text", text: "hello" }, call("c1")], "toolUse"),
      result("c1"),
    ];
    const output = transform(messages, claude);
    expect(output).toEqual(messages);
    for (const [index, message] of output.entries()) {
      const original = messages[index]!;
      expect(message).not.toBe(original);
      if (Array.isArray(message.content)) expect(message.content).not.toBe(original.content);
      if (message.role === "assistant")
        expect(message.content[0]).not.toBe((original.content as ContentBlock[])[0]);
    }
  });
});

describe("transformMessages: cost", () => {
  it("stays linear when thousands of ids collide", () => {
    const prefix = "p".repeat(64);
    const messages: Message[] = [];
    for (let index = 0; index < 5_000; index += 1) {
      messages.push(assistant(gpt, [call(`${prefix}${index}`)], "toolUse"), result(`${prefix}${index}`));
    }
    const started = performance.now();
    const output = transformMessages(messages, claude);
    expect(performance.now() - started).toBeLessThan(2_000);
    const ids = output.flatMap((message) => (message.role === "toolResult" ? [message.toolCallId] : []));
    expect(new Set(ids).size).toBe(5_000);
    expect(ids.at(-1)).toBe(`${"p".repeat(59)}_5000`);
  });
});

describe("transformMessages: properties", () => {
  const targets = [claude, gpt, local, scripted];
  const sources = [claude, claudeOpus, gpt, local, scripted];
  const idPool = [
    "call_1",
    "call|1",
    "call.1",
    "call_1_2",
    "toolu_01",
    "",
    "a b",
    "x".repeat(70),
    `${"x".repeat(70)}y`,
  ];
  const idArbitrary = fc.oneof(fc.constantFrom(...idPool), fc.string({ maxLength: 80 }));

  const userArbitrary = fc.string({ maxLength: 5 }).map((text): Message => user(text));
  const assistantArbitrary = fc
    .record({
      source: fc.constantFrom(...sources),
      stopReason: fc.constantFrom<StopReason>("stop", "toolUse", "length", "error", "aborted"),
      thinking: fc.boolean(),
      ids: fc.array(idArbitrary, { maxLength: 3 }),
    })
    .map(({ source, stopReason, thinking, ids }): Message => {
      const content: AssistantMessage["content"] = thinking
        ? [{ type: "thinking", thinking: "hmm", thinkingSignature: "sig" }]
        : [];
      return assistant(source, [...content, ...ids.map((id) => call(id))], stopReason);
    });
  const resultArbitrary = idArbitrary.map((id): Message => result(id));
  const conversationArbitrary = fc.array(fc.oneof(userArbitrary, assistantArbitrary, resultArbitrary), {
    maxLength: 25,
  });

  function isValidId(id: string, target: Model): boolean {
    return target.api === "scripted" ? id.length <= 64 : /^[a-zA-Z0-9_-]{1,64}$/.test(id);
  }

  it("pairs every call with exactly one result, drops failed responses and emits valid ids", () => {
    fc.assert(
      fc.property(conversationArbitrary, fc.constantFrom(...targets), (messages, target) => {
        const ownIds = new Set(
          messages.flatMap((message) =>
            message.role === "assistant" && message.model === target.id
              ? message.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []))
              : [],
          ),
        );
        const output = transformMessages(deepFreeze(messages), target);

        let open = new Map<string, number>();
        const expectAllAnswered = () => {
          for (const count of open.values()) expect(count).toBe(0);
        };
        for (const message of output) {
          if (message.role === "toolResult") {
            const count = open.get(message.toolCallId) ?? 0;
            expect(count).toBeGreaterThan(0);
            open.set(message.toolCallId, count - 1);
            continue;
          }
          expectAllAnswered();
          open = new Map();
          if (message.role !== "assistant") continue;
          expect(["error", "aborted"]).not.toContain(message.stopReason);
          for (const block of message.content) {
            if (block.type !== "toolCall") continue;
            expect(isValidId(block.id, target) || ownIds.has(block.id)).toBe(true);
            open.set(block.id, (open.get(block.id) ?? 0) + 1);
          }
        }
        expectAllAnswered();
      }),
      { numRuns: 300 },
    );
  });
});
