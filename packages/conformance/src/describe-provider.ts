import {
  type AssistantEvent,
  type AssistantMessage,
  type Model,
  type Provider,
  type StreamOptions,
  validateToolArguments,
} from "@arbor/ai-providers";
import { afterEach, describe, expect, it } from "vitest";
import { PROVIDER_SCENARIOS, type ProviderScenarioName, scenarioContext, WEATHER_TOOL } from "./scenarios.js";
import { checkStreamProtocol } from "./stream-protocol.js";

/** What a provider can do; scenarios it cannot run are skipped. Everything defaults to true. */
export interface ProviderCapabilities {
  tools?: boolean;
  thinking?: boolean;
  abort?: boolean;
  errors?: boolean;
}

/** A provider prepared for one scenario. */
export interface ProviderFixture {
  provider: Provider;
  model: Model;
  /** Extra options for the request (e.g. an API key for a local server). */
  options?: StreamOptions;
  /** Called after the scenario (stop a local server, assert a script was used up). */
  cleanup?: () => void | Promise<void>;
}

/** Options of {@link describeProvider}. */
export interface DescribeProviderOptions {
  /** Shown in the test names. */
  name: string;
  /**
   * Prepares the provider for one scenario: a scripted provider loaded with the scenario's steps, or
   * an SDK provider pointed at a local server that replays the scenario's wire fixture. For `error`
   * the fixture must make the request fail (e.g. HTTP 500); for `abort` it must stream slowly enough
   * to be aborted after the first delta.
   */
  create: (scenario: ProviderScenarioName) => ProviderFixture | Promise<ProviderFixture>;
  /** Scenarios to run; default all the capabilities allow. */
  scenarios?: readonly ProviderScenarioName[];
  capabilities?: ProviderCapabilities;
}

interface Recorded {
  events: AssistantEvent[];
  result: AssistantMessage;
}

/**
 * Registers a vitest suite that checks a provider against the event protocol over the standard
 * scenarios. Every scenario checks the protocol invariants ({@link checkStreamProtocol}); each also
 * checks its own outcome (a text reply; a schema-valid tool call; a thinking block; `aborted` after an
 * abort; an `error` event, never a throw, for a failing request).
 */
export function describeProvider(options: DescribeProviderOptions): void {
  const capabilities = { tools: true, thinking: true, abort: true, errors: true, ...options.capabilities };
  const enabled = (options.scenarios ?? PROVIDER_SCENARIOS).filter((name) => {
    if (name === "toolCall") return capabilities.tools;
    if (name === "thinking") return capabilities.thinking;
    if (name === "abort" || name === "abortBeforeStart") return capabilities.abort;
    if (name === "error") return capabilities.errors;
    return true;
  });

  describe(`provider conformance: ${options.name}`, () => {
    let cleanup: (() => void | Promise<void>) | undefined;
    afterEach(async () => {
      const run = cleanup;
      cleanup = undefined;
      await run?.();
    });

    const run = async (
      scenario: ProviderScenarioName,
      abortWhen?: (event: AssistantEvent) => boolean,
    ): Promise<Recorded> => {
      const fixture = await options.create(scenario);
      cleanup = fixture.cleanup;
      const controller = new AbortController();
      if (scenario === "abortBeforeStart") controller.abort();
      const streamOptions: StreamOptions = {
        ...fixture.options,
        signal: controller.signal,
        ...(scenario === "thinking" ? { reasoning: "medium" } : {}),
      };
      let stream: ReturnType<Provider["stream"]> | undefined;
      expect(() => {
        stream = fixture.provider.stream(fixture.model, scenarioContext(scenario), streamOptions);
      }).not.toThrow();
      const events: AssistantEvent[] = [];
      for await (const event of stream!) {
        events.push(event);
        if (abortWhen?.(event)) controller.abort();
      }
      const result = await stream!.result();
      expect(checkStreamProtocol(events, result)).toEqual([]);
      return { events, result };
    };

    for (const scenario of enabled) {
      it(`${scenario}: follows the event protocol`, async () => {
        switch (scenario) {
          case "text": {
            const { result } = await run(scenario);
            expect(result.stopReason).toBe("stop");
            const text = result.content.filter((block) => block.type === "text").map((block) => block.text);
            expect(text.join("").trim().length).toBeGreaterThan(0);
            expect(result.usage.output).toBeGreaterThan(0);
            break;
          }
          case "toolCall": {
            const { result } = await run(scenario);
            expect(result.stopReason).toBe("toolUse");
            const call = result.content.find((block) => block.type === "toolCall");
            expect(call?.name).toBe(WEATHER_TOOL.name);
            const validation = validateToolArguments(WEATHER_TOOL, call?.arguments);
            expect(validation.ok ? "" : validation.message).toBe("");
            break;
          }
          case "thinking": {
            const { result } = await run(scenario);
            expect(result.stopReason).toBe("stop");
            expect(result.content.some((block) => block.type === "thinking")).toBe(true);
            break;
          }
          case "abort": {
            const { events, result } = await run(scenario, (event) => event.type.endsWith("_delta"));
            expect(events.some((event) => event.type.endsWith("_delta"))).toBe(true);
            expect(result.stopReason).toBe("aborted");
            expect(events.at(-1)?.type).toBe("error");
            break;
          }
          case "abortBeforeStart": {
            const { result } = await run(scenario);
            expect(result.stopReason).toBe("aborted");
            break;
          }
          case "error": {
            const { events, result } = await run(scenario);
            expect(result.stopReason).toBe("error");
            expect(result.errorMessage?.length).toBeGreaterThan(0);
            expect(events.at(-1)?.type).toBe("error");
            break;
          }
        }
      });
    }
  });
}
