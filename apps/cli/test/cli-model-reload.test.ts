/**
 * `/model provider/id` (and rpc's `set_model`) for a provider `models.json` gained after the start: the file
 * is read again, so the provider loads; a provider that is still unknown is refused with the known ones
 * named — never read as a model id of the current provider.
 */
import { join } from "node:path";
import {
  chatFrames,
  chatTextChunks,
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { RpcClient, sandbox, writeJson } from "./cli-helpers.js";

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("a model of a provider models.json gained after the start", () => {
  it("loads it; an unknown provider is named, with the known ones", { timeout: 60_000 }, async () => {
    server = await startOpenAIWireServer([
      { kind: "sse", frames: chatFrames(chatTextChunks("From later.")) },
    ]);
    const box = sandbox();
    const client = RpcClient.start(box, ["--base-url", server.url, "--model", "m", "--no-session"]);
    await client.waitFor((line) => line.type === "session");
    writeJson(join(box.home, "models.json"), {
      providers: { later: { baseUrl: server.url, models: [{ id: "m2", contextWindow: 32_000 }] } },
    });

    const unknown = await client.send({ id: "u", type: "set_model", model: "nowhere/x" });
    expect(unknown.success).toBe(false);
    expect(String(unknown.error)).toContain('No provider "nowhere" (in "nowhere/x")');
    expect(String(unknown.error)).toMatch(/known providers are anthropic, .*later/);
    // The slash command says it as an error notice.
    await client.send({ id: "c", type: "prompt", text: "/model nowhere/x" });
    const notice = await client.waitFor((line) => line.type === "notice" && line.level === "error");
    expect(String(notice.message)).toContain('No provider "nowhere"');

    const set = await client.send({ id: "s", type: "set_model", model: "later/m2" });
    expect(set).toMatchObject({ success: true, data: { model: "later/m2", contextWindow: 32_000 } });
    const mark = client.lines.length;
    await client.send({ id: "p", type: "prompt", text: "hi" });
    await client.waitFor((line) => line.type === "settled" && client.lines.indexOf(line) > mark);
    expect(server.requests[0]!.body?.model).toBe("m2");
    expect(await client.end()).toBe(0);
  });
});
