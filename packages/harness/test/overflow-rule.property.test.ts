import type { Context, Message, StreamFn } from "@arbor/ai-providers";
import { createScriptedProvider, type ScriptedCall, script } from "@arbor/ai-providers/testing";
import { SUMMARIZER_SYSTEM_PROMPT } from "@arbor/compaction";
import { MemorySessionStore } from "@arbor/session-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHarness } from "../src/index.js";
import { createResourceLoader, createSystemPromptBuilder } from "../src/resources/index.js";

/**
 * The overflow rule, over server windows from 4k to 1M: a server whose window is smaller than the model
 * claims refuses a request (stating its limit or not); the retry in the same run is smaller than the
 * refused request and within the stated limit, and the run ends with the model's answer.
 */

function requestTokens(context: Context): number {
  let chars = (context.systemPrompt ?? "").length + JSON.stringify(context.tools ?? []).length;
  for (const message of context.messages) chars += textChars(message);
  return Math.ceil(chars / 4);
}

function textChars(message: Message): number {
  if (typeof message.content === "string") return message.content.length;
  let chars = 0;
  for (const block of message.content) {
    if (block.type === "text") chars += block.text.length;
    else if (block.type === "toolCall") chars += JSON.stringify(block.arguments).length;
  }
  return chars;
}

async function run(serverWindow: number, claimedShare: number, stated: boolean) {
  const requests: { tokens: number; refused: boolean; summary: boolean }[] = [];
  const respond = (call: ScriptedCall) => {
    const tokens = requestTokens(call.context);
    const summary = call.context.systemPrompt === SUMMARIZER_SYSTEM_PROMPT;
    const refused = tokens > serverWindow;
    requests.push({ tokens, refused, summary });
    if (refused) {
      return script.error(
        stated
          ? `This model's maximum context length is ${serverWindow} tokens. However, you requested ${tokens} tokens.`
          : "context_length_exceeded",
      );
    }
    if (summary) return script.text(`## Goal\n- ${"keep going ".repeat(20)}`);
    return script.text("a".repeat(Math.floor(serverWindow * 4 * 0.15)));
  };
  const provider = createScriptedProvider(respond, {
    model: { contextWindow: Math.floor(serverWindow * claimedShare), maxTokens: 4096 },
    chunkSize: 1 << 16,
  });
  const stream: StreamFn = (model, context, options) => provider.stream(model, context, options);
  const harness = createHarness({
    streamFn: stream,
    model: provider.model,
    store: new MemorySessionStore(),
    cwd: "/tmp/arbor-overflow-rule",
    resources: createResourceLoader({ home: "/tmp/arbor-overflow-rule-home" }),
    systemPrompt: createSystemPromptBuilder(),
    sleep: async () => {},
    settings: { retry: { jitter: 0 } },
  });
  const session = await harness.newSession();
  const errors: string[] = [];
  for (let prompt = 0; prompt < 9; prompt++) {
    await session.prompt(`Question ${prompt}`);
    if (session.state.errorMessage !== undefined) errors.push(session.state.errorMessage);
  }
  await session.close();
  return { requests, errors };
}

describe("the overflow rule", () => {
  it("retries smaller than the refused request, within the stated window, in the same run", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 4000, max: 1_000_000 }),
        fc.double({ min: 1.5, max: 6, noNaN: true }),
        fc.boolean(),
        async (serverWindow, claimedShare, stated) => {
          const { requests, errors } = await run(serverWindow, claimedShare, stated);
          expect(errors).toEqual([]);
          const refusedAt = requests.findIndex((request) => request.refused);
          expect(refusedAt).toBeGreaterThanOrEqual(0);
          // Only the first request over the server's window is refused: every later one fits.
          expect(requests.filter((request) => request.refused)).toHaveLength(1);
          const retry = requests.slice(refusedAt + 1).find((request) => !request.summary);
          expect(retry).toBeDefined();
          expect(retry!.tokens).toBeLessThan(requests[refusedAt]!.tokens);
          expect(retry!.tokens).toBeLessThanOrEqual(serverWindow);
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);
});
