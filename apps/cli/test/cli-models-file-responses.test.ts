/**
 * A models.json `"api": "responses"` provider asks for reasoning as the `openai` preset does: with
 * `--thinking`, the request carries `reasoning.effort`, `store: false` and
 * `include: ["reasoning.encrypted_content"]`; the entry's `reasoning` and `compat` fields say otherwise.
 */
import { join } from "node:path";
import {
  type OpenAIWireServer,
  ResponsesStream,
  responsesFrames,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { runArbor, sandbox, writeJson } from "./cli-helpers.js";

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const reply = () => ({
  kind: "sse" as const,
  frames: responsesFrames(new ResponsesStream().created().message("msg_1", "Thought.").completed().events),
});

describe('models.json "api": "responses"', () => {
  it("sends reasoning.effort, store: false and the encrypted reasoning include, as --provider openai does", {
    timeout: 90_000,
  }, async () => {
    server = await startOpenAIWireServer([reply(), reply(), reply()]);
    const box = sandbox();
    writeJson(join(box.home, "models.json"), {
      providers: {
        gateway: { baseUrl: server.url, api: "responses", models: [{ id: "reasoner" }] },
        plain: {
          baseUrl: server.url,
          api: "responses",
          reasoning: false,
          models: [
            { id: "thinks", reasoning: true, compat: { supportsEncryptedReasoning: false } },
            { id: "no" },
          ],
        },
      },
    });
    const run = (model: string) =>
      runArbor(box, ["-p", "think", "--model", model, "--thinking", "high", "--no-session"]);

    const listed = await run("gateway/reasoner");
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.trim()).toBe("Thought.");
    expect(server.requests[0]!.path).toContain("/responses");
    expect(server.requests[0]!.body).toMatchObject({
      model: "reasoner",
      reasoning: { effort: "high" },
      store: false,
      include: ["reasoning.encrypted_content"],
    });

    // A model's compat wins: reasoning effort, but no encrypted reasoning.
    expect((await run("plain/thinks")).code).toBe(0);
    expect(server.requests[1]!.body).toMatchObject({ reasoning: { effort: "high" } });
    expect(server.requests[1]!.body).not.toHaveProperty("include");
    expect(server.requests[1]!.body).not.toHaveProperty("store");

    // The provider's `reasoning: false`: no reasoning asked for.
    expect((await run("plain/no")).code).toBe(0);
    expect(server.requests[2]!.body).not.toHaveProperty("reasoning");
    expect(server.requests[2]!.body).not.toHaveProperty("include");
  });
});
