import type { AgentMessage } from "@arbor/agent-core";
import { emptyUsage, type Message, type TextContent } from "@arbor/ai-providers";
import { convertSessionMessagesToLlm, type SessionMessage } from "@arbor/session-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { convertSessionMessageToLlm, createSessionMessageConverter } from "../src/index.js";

const sessionMessage: fc.Arbitrary<SessionMessage> = fc.oneof(
  fc.string({ maxLength: 5 }).map((text): SessionMessage => ({ role: "user", content: text, timestamp: 1 })),
  fc.constant<SessionMessage>({
    role: "assistant",
    content: [{ type: "text", text: "answer" }],
    api: "scripted",
    provider: "scripted",
    model: "scripted-model",
    usage: emptyUsage(),
    stopReason: "stop",
    timestamp: 2,
  }),
  fc.constant<SessionMessage>({
    role: "toolResult",
    toolCallId: "call_1",
    toolName: "read",
    content: [{ type: "text", text: "file" }],
    isError: false,
    timestamp: 3,
  }),
  fc
    .string({ maxLength: 5 })
    .map(
      (summary): SessionMessage => ({ role: "compactionSummary", summary, tokensBefore: 9, timestamp: 4 }),
    ),
  fc
    .string({ maxLength: 5 })
    .map((summary): SessionMessage => ({ role: "branchSummary", summary, fromId: "abc", timestamp: 5 })),
  fc
    .oneof(
      fc.string({ maxLength: 5 }),
      fc.constant(null).map((): TextContent[] => [{ type: "text", text: "block" }]),
    )
    .map(
      (content): SessionMessage => ({
        role: "custom",
        customType: "note",
        content,
        display: true,
        timestamp: 6,
      }),
    ),
  fc.boolean().map(
    (excludeFromContext): SessionMessage => ({
      role: "bashExecution",
      command: "ls",
      output: "a b",
      exitCode: 0,
      cancelled: false,
      truncated: false,
      excludeFromContext,
      timestamp: 7,
    }),
  ),
  fc.constant({ role: "application-kind", timestamp: 8 } as unknown as SessionMessage),
);

const asAgent = (messages: readonly SessionMessage[]) => messages as unknown as AgentMessage[];

describe("convertSessionMessageToLlm (the harness's per-message converter)", () => {
  it("message by message, equals convertSessionMessagesToLlm over the whole list (model messages by reference)", () => {
    fc.assert(
      fc.property(fc.array(sessionMessage, { maxLength: 12 }), (messages) => {
        const perMessage = asAgent(messages).flatMap((message) => convertSessionMessageToLlm(message));
        const whole = convertSessionMessagesToLlm(messages);
        expect(perMessage).toEqual(whole);
        perMessage.forEach((message: Message, index) => {
          if (messages.includes(message as SessionMessage)) expect(whole[index]).toBe(message);
          else expect(message.role).toBe("user");
        });
      }),
      { numRuns: 300 },
    );
  });

  it("createSessionMessageConverter (incremental, memoized) equals the full conversion after any appends", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(sessionMessage, { maxLength: 4 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        (batches, newArrays) => {
          const convert = createSessionMessageConverter();
          let transcript: AgentMessage[] = [];
          batches.forEach((batch, index) => {
            if (newArrays[index] === true) transcript = [...transcript];
            transcript.push(...asAgent(batch));
            expect(convert(transcript)).toEqual(convertSessionMessagesToLlm(transcript as SessionMessage[]));
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});
