import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createAppRuntime } from "../src/create-app-runtime.js";
import type { ProviderFactories, StoreFactories } from "../src/factories.js";
import { keyVariableNames, PROVIDER_KEY_VARIABLES } from "../src/tool-environment.js";
import { temporaryDirectory } from "./helpers.js";

const stores: StoreFactories = { jsonl: () => import("@arbor/session-store-jsonl") };
const SECRET = "sk-fake-0123-must-not-leak";
const VARIABLES = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MY_GATEWAY_KEY"] as const;

/** An "openai" provider that asks for `env` once, then answers. */
const providers: ProviderFactories = {
  openai: async () => ({
    createOpenAIProvider: () =>
      createScriptedProvider([script.toolCall("bash", { command: "env" }), script.text("done")], {
        id: "openai",
        model: { id: "gpt-5.5" },
      }),
  }),
};

afterEach(() => {
  for (const name of VARIABLES) delete process.env[name];
});

async function bashOutput(settings: Record<string, unknown>): Promise<string> {
  for (const name of VARIABLES) process.env[name] = `${SECRET}-${name}`;
  process.env.ARBOR_TEST_VISIBLE = "visible-value";
  const home = temporaryDirectory();
  writeFileSync(join(home, "settings.json"), JSON.stringify(settings));
  writeFileSync(
    join(home, "models.json"),
    JSON.stringify({
      providers: {
        gateway: {
          baseUrl: "http://127.0.0.1:9/v1",
          apiKeyEnv: "MY_GATEWAY_KEY",
          models: [{ id: "m", contextWindow: 8192, maxTokens: 1024 }],
        },
      },
    }),
  );
  const runtime = await createAppRuntime({
    cwd: temporaryDirectory(),
    env: { ...process.env },
    home,
    providers,
    stores,
    flags: { provider: "openai" },
    tools: ["bash"],
    persistent: false,
  });
  try {
    await runtime.session.prompt("print the environment");
    const result = runtime.session.session
      .getBranch()
      .flatMap((entry) => (entry.type === "message" && entry.message.role === "toolResult" ? [entry] : []));
    expect(result).toHaveLength(1);
    return JSON.stringify(result[0]);
  } finally {
    await runtime.dispose();
  }
}

describe("the tools' environment", () => {
  it("leaves out the providers' key variables and every apiKeyEnv of models.json", async () => {
    const output = await bashOutput({});
    expect(output).toContain("ARBOR_TEST_VISIBLE=visible-value");
    expect(output).not.toContain(SECRET);
    for (const name of VARIABLES) expect(output).not.toContain(`${name}=`);
  });

  it("keeps them when settings say shareKeysWithTools", async () => {
    const output = await bashOutput({ shareKeysWithTools: true });
    for (const name of VARIABLES) expect(output).toContain(`${name}=${SECRET}-${name}`);
  });

  it("lists each variable once", () => {
    const names = keyVariableNames({ a: { baseUrl: "x", apiKeyEnv: "OPENAI_API_KEY", models: [] } } as never);
    expect(names).toEqual([...PROVIDER_KEY_VARIABLES].sort());
  });
});
