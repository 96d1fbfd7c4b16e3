import { anthropicScenarioReplies, describeProvider, startFakeAnthropicServer } from "@internal/conformance";
import { expect } from "vitest";
import { createAnthropicProvider } from "../src/index.js";
import { FAST_RETRY } from "./support/harness.js";

describeProvider({
  name: "anthropic (local wire server)",
  create: async (scenario) => {
    const server = await startFakeAnthropicServer(anthropicScenarioReplies(scenario));
    const provider = createAnthropicProvider({
      apiKey: "sk-ant-test-key",
      baseURL: server.url,
      retry: { ...FAST_RETRY, maxRetries: 1 },
    });
    const model = provider.models.find((candidate) => candidate.id === "claude-sonnet-5-5")!;
    return {
      provider,
      model,
      cleanup: async () => {
        await server.close();
        if (scenario === "abortBeforeStart") expect(server.requests).toHaveLength(0);
        else expect(server.remaining).toBe(0);
      },
    };
  },
});
