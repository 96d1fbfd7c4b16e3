import type { Context, Model } from "@arbor/ai-providers";
import { anthropicSse, completeAnthropicStream, type FakeAnthropicReply } from "@internal/conformance";
import { afterEach, describe, expect, it, vi } from "vitest";
import { drain, setupWire, type WireSetup } from "./support/harness.js";

const hello: Context = { messages: [{ role: "user", content: "Say hello.", timestamp: 1 }] };

const ok = (): FakeAnthropicReply => ({
  kind: "stream",
  events: completeAnthropicStream([anthropicSse.textBlock(0, "Hello.")]),
});

let setup: WireSetup | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await setup?.server.close();
  setup = undefined;
});

describe("anthropic provider: the SDK's own console notices", () => {
  it("prints nothing for a model the SDK lists as deprecated, nor for thinking.type=enabled", async () => {
    setup = await setupWire([ok(), ok()]);
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    // claude-sonnet-4-5 is in the SDK's DEPRECATED_MODELS table; claude-opus-4-6 is in its list of models
    // warned about when asked to think with `thinking.type: "enabled"` (a budget).
    const deprecated = setup.provider.unlistedModel!("claude-sonnet-4-5");
    const budgeted: Model = {
      ...setup.provider.unlistedModel!("claude-opus-4-6"),
      compat: { thinking: "budget", samplingParameters: true },
    };
    const first = await drain(setup.provider.stream(deprecated, hello));
    const second = await drain(setup.provider.stream(budgeted, hello, { reasoning: "medium" }));
    expect(first.result.content).toEqual([{ type: "text", text: "Hello." }]);
    expect(second.result.stopReason).toBe("stop");
    expect(setup.server.requests.map((request) => request.body.model)).toEqual([
      "claude-sonnet-4-5",
      "claude-opus-4-6",
    ]);
    expect(setup.server.requests[1]!.body.thinking).toMatchObject({ type: "enabled" });
    expect(warn).not.toHaveBeenCalled();
  });
});
