import { join } from "node:path";
import {
  chatFrames,
  chatTextChunks,
  type OpenAIWireReply,
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { CLOSED_LOCAL_URL, jsonLines, runArbor, sandbox, writeJson } from "./cli-helpers.js";

let server: OpenAIWireServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("settings in a spawned arbor", () => {
  it("a spawned arbor reports a broken settings file and exits 1", async () => {
    const box = sandbox();
    writeJson(join(box.cwd, ".arbor", "settings.json"), { provider: 42 });
    const run = await runArbor(box, ["-p", "hi"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(join(box.cwd, ".arbor", "settings.json"));
    expect(run.stderr).toContain("provider: expected string");
  });
});

describe("provider choice in a spawned arbor", () => {
  it("with nothing configured, lists the choices and exits 1", async () => {
    const box = sandbox();
    const run = await runArbor(box, ["-p", "hi"]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("No model provider is configured");
    expect(run.stderr).toContain(`nothing answered on ${CLOSED_LOCAL_URL}`);
  });

  it("uses the settings' provider and base URL", async () => {
    server = await startOpenAIWireServer([
      { kind: "sse", frames: chatFrames(chatTextChunks("From settings.")) },
    ]);
    const box = sandbox();
    writeJson(join(box.home, "settings.json"), { baseUrl: server.url, model: "configured-model" });
    const run = await runArbor(box, ["-p", "hi", "--no-session"]);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("From settings.\n");
    expect(server.requests[0]?.body?.model).toBe("configured-model");
  });

  it("uses a custom provider of models.json, its key read from the variable it names", async () => {
    server = await startOpenAIWireServer([{ kind: "sse", frames: chatFrames(chatTextChunks("Custom.")) }]);
    const box = sandbox();
    writeJson(join(box.home, "models.json"), {
      providers: {
        "team-llm": {
          baseUrl: server.url,
          apiKeyEnv: "TEAM_LLM_KEY",
          models: [{ id: "coder-32b", contextWindow: 32_768 }],
        },
      },
    });
    const run = await runArbor(
      box,
      ["--mode", "json", "-p", "hi", "--model", "team-llm/coder-32b", "--no-session"],
      {
        env: { TEAM_LLM_KEY: "team-secret" },
      },
    );
    expect(run.stderr).toBe("");
    expect(jsonLines(run.stdout)[0]).toMatchObject({ model: "team-llm/coder-32b" });
    expect(server.requests[0]?.headers.authorization).toBe("Bearer team-secret");
    expect(server.requests[0]?.body?.model).toBe("coder-32b");
  });

  it("falls back to a local OpenAI-compatible server, with the first model it lists", async () => {
    const models: OpenAIWireReply = {
      kind: "json",
      status: 200,
      body: { object: "list", data: [{ id: "llama-local", object: "model", created: 0, owned_by: "me" }] },
    };
    server = await startOpenAIWireServer([
      models,
      models,
      { kind: "sse", frames: chatFrames(chatTextChunks("Local.")) },
    ]);
    const box = sandbox();
    const run = await runArbor(box, ["-p", "hi", "--no-session"], {
      env: { ARBOR_LOCAL_SERVER_URL: server.url },
    });
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe("Local.\n");
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      "GET /v1/models",
      "GET /v1/models",
      "POST /v1/chat/completions",
    ]);
    expect(server.requests[2]?.body?.model).toBe("llama-local");
  });
});
