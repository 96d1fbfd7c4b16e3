/**
 * Record and replay (from @arbor/ai-providers) around the real provider: interactions recorded from the
 * local wire server replay with the server gone, and the replay passes the conformance suite.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRecordingProvider, createReplayProvider } from "@arbor/ai-providers/recording";
import {
  anthropicScenarioOptions,
  anthropicScenarioReplies,
  describeProvider,
  scenarioContext,
  startFakeAnthropicServer,
} from "@internal/conformance";
import { afterAll, describe, expect, it } from "vitest";
import { createAnthropicProvider } from "../src/index.js";
import { drain, FAST_RETRY } from "./support/harness.js";

const directory = mkdtempSync(join(tmpdir(), "arbor-anthropic-cassettes-"));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe("recording the anthropic provider", () => {
  it("writes no key and replays the same message once the server is gone", async () => {
    const file = join(directory, "tool-call.jsonl");
    const server = await startFakeAnthropicServer(anthropicScenarioReplies("toolCall"));
    const provider = createAnthropicProvider({ apiKey: "sk-ant-secret-key", baseURL: server.url });
    const model = provider.models.find((candidate) => candidate.id === "claude-sonnet-5-5")!;
    const recorder = createRecordingProvider(provider, file);
    const live = await drain(recorder.stream(model, scenarioContext("toolCall"), { apiKey: "sk-ant-other" }));
    await server.close();
    expect(readFileSync(file, "utf8")).not.toMatch(/sk-ant/);

    const replayed = await drain(createReplayProvider(file).stream(model, scenarioContext("toolCall")));
    expect(replayed.result).toEqual(live.result);
    expect(replayed.events.map((event) => event.type)).toEqual(live.events.map((event) => event.type));
  });
});

describeProvider({
  name: "replay of a cassette recorded from the anthropic wire server",
  create: async (scenario) => {
    const file = join(directory, `${scenario}.jsonl`);
    // abortBeforeStart never reaches the provider; its cassette holds an ordinary reply.
    const served = scenario === "abortBeforeStart" ? "text" : scenario;
    const server = await startFakeAnthropicServer(anthropicScenarioReplies(served));
    const provider = createAnthropicProvider({
      apiKey: "sk-ant-test-key",
      baseURL: server.url,
      retry: { ...FAST_RETRY, maxRetries: 1 },
    });
    const model = provider.models.find((candidate) => candidate.id === "claude-sonnet-5-5")!;
    await createRecordingProvider(provider, file)
      .stream(model, scenarioContext(scenario), anthropicScenarioOptions(scenario))
      .result();
    await server.close();
    const replayer = createReplayProvider(file);
    return {
      provider: replayer,
      model,
      cleanup: () => expect(replayer.remaining).toBe(scenario === "abortBeforeStart" ? 1 : 0),
    };
  },
});
