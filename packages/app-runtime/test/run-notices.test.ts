import { createProviderStream, type StreamFn } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { createHarness } from "@arbor/harness";
import { MemorySessionStore } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { reportRunNotices, responseNotices } from "../src/index.js";

describe("reportRunNotices", () => {
  it("writes each part of a reply its provider could not read, as the reply ends", async () => {
    const { model } = createScriptedProvider(() => script.text("unused"));
    const streamFn: StreamFn = (streamModel, _context, options) =>
      createProviderStream(streamModel, options, ({ writer }) => {
        writer.text("4");
        writer.unreadable('content block "citations"');
      });
    const harness = createHarness({ streamFn, model, store: new MemorySessionStore(), cwd: "/tmp" });
    const session = await harness.newSession();
    const lines: string[] = [];
    const stop = reportRunNotices(session, (line) => lines.push(line));
    await session.prompt("2+2?");
    stop();
    await harness.close();
    expect(lines).toEqual(['Arbor could not read part of this response: content block "citations".']);
  });

  it("reads notices only from assistant messages", () => {
    expect(responseNotices({ role: "user", notices: ["x"] })).toEqual([]);
    expect(responseNotices({ role: "assistant", notices: ["a", 3, ""] })).toEqual(["a"]);
    expect(responseNotices(undefined)).toEqual([]);
  });
});
