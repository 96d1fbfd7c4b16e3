/**
 * The recording and replay providers pass the provider conformance suite: the recording provider
 * around the scripted provider, and the replay of a cassette recorded from it.
 * It lives here, next to the suite, for the reason in docs/decisions/0001.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRecordingProvider, createReplayProvider } from "@arbor/ai-providers/recording";
import { createScriptedProvider, type ScriptedStep, script } from "@arbor/ai-providers/testing";
import { afterAll, expect } from "vitest";
import { describeProvider, type ProviderScenarioName, scenarioContext } from "../src/index.js";

const directory = mkdtempSync(join(tmpdir(), "arbor-recording-conformance-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const steps: Record<ProviderScenarioName, ScriptedStep> = {
  text: script.text("Hello! How can I help you today?"),
  toolCall: script.toolCall("get_weather", { city: "Paris", unit: "celsius" }, { text: "Let me check." }),
  thinking: script.thinking("17 * 23 = 340 + 51 = 391.", "391", { signature: "sig-391" }),
  abort: script.text("Once upon a time there was a tree that grew very, very slowly. ".repeat(10)),
  abortBeforeStart: script.text("never streamed"),
  error: script.error("500 Internal Server Error", { partial: [script.part.text("Hel")] }),
};

/** The options describeProvider sends for a scenario (without the signal). */
const optionsFor = (scenario: ProviderScenarioName) =>
  scenario === "thinking" ? { reasoning: "medium" as const } : {};

describeProvider({
  name: "recording provider (around the scripted provider)",
  create: (scenario) => {
    const inner = createScriptedProvider([steps[scenario]]);
    const provider = createRecordingProvider(inner, join(directory, `recording-${scenario}.jsonl`));
    return {
      provider,
      model: inner.model,
      cleanup: () => {
        if (scenario !== "abortBeforeStart") inner.assertDone();
      },
    };
  },
});

describeProvider({
  name: "replay provider (a cassette recorded from the scripted provider)",
  create: async (scenario) => {
    // Record the scenario once, in full, then serve the suite's request from the cassette.
    const file = join(directory, `replay-${scenario}.jsonl`);
    const inner = createScriptedProvider([steps[scenario]]);
    const recorder = createRecordingProvider(inner, file);
    await recorder.stream(inner.model, scenarioContext(scenario), optionsFor(scenario)).result();
    const provider = createReplayProvider(file);
    return {
      provider,
      model: inner.model,
      cleanup: () => {
        expect(provider.remaining).toBe(scenario === "abortBeforeStart" ? 1 : 0);
      },
    };
  },
});
