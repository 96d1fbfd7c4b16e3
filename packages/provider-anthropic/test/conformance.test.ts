import { describeProvider } from "@internal/conformance";
import { expect } from "vitest";
import { createAnthropicProvider } from "../src/index.js";
import { startFakeAnthropicServer } from "./support/fake-anthropic-server.js";
import { FAST_RETRY } from "./support/harness.js";
import { repliesFor } from "./support/scenarios.js";

describeProvider({
  name: "anthropic (local wire server)",
  create: async (scenario) => {
    const server = await startFakeAnthropicServer(repliesFor(scenario));
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
