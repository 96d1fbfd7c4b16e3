import { script } from "@arbor/ai-providers/testing";
import { describe, expect, test, vi } from "vitest";
import { colorWanted } from "../src/ui/theme.js";
import { createTestRuntime, renderApp } from "./ui-helpers.js";

// Colours must be possible for the test to mean anything: ink's chalk reads FORCE_COLOR when it loads.
vi.hoisted(() => {
  process.env.FORCE_COLOR = "3";
});

/** SGR sequences that set a colour (foreground, background, 256/true colour) or dim the text. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what it looks for
const COLOR_SEQUENCE = /\u001b\[(?:3[0-9]|9[0-7]|4[0-9]|10[0-7]|2)(?:;[0-9;]*)?m/;

const REPLY = "# Heading\n\nSome `code`, a [link](https://example.com) and:\n\n```js\nlet x = 1;\n```";

async function renderedConversation(color: boolean): Promise<string> {
  const runtime = await createTestRuntime({ steps: [script.text(REPLY)] });
  const app = renderApp(runtime, { color });
  await app.submit("show colours");
  await app.waitForFrame("let x = 1;");
  await app.settle();
  await app.submit("/nothing-like-this");
  await app.waitForFrame("unknown command");
  return app.lastFrame();
}

describe("NO_COLOR", () => {
  test("is read from the environment: set and not empty turns colours off", () => {
    expect(colorWanted({})).toBe(true);
    expect(colorWanted({ NO_COLOR: "" })).toBe(true);
    expect(colorWanted({ NO_COLOR: "1" })).toBe(false);
    expect(colorWanted({ NO_COLOR: "true" })).toBe(false);
  });

  test("with colours, the UI colours headings, code, notices and the footer", async () => {
    const frame = await renderedConversation(true);
    expect(frame).toMatch(COLOR_SEQUENCE);
  });

  test("without colours, no colour sequence is written, and the marks still tell things apart", async () => {
    const frame = await renderedConversation(false);
    expect(frame).not.toMatch(COLOR_SEQUENCE);
    expect(frame).toContain("Heading");
    expect(frame).toContain("`code`");
    expect(frame).toContain("│ let x = 1;");
    expect(frame).toContain("✗ unknown command /nothing-like-this");
    expect(frame).toContain("context ");
  });
});
