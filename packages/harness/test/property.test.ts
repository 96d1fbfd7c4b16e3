import type { AgentMessage } from "@arbor/agent-core";
import { transformMessages } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { convertSessionMessagesToLlm, MemorySessionStore, type SessionMessage } from "@arbor/session-store";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createHarness, type HarnessSession } from "../src/index.js";
import { bulkTool, createSummarizer } from "./helpers.js";

type Operation =
  | { kind: "prompt"; tool: boolean }
  | { kind: "compact" }
  | { kind: "navigate"; pick: number; summarize: boolean }
  | { kind: "thinking"; level: "off" | "low" | "high" }
  | { kind: "label"; pick: number }
  | { kind: "custom message" };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("prompt" as const), tool: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("compact" as const) }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("navigate" as const), pick: fc.nat(), summarize: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("thinking" as const),
      level: fc.constantFrom("off", "low", "high"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("label" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("custom message" as const) }) },
);

function snapshot(session: HarnessSession) {
  return {
    messages: JSON.stringify(session.state.messages),
    thinkingLevel: session.state.thinkingLevel,
    leafId: session.session.leafId,
  };
}

describe("any sequence of operations", () => {
  it("keeps the agent's transcript equal to the session's context, shows the model its full conversion, and a reopen rebuilds it", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 16 }), async (operations) => {
        const store = new MemorySessionStore();
        let replies = 0;
        let wantTool = false;
        const provider = createScriptedProvider(
          (call) => {
            const last = call.context.messages.at(-1);
            if (wantTool && last?.role === "user") return script.toolCall("bulk", { part: replies++ });
            return script.text(`reply ${replies++}`);
          },
          { model: { contextWindow: 6000 } },
        );
        const summarizer = createSummarizer();
        const options = {
          streamFn: provider.stream,
          model: provider.model,
          store,
          tools: [bulkTool(6000)],
          summarizer: { model: summarizer.model, streamFn: summarizer.stream },
          settings: { compaction: { reserveTokens: 2000, keepRecentTokens: 600 } },
          onError: (error: unknown) => {
            throw error;
          },
        };
        const harness = createHarness(options);
        const session = await harness.newSession();
        // The transcript before each model call (a handler that returns nothing leaves it as it is).
        const transcripts: AgentMessage[][] = [];
        session.on("context", (event) => {
          transcripts.push([...event.messages]);
        });
        for (const step of operations) {
          if (step.kind === "prompt") {
            wantTool = step.tool;
            await session.prompt(`question ${replies}`);
          } else if (step.kind === "compact") {
            await session.compact();
          } else if (step.kind === "navigate") {
            const ids = session.session.getTree().length === 0 ? [] : allIds(session);
            const target = ids.length === 0 ? null : ids[step.pick % ids.length]!;
            await session.navigateTree(target, { summarize: step.summarize });
          } else if (step.kind === "thinking") {
            await session.setThinkingLevel(step.level);
          } else if (step.kind === "label") {
            const ids = allIds(session);
            if (ids.length > 0) await session.label(ids[step.pick % ids.length]!, `label ${step.pick}`);
          } else {
            await session.appendCustomMessage({ customType: "note", content: `note ${replies}` });
          }
          expect(session.isBusy).toBe(false);
          expect(JSON.stringify(session.state.messages)).toBe(
            JSON.stringify(session.session.buildContext().messages),
          );
        }
        // What each model call saw is the whole transcript converted at once (summaries and custom messages
        // as user messages), although agent-core converted it incrementally.
        expect(provider.calls).toHaveLength(transcripts.length);
        provider.calls.forEach((call, index) => {
          const converted = convertSessionMessagesToLlm(transcripts[index] as SessionMessage[]);
          expect(call.context.messages).toEqual(transformMessages(converted, call.model));
        });
        const before = snapshot(session);
        await session.close();
        const reopened = await createHarness(options).openSession(session.id);
        expect(snapshot(reopened)).toEqual(before);
      }),
      { numRuns: 60 },
    );
  });
});

function allIds(session: HarnessSession): string[] {
  const ids: string[] = [];
  const walk = (nodes: ReturnType<HarnessSession["session"]["getTree"]>) => {
    for (const node of nodes) {
      ids.push(node.id);
      walk(node.children);
    }
  };
  walk(session.session.getTree());
  return ids;
}
