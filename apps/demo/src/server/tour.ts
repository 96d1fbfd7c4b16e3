/**
 * `pnpm demo --tour`: the tour script of `@arbor/app-runtime/demo` run live on the demo's session — files
 * written, run, read and edited; a build log that pushes the context over the compaction threshold of a
 * small window; a label; an alternative tried on a branch that is then left with its summary — so the
 * page has a tree to show at once. The scripted model answers each prompt with the tour's steps, and the
 * summarizer's requests with the demo model's summaries.
 */
import type { Provider } from "@arbor/ai-providers";
import {
  createTourProvider,
  LABEL_AFTER_PROMPT,
  NAVIGATE_AFTER_PROMPT,
  TOUR_LABEL,
  TOUR_PROMPTS,
} from "@arbor/app-runtime/demo";
import type { DemoHub } from "./demo-hub.js";

/** The tour's provider and the function that runs its prompts. */
export interface TourRun {
  readonly provider: Provider;
  /**
   * Runs the tour's prompts on the hub's current session, one after another.
   *
   * Contract: resolves when the last prompt settled; a prompt that fails ends the tour with an `error`
   * event in the log (the page shows it), not a rejection.
   */
  run(hub: DemoHub): Promise<void>;
}

/** The tour's scripted provider (`pace`: ms between streamed chunks) and its runner. */
export function createTourRun(pace: number): TourRun {
  const tour = createTourProvider(pace);
  const run = async (hub: DemoHub): Promise<void> => {
    const session = hub.runtime.session;
    let labelled: string | null = null;
    try {
      await session.setName("Arbor tour");
      for (const [index, prompt] of TOUR_PROMPTS.entries()) {
        tour.queue(prompt);
        await session.prompt(prompt.text);
        if (index === LABEL_AFTER_PROMPT) {
          labelled = session.session.leafId;
          if (labelled !== null) await session.label(labelled, TOUR_LABEL);
        }
        if (index === NAVIGATE_AFTER_PROMPT && labelled !== null) {
          await session.navigateTree(labelled, { summarize: true });
        }
      }
      hub.log.append({ type: "tour_end", sessionId: session.id });
    } catch (error) {
      hub.log.append({
        type: "error",
        sessionId: session.id,
        message: `The tour stopped: ${error instanceof Error ? error.message : String(error)}`,
      });
    }
  };
  return { provider: tour.provider, run };
}
