/**
 * Continuing a long session: what compacting a 20,000-entry linear branch costs before the user's prompt
 * is answered — the number of summarizer calls and the characters they send, and Arbor's own time (the
 * summarizer is a scripted provider that answers at once, so the wall time is Arbor's). The floor is one
 * `JSON.stringify` of every message of the branch, measured in the same run. Also reports whether a
 * `MaxListenersExceededWarning` was printed while compacting with one abort signal.
 */
import { performance } from "node:perf_hooks";
import {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedStep,
  script,
} from "@arbor/ai-providers/testing";
import { compact, prepareCompaction, resolveCompactionSettings } from "@arbor/compaction";
import type { Bench } from "./bench.js";
import { branch, messagesOf, stringifyAll } from "./compaction.bench.js";
import { measure, ms } from "./measure.js";

/** A summarizer that answers every call at once with a short summary; re-arms itself. */
function summarizer(): ScriptedProvider {
  let model!: ScriptedProvider;
  const step: ScriptedStep = script.dynamic(() => {
    model.push(step);
    return script.text("## Goal\n- continue the refactoring\n## Progress\n- modules done");
  });
  model = createScriptedProvider([step], {
    chunkSize: 1 << 16,
    model: { contextWindow: 200_000, maxTokens: 32_000 },
  });
  return model;
}

async function runContinueBench(): Promise<string[]> {
  const lines: string[] = [];
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(warning.name);
  process.on("warning", onWarning);
  try {
    const entries = branch(20_000);
    const messages = messagesOf(entries);
    const floor = measure(() => stringifyAll(messages), { runs: 5, warmup: 1 }).medianMs;
    const settings = resolveCompactionSettings();
    const controller = new AbortController();
    let calls = 0;
    let sent = 0;
    const times: number[] = [];
    for (let run = 0; run < 3; run++) {
      const model = summarizer();
      const start = performance.now();
      const plan = prepareCompaction(entries, settings, { contextWindow: 200_000 });
      if (plan.kind !== "ready") throw new Error(`nothing to compact: ${plan.reason}`);
      const outcome = await compact(plan, {
        stream: model.stream,
        model: model.model,
        signal: controller.signal,
      });
      times.push(performance.now() - start);
      if (outcome.kind !== "compacted") throw new Error("aborted");
      calls = outcome.details.calls;
      sent = model.calls.reduce((sum, call) => sum + JSON.stringify(call.context.messages).length, 0);
    }
    const median = times.sort((a, b) => a - b)[1]!;
    lines.push(
      `continuing a ${entries.length}-entry linear session (200k-token window, default settings: at most ${settings.maxSummarizerCalls ?? "unlimited"} summarizer calls)`,
      `  ${"floor: JSON.stringify every message".padEnd(54)} ${ms(floor).padStart(10)}`,
      `  ${"prepareCompaction + compact (instant summarizer)".padEnd(54)} ${ms(median).padStart(10)}   ${(median / floor).toFixed(2)}x`,
      `  summarizer calls: ${calls}; characters sent: ${(sent / 1e6).toFixed(2)}M`,
      `  MaxListenersExceededWarning printed: ${warnings.includes("MaxListenersExceededWarning") ? "yes" : "no"}`,
    );
  } finally {
    process.off("warning", onWarning);
  }
  return lines;
}

const bench: Bench = { name: "compaction: continuing a 20k-entry session", run: runContinueBench };
export default bench;
