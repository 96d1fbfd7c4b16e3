import { join } from "node:path";
import {
  anthropicSse,
  completeAnthropicStream,
  type FakeAnthropicReply,
  type FakeAnthropicServer,
  startFakeAnthropicServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { RpcClient, runArbor, sandbox, writeJson } from "./cli-helpers.js";

let anthropic: FakeAnthropicServer | undefined;

afterEach(async () => {
  await anthropic?.close();
  anthropic = undefined;
});

const answer = (text: string): FakeAnthropicReply => ({
  kind: "stream",
  events: completeAnthropicStream([anthropicSse.textBlock(0, text)]),
});

const anthropicFlags = (url: string) => [
  "--provider",
  "anthropic",
  "--base-url",
  url,
  "--api-key",
  "sk-ant-test",
];

describe("any model id", { timeout: 60_000 }, () => {
  it("passes an id the catalog does not list through, with one notice on stderr and the stated defaults", async () => {
    anthropic = await startFakeAnthropicServer([answer("Hello from the proxy.")]);
    const box = sandbox();
    const run = await runArbor(box, ["-p", "hi", ...anthropicFlags(anthropic.url), "--model", "some-new-id"]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Hello from the proxy.\n");
    expect(run.stderr).toBe(
      'arbor: model "some-new-id" is not in the anthropic catalog; using it with a 200,000-token context window ' +
        'and 16,384 output tokens (set "modelLimits" in settings.json or models.json to change them)\n',
    );
    expect(anthropic.requests[0]?.body).toMatchObject({ model: "some-new-id", max_tokens: 16_384 });
  });

  it("a session resumed with --model says once which limits the chosen model gets, nothing of the model it recorded", async () => {
    anthropic = await startFakeAnthropicServer([answer("one"), answer("two")]);
    const box = sandbox();
    const first = await runArbor(box, [
      "-p",
      "hi",
      ...anthropicFlags(anthropic.url),
      "--model",
      "some-new-id",
    ]);
    expect(first.code).toBe(0);
    const resumed = await runArbor(box, [
      "-c",
      "-p",
      "again",
      ...anthropicFlags(anthropic.url),
      "--model",
      "other-new-id",
    ]);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toBe(
      'arbor: model "other-new-id" is not in the anthropic catalog; using it with a 200,000-token context window ' +
        'and 16,384 output tokens (set "modelLimits" in settings.json or models.json to change them)\n',
    );
    expect(anthropic.requests[1]?.body).toMatchObject({ model: "other-new-id" });
  });

  it("takes limits from settings for any model, built-in ones included, and from models.json", async () => {
    anthropic = await startFakeAnthropicServer([answer("one"), answer("two")]);
    const box = sandbox();
    writeJson(join(box.cwd, ".arbor", "settings.json"), {
      modelLimits: { "anthropic/some-new-id": { contextWindow: 50_000, maxTokens: 2048 } },
    });
    writeJson(join(box.home, "models.json"), {
      modelLimits: { "anthropic/claude-sonnet-5-5": { maxTokens: 1000 } },
    });
    const unlisted = await runArbor(box, [
      "-p",
      "hi",
      ...anthropicFlags(anthropic.url),
      "--model",
      "anthropic/some-new-id",
    ]);
    expect(unlisted.code).toBe(0);
    expect(unlisted.stderr).toContain("using it with a 50,000-token context window and 2,048 output tokens");
    expect(anthropic.requests[0]?.body).toMatchObject({ model: "some-new-id", max_tokens: 2048 });
    const builtIn = await runArbor(box, ["-p", "hi", ...anthropicFlags(anthropic.url)]);
    expect(builtIn.code).toBe(0);
    expect(builtIn.stderr).toBe("");
    expect(anthropic.requests[1]?.body).toMatchObject({ model: "claude-sonnet-5-5", max_tokens: 1000 });
  });

  it("names the file and the field of a bad limit", async () => {
    const box = sandbox();
    writeJson(join(box.home, "settings.json"), { modelLimits: { "anthropic/x": { contextWindow: "big" } } });
    const run = await runArbor(box, ["-p", "hi", "--provider", "scripted"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Invalid settings file ${join(box.home, "settings.json")}`);
    expect(run.stderr).toContain("modelLimits.anthropic/x.contextWindow");
  });
});

describe('models.json providers with "api": "anthropic"', { timeout: 60_000 }, () => {
  it("talks to an Anthropic-compatible endpoint with its headers and the key from the variable it names", async () => {
    anthropic = await startFakeAnthropicServer([answer("From the gateway.")]);
    const box = sandbox();
    writeJson(join(box.home, "models.json"), {
      providers: {
        gateway: {
          api: "anthropic",
          baseUrl: anthropic.url,
          apiKeyEnv: "GATEWAY_KEY",
          headers: { "x-team": "tools" },
          models: [{ id: "team-model", contextWindow: 32_000, maxTokens: 4096 }],
        },
      },
    });
    const run = await runArbor(box, ["-p", "hi", "--model", "gateway/team-model"], {
      env: { GATEWAY_KEY: "gw-secret" },
    });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("From the gateway.\n");
    const request = anthropic.requests[0]!;
    expect(request.path).toBe("/v1/messages");
    // The SDK sends the key as `x-api-key` or as a bearer token, depending on its version.
    expect(request.headers["x-api-key"] ?? request.headers.authorization).toMatch(/^(Bearer )?gw-secret$/);
    expect(request.headers["x-team"]).toBe("tools");
    expect(request.body).toMatchObject({ model: "team-model", max_tokens: 4096 });
  });

  it("reports a bad entry naming the file and the field", async () => {
    const box = sandbox();
    writeJson(join(box.home, "models.json"), {
      providers: { gateway: { api: "anthropc", baseUrl: "http://127.0.0.1:1" } },
    });
    const run = await runArbor(box, ["-p", "hi", "--provider", "scripted"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`Invalid models file ${join(box.home, "models.json")}`);
    expect(run.stderr).toContain("providers.gateway.api");
  });

  it("says what to write instead of a pi-style apiKey (the key stays out of the file)", async () => {
    const box = sandbox();
    writeJson(join(box.home, "models.json"), {
      providers: { my: { baseUrl: "http://127.0.0.1:1/v1", apiKey: "sk-123", models: [{ id: "m" }] } },
    });
    const run = await runArbor(box, ["-p", "hi", "--model", "my/m"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("providers.my.apiKey: keys are never written in models.json");
    expect(run.stderr).toContain('"apiKeyEnv": "MY_PROVIDER_API_KEY"');
    expect(run.stderr).not.toContain("sk-123");
  });
});

describe("a missing API key", { timeout: 60_000 }, () => {
  it("is reported before any request, naming --api-key and the variable, with exit 1", async () => {
    anthropic = await startFakeAnthropicServer([answer("never")]);
    const box = sandbox();
    const run = await runArbor(box, ["-p", "hi", "--provider", "anthropic", "--base-url", anthropic.url]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      "arbor: No API key for Anthropic (flags): set ANTHROPIC_API_KEY in the environment, or pass --api-key KEY.\n",
    );
    expect(run.stderr).not.toContain("createAnthropicProvider");
    expect(anthropic.requests).toHaveLength(0);
  });

  it("stops rpc mode (as the interactive mode) before it starts, and names a custom provider's variable", async () => {
    const box = sandbox();
    writeJson(join(box.home, "models.json"), {
      providers: { gateway: { api: "anthropic", baseUrl: "http://127.0.0.1:1", apiKeyEnv: "GATEWAY_KEY" } },
    });
    const client = RpcClient.start(box, ["--model", "gateway/m"]);
    expect(await client.end()).toBe(1);
    expect(client.lines).toEqual([]);
    expect(client.stderr).toContain('No API key for provider "gateway"');
    expect(client.stderr).toContain("set GATEWAY_KEY in the environment, or pass --api-key KEY");
  });
});

describe("set_model (and /model) across providers", { timeout: 60_000 }, () => {
  it("loads another provider on demand and takes any id of it", async () => {
    anthropic = await startFakeAnthropicServer([answer("Switched.")]);
    const box = sandbox();
    const client = RpcClient.start(box, ["--provider", "scripted"], {
      env: { ANTHROPIC_API_KEY: "sk-ant-env", ANTHROPIC_BASE_URL: anthropic.url },
    });
    await client.waitFor((line) => line.type === "session");
    const model = await client.send({ id: "m1", type: "set_model", model: "anthropic/claude-next-1" });
    expect(model).toMatchObject({
      success: true,
      data: { model: "anthropic/claude-next-1", contextWindow: 200_000 },
    });
    const bare = await client.send({ id: "m2", type: "set_model", model: "claude-next-2" });
    expect(bare).toMatchObject({ success: true, data: { model: "anthropic/claude-next-2" } });
    await client.send({ id: "p1", type: "prompt", text: "hello" });
    await client.waitFor((line) => line.type === "agent_end");
    expect(await client.end()).toBe(0);
    expect(anthropic.requests[0]?.body.model).toBe("claude-next-2");
    const headers = anthropic.requests[0]!.headers;
    expect(headers["x-api-key"] ?? headers.authorization).toMatch(/^(Bearer )?sk-ant-env$/);
    expect(client.stderr).toContain('model "claude-next-1" is not in the anthropic catalog');
  });
});
