import { createScriptedProvider, type ScriptedStep, script } from "@arbor/ai-providers/testing";
import { describeProvider, type ProviderScenarioName } from "../src/index.js";

const steps: Record<ProviderScenarioName, ScriptedStep> = {
  text: script.text("Hello! How can I help you today?"),
  toolCall: script.toolCall("get_weather", { city: "Paris", unit: "celsius" }, { text: "Let me check." }),
  thinking: script.thinking("17 * 23 = 17 * 20 + 17 * 3 = 340 + 51 = 391.", "391"),
  abort: script.text("Once upon a time there was a tree that grew very, very slowly. ".repeat(10)),
  abortBeforeStart: script.text("never streamed"),
  error: script.error("500 Internal Server Error", { partial: [script.part.text("Hel")] }),
};

describeProvider({
  name: "scripted",
  create: (scenario) => {
    const provider = createScriptedProvider([steps[scenario]]);
    return {
      provider,
      model: provider.model,
      cleanup: () => {
        if (scenario !== "abortBeforeStart") provider.assertDone();
      },
    };
  },
});
