import {
  type AssistantMessage,
  emptyUsage,
  type Message,
  type Model,
  transformMessages,
} from "@arbor/ai-providers";
import { createScriptedProvider } from "@arbor/ai-providers/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LlmMessageConverter } from "../src/convert-messages.js";
import { defaultConvertToLlm } from "../src/convert-to-llm.js";
import { LlmMessagePreparer } from "../src/prepare-llm-messages.js";
import type { AgentMessage } from "../src/types.js";

const base = createScriptedProvider().model;
const strictModel: Model = { ...base, id: "strict", provider: "anthropic", api: "anthropic-messages" };
const textOnlyModel: Model = { ...base, id: "text-only", input: ["text"] };
const models = [strictModel, textOnlyModel];

/** Ids chosen to collide: `a|b` normalizes to `a_b` for strict apis. */
const idArbitrary = fc.constantFrom("a", "b", "a|b", "a_b", "call_1");

function assistant(
  source: Model,
  calls: string[],
  stopReason: AssistantMessage["stopReason"],
  withThinking: boolean,
): AssistantMessage {
  const content: AssistantMessage["content"] = [];
  if (withThinking) content.push({ type: "thinking", thinking: "hmm", thinkingSignature: "sig" });
  content.push({ type: "text", text: "reply" });
  for (const id of calls) content.push({ type: "toolCall", id, name: "tool", arguments: { id } });
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

const foreign: Model = { ...base, id: "gpt", provider: "openai", api: "openai-responses" };

function result(toolCallId: string): Message {
  return {
    role: "toolResult",
    toolCallId,
    toolName: "tool",
    content: [{ type: "text", text: "r" }],
    isError: false,
    timestamp: 1,
  };
}

const messageArbitrary: fc.Arbitrary<AgentMessage> = fc.oneof(
  fc.record({ image: fc.boolean() }).map(
    ({ image }): Message => ({
      role: "user",
      content: image
        ? [
            { type: "text", text: "look" },
            { type: "image", data: "aGk=", mimeType: "image/png" },
          ]
        : [{ type: "text", text: "hi" }],
      timestamp: 1,
    }),
  ),
  fc
    .record({
      source: fc.constantFrom(strictModel, textOnlyModel, foreign),
      calls: fc.array(idArbitrary, { maxLength: 2 }),
      stopReason: fc.constantFrom<AssistantMessage["stopReason"]>("toolUse", "stop", "error", "aborted"),
      thinking: fc.boolean(),
    })
    .map(({ source, calls, stopReason, thinking }) => assistant(source, calls, stopReason, thinking)),
  idArbitrary.map(
    (id): Message => ({
      role: "toolResult",
      toolCallId: id,
      toolName: "tool",
      content: [{ type: "image", data: "aGk=", mimeType: "image/png" }],
      isError: false,
      timestamp: 1,
    }),
  ),
  fc.constant({ role: "note", text: "custom", timestamp: 1 } as unknown as AgentMessage),
);

describe("LlmMessagePreparer", () => {
  it("always equals transformMessages over the whole conversation, whatever is appended", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(messageArbitrary, { maxLength: 5 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.constantFrom(0, 1), { minLength: 8, maxLength: 8 }),
        fc.boolean(),
        (batches, modelChoices, appendOnly) => {
          const preparer = new LlmMessagePreparer();
          const converter = new LlmMessageConverter(undefined);
          const transcript: AgentMessage[] = [];
          batches.forEach((batch, index) => {
            transcript.push(...batch);
            const model = models[modelChoices[index]!]!;
            const converted = appendOnly ? converter.appendOnly(transcript) : defaultConvertToLlm(transcript);
            const expected = transformMessages(defaultConvertToLlm(transcript), model);
            expect(preparer.prepare(converted, model, appendOnly)).toEqual(expected);
          });
        },
      ),
      { numRuns: 400 },
    );
  });

  it.each([
    [
      "a failed response, then a late result for the previous turn's call",
      [assistant(strictModel, [], "aborted", false), result("a")],
    ],
    ["a result first", [result("a")]],
    ["another model's response", [assistant(foreign, ["z"], "toolUse", false)]],
    ["an id the output already holds", [assistant(strictModel, ["a_b"], "toolUse", false)]],
  ])("falls back to a full transform when the new messages start with %s", (_label, appended) => {
    const preparer = new LlmMessagePreparer();
    const transcript: AgentMessage[] = [
      { role: "user", content: "q", timestamp: 1 },
      assistant(foreign, ["a|b"], "toolUse", false),
      result("a|b"),
      assistant(strictModel, ["a"], "toolUse", false),
    ];
    preparer.prepare(defaultConvertToLlm(transcript), strictModel, false);
    transcript.push(...appended);
    expect(preparer.prepare(defaultConvertToLlm(transcript), strictModel, false)).toEqual(
      transformMessages(defaultConvertToLlm(transcript), strictModel),
    );
  });

  it("extends its previous output for a run's usual appends (the same message objects are reused)", () => {
    const preparer = new LlmMessagePreparer();
    const converter = new LlmMessageConverter(undefined);
    const transcript: AgentMessage[] = [{ role: "user", content: "q", timestamp: 1 }];
    const first = preparer.prepare(converter.appendOnly(transcript), strictModel, true);
    transcript.push(assistant(strictModel, ["call_9"], "toolUse", false), {
      role: "toolResult",
      toolCallId: "call_9",
      toolName: "tool",
      content: [{ type: "text", text: "r" }],
      isError: false,
      timestamp: 1,
    });
    const second = preparer.prepare(converter.appendOnly(transcript), strictModel, true);
    expect(second[0]).toBe(first[0]); // not transformed again
    expect(second).not.toBe(first); // a new array per call: the caller may keep the old one
    expect(first).toHaveLength(1);
  });
});
