import { Type } from "@arbor/ai-providers";
import { createScriptedProvider, type ScriptedStep, script } from "@arbor/ai-providers/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Agent, type AgentListenerError, defineTool, type ToolExecutionMode } from "../src/index.js";
import { EventLog, expectWellFormedRun, sleep } from "./helpers.js";

/** What a scripted tool call asks the `work` tool to do (or how it is malformed). */
type CallPlan = "ok" | "error" | "throw" | "terminate" | "slow" | "unknown tool" | "invalid arguments";

type StepPlan =
  | { kind: "text"; text: string }
  | { kind: "tools"; calls: CallPlan[] }
  | { kind: "error"; withPartialCall: boolean };

const work = defineTool({
  name: "work",
  description: "does what its arguments say",
  parameters: Type.Object({ mode: Type.String(), delayMs: Type.Integer({ minimum: 0 }) }),
  async execute({ mode, delayMs }, { signal, onUpdate }) {
    onUpdate({ details: { mode } });
    await sleep(delayMs, signal);
    if (mode === "throw") throw new Error("tool threw");
    return {
      content: [{ type: "text", text: `mode ${mode}` }],
      isError: mode === "error",
      terminate: mode === "terminate",
    };
  },
});

function toStep(plan: StepPlan, stepIndex: number): ScriptedStep {
  if (plan.kind === "text") return script.text(plan.text);
  if (plan.kind === "error") {
    const partial = plan.withPartialCall
      ? [script.part.toolCall("work", { mode: "ok", delayMs: 0 }, `e${stepIndex}`)]
      : [];
    return script.error("scripted failure", { partial });
  }
  return script.toolCalls(
    plan.calls.map((call, callIndex) => {
      const id = `c${stepIndex}_${callIndex}`;
      if (call === "unknown tool") return { name: "missing", arguments: {}, id };
      if (call === "invalid arguments") return { name: "work", arguments: { mode: 1 }, id };
      return { name: "work", arguments: { mode: call, delayMs: call === "slow" ? 3 : callIndex % 2 }, id };
    }),
  );
}

const callPlan = fc.constantFrom<CallPlan>(
  "ok",
  "ok",
  "error",
  "throw",
  "terminate",
  "slow",
  "unknown tool",
  "invalid arguments",
);

const stepPlan: fc.Arbitrary<StepPlan> = fc.oneof(
  {
    arbitrary: fc.record({ kind: fc.constant("text" as const), text: fc.string({ maxLength: 12 }) }),
    weight: 2,
  },
  {
    arbitrary: fc.record({
      kind: fc.constant("tools" as const),
      calls: fc.array(callPlan, { minLength: 1, maxLength: 3 }),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant("error" as const), withPartialCall: fc.boolean() }), weight: 1 },
);

describe("property: any script, any tool outcome, any abort point", () => {
  it("keeps the run well formed, answers every call exactly once and leaves the agent idle", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(stepPlan, { minLength: 1, maxLength: 5 }),
        fc.constantFrom<ToolExecutionMode>("parallel", "sequential"),
        fc.array(fc.string({ minLength: 1, maxLength: 6 }), { maxLength: 2 }),
        fc.option(fc.nat({ max: 80 }), { nil: undefined }),
        async (plans, toolExecution, followUps, abortAtEvent) => {
          const provider = createScriptedProvider(plans.map(toStep), { chunkSize: 5 });
          const listenerErrors: AgentListenerError[] = [];
          const agent = new Agent({
            model: provider.model,
            streamFn: provider.stream,
            tools: [work],
            toolExecution,
            onListenerError: (error) => listenerErrors.push(error),
          });
          for (const text of followUps) agent.followUp(text);
          const log = new EventLog();
          agent.subscribe((event) => {
            log.sink(event);
            if (log.events.length === abortAtEvent) agent.abort();
          });
          await agent.prompt("start");

          expect(listenerErrors).toEqual([]);
          expectWellFormedRun(log.events, agent.state.messages);
          expect(agent.state.isStreaming).toBe(false);
          expect(agent.state.pendingToolCalls.size).toBe(0);
          expect(agent.state.streamingMessage).toBeUndefined();
          // The run stops making model calls once a response fails or is aborted.
          const failed = provider.calls.findIndex((_, index) => {
            const reply = agent.state.messages.filter((message) => message.role === "assistant")[index];
            return reply !== undefined && (reply.stopReason === "error" || reply.stopReason === "aborted");
          });
          if (failed !== -1) expect(provider.calls).toHaveLength(failed + 1);
        },
      ),
      { numRuns: 60 },
    );
  }, 60_000);
});
