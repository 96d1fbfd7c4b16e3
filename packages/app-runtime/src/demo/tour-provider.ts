/**
 * The tour's scripted model, shared by `arbor tour` and `pnpm demo --tour`: a demo model with a small
 * window (so that the tour's build log crosses the compaction threshold early), its compaction settings and
 * label, and a provider that answers each prompt with the steps the tour script queued for it and every
 * summarizer request with the demo model's summary.
 */
import type { Context, Model } from "@arbor/ai-providers";
import {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedStep,
} from "@arbor/ai-providers/testing";
import { SUMMARIZER_SYSTEM_PROMPT } from "@arbor/compaction";
import { demoModel, demoStep } from "./demo-model.js";
import type { TourPrompt } from "./tour-script.js";

/** The tour model's context window. */
export const TOUR_CONTEXT_WINDOW = 10_000;

/** The tour model (`scripted/tour`). */
export const TOUR_MODEL: Model = demoModel({
  id: "tour",
  name: "Tour model (scripted, 10,000-token window)",
  contextWindow: TOUR_CONTEXT_WINDOW,
  maxTokens: 4_096,
});

/**
 * The tour's compaction settings: compact above 10,000 − 2,500 tokens, keep about 2,000 verbatim, let the
 * build log through whole (its tool-output budget is 4,000 tokens, not the window's 1,000), and summarize at
 * once (no pruning), so that the tour shows a compaction.
 */
export const TOUR_COMPACTION = {
  reserveTokens: 2_500,
  keepRecentTokens: 2_000,
  toolOutputTokens: 4_000,
  prune: false,
} as const;

/** The label the tour puts on the point it later returns to. */
export const TOUR_LABEL = "friendly greeting";

/** {@link createTourProvider}'s result. */
export interface TourProvider {
  readonly provider: ScriptedProvider;
  /**
   * Queues the scripted answers of one tour prompt, used by the next model calls of the run.
   *
   * Contract: call it before sending the prompt; answers left over stay queued (see {@link pending}).
   */
  queue(prompt: TourPrompt): void;
  /** Answers queued and not asked for yet (0 after a tour that went as scripted). */
  readonly pending: number;
}

function isSummaryRequest(context: Context): boolean {
  return context.systemPrompt === SUMMARIZER_SYSTEM_PROMPT;
}

/**
 * The tour's provider: `pace` ms between streamed chunks of an answer (summaries are not paced).
 *
 * Contract: a call with nothing queued gets the demo model's own answer; never rejects.
 */
export function createTourProvider(pace: number): TourProvider {
  const answers: ScriptedStep[] = [];
  const provider = createScriptedProvider(
    ({ context }) => (isSummaryRequest(context) ? demoStep(context) : (answers.shift() ?? demoStep(context))),
    {
      id: TOUR_MODEL.provider,
      model: TOUR_MODEL,
      recordCalls: false,
      chunkDelayMs: ({ context }) => (isSummaryRequest(context) ? 0 : pace),
    },
  );
  return {
    provider,
    queue: (prompt) => {
      answers.push(...prompt.answers);
    },
    get pending() {
      return answers.length;
    },
  };
}
