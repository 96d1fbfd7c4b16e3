import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createAppRuntime } from "../src/create-app-runtime.js";
import type { ProviderFactories, StoreFactories } from "../src/factories.js";
import { keyVariableNames, PROVIDER_KEY_VARIABLES, withoutVariables } from "../src/tool-environment.js";
import { temporaryDirectory } from "./helpers.js";

const stores: StoreFactories = { jsonl: () => import("@arbor/session-store-jsonl") };
const SECRET = "sk-fake-0123-must-not-leak";
const VARIABLES = ["ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MY_GATEWAY_KEY"] as const;
const keyProvider = fileURLToPath(new URL("./fixtures/extensions/key-provider.ts", import.meta.url));

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
  for (const name of [...VARIABLES, "MYEXT_API_KEY"]) delete process.env[name];
});

async function bashOutput(
  settings: Record<string, unknown>,
  choice: { provider: string; extensions?: string[] } = { provider: "openai" },
): Promise<string> {
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
    flags: { provider: choice.provider },
    tools: ["bash"],
    extensions: choice.extensions ?? [],
    persistent: false,
  });
  try {
    await runtime.session.prompt("print the environment");
    const result = runtime.session.session
      .getBranch()
      .flatMap((entry) => (entry.type === "message" && entry.message.role === "toolResult" ? [entry] : []));
    expect(result).toHaveLength(1);
    // The user's own `!env` runs in the same environment (the session records its output too).
    const typed = await runtime.runShellCommand("env");
    expect(typed.output).toContain("ARBOR_TEST_VISIBLE=visible-value");
    return `${JSON.stringify(result[0])}\n${typed.output}`;
  } finally {
    await runtime.dispose();
  }
}

describe("the tools' environment (the model's commands and the user's `!command`)", () => {
  it("leaves out the providers' key variables and every apiKeyEnv of models.json", async () => {
    const output = await bashOutput({});
    expect(output).toContain("ARBOR_TEST_VISIBLE=visible-value");
    expect(output).not.toContain(SECRET);
    for (const name of VARIABLES) expect(output).not.toContain(`${name}=`);
  });

  it("leaves out the key variable of a provider an extension registered (its credentials.apiKeyEnv)", async () => {
    process.env.MYEXT_API_KEY = `${SECRET}-MYEXT_API_KEY`;
    const output = await bashOutput({}, { provider: "myext", extensions: [keyProvider] });
    expect(output).toContain("ARBOR_TEST_VISIBLE=visible-value");
    expect(output).not.toContain(SECRET);
    expect(output).not.toContain("MYEXT_API_KEY=");
  });

  it("keeps them when settings say shareKeysWithTools", async () => {
    const output = await bashOutput({ shareKeysWithTools: true });
    for (const name of VARIABLES) expect(output).toContain(`${name}=${SECRET}-${name}`);
  });

  it("lists each variable once", () => {
    const names = keyVariableNames({ a: { baseUrl: "x", apiKeyEnv: "OPENAI_API_KEY", models: [] } } as never);
    expect(names).toEqual([...PROVIDER_KEY_VARIABLES].sort());
    const withProvider = keyVariableNames({}, [
      { credentials: { requiresApiKey: true, apiKeyEnv: "B_KEY" } },
      { credentials: { requiresApiKey: true, apiKeyEnv: "OPENAI_API_KEY" } },
      {},
    ]);
    expect(withProvider).toEqual([...PROVIDER_KEY_VARIABLES, "B_KEY"].sort());
  });

  it("a live env record reads the names at each use", () => {
    const names = ["A_KEY"];
    const env = withoutVariables(() => names);
    expect(Object.entries(env)).toEqual([["A_KEY", undefined]]);
    names.push("B_KEY");
    expect(Object.keys(env)).toEqual(["A_KEY", "B_KEY"]);
    expect({ ...env }).toEqual({ A_KEY: undefined, B_KEY: undefined });
  });
});
