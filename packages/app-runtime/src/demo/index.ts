/**
 * @arbor/app-runtime/demo — the offline scripted demo model (`--provider scripted`) and the script of
 * `arbor tour`, so any front end (a terminal, a web page) can replay them without a network or a key.
 */

export {
  createDemoProvider,
  DEMO_MODEL_ID,
  type DemoProviderOptions,
  demoModel,
  demoStep,
  SCRIPTED_PROVIDER_ID,
} from "./demo-model.js";
export { demoSummary } from "./demo-summary.js";
export { clipLine, DEMO_HELP, demoWords, firstLines } from "./demo-text.js";
export {
  createTourProvider,
  TOUR_COMPACTION,
  TOUR_CONTEXT_WINDOW,
  TOUR_LABEL,
  TOUR_MODEL,
  type TourProvider,
} from "./tour-provider.js";
export {
  BUILD_LOG_LINES,
  LABEL_AFTER_PROMPT,
  NAVIGATE_AFTER_PROMPT,
  PAGE_LINES,
  TOUR_PROMPTS,
  type TourPrompt,
  WARNING_LINE,
} from "./tour-script.js";
