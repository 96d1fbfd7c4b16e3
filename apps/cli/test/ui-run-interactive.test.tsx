import { script } from "@arbor/ai-providers/testing";
import { afterEach, describe, expect, test, vi } from "vitest";
import { runInteractive } from "../src/ui/run-interactive.js";
import { createTestRuntime, FakeTerminal, KEYS, waitUntil } from "./ui-helpers.js";

// Colours must be possible for the NO_COLOR test to mean anything: ink's chalk reads FORCE_COLOR on load.
vi.hoisted(() => {
  process.env.FORCE_COLOR = "3";
});

afterEach(() => {
  vi.unstubAllEnvs();
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what it looks for
const COLOR_SEQUENCE = /\u001b\[(?:3[0-9]|9[0-7]|4[0-9]|10[0-7]|2)(?:;[0-9;]*)?m/;

describe("runInteractive", () => {
  test("refuses to start without a terminal, with exit code 1 and a hint", async () => {
    const runtime = await createTestRuntime();
    const terminal = new FakeTerminal({ tty: false });
    const code = await runInteractive(runtime, {
      stdin: terminal.stdin,
      stdout: terminal.stdout,
      stderr: terminal.stderr,
    });
    expect(code).toBe(1);
    expect(terminal.errors).toContain('the interactive mode needs a terminal. Use -p "prompt"');
    expect(terminal.output).toBe("");
  });

  test("sends the initial prompt, streams the answer, and returns 0 after /quit", async () => {
    const runtime = await createTestRuntime({ steps: [script.text("Hello from the model.")] });
    const terminal = new FakeTerminal();
    const exit = runInteractive(runtime, {
      initialPrompt: "say hello",
      stdin: terminal.stdin,
      stdout: terminal.stdout,
    });
    await waitUntil(
      () => terminal.output.includes("Hello from the model."),
      () => `the answer; output:\n${terminal.output}`,
    );
    await runtime.session.waitForIdle();
    terminal.write("/quit");
    terminal.write(KEYS.enter);
    expect(await exit).toBe(0);
    expect(terminal.output).toContain(`arbor ${runtime.version}`);
    expect(terminal.output).toContain(`session ${runtime.session.id} in memory`);
    expect(terminal.output).toContain("say hello");
  });

  test("a run in flight is aborted on quit, and the session is idle when it returns", async () => {
    const runtime = await createTestRuntime({ steps: [script.delay(60_000, script.text("never"))] });
    const terminal = new FakeTerminal();
    const exit = runInteractive(runtime, {
      initialPrompt: "slow",
      stdin: terminal.stdin,
      stdout: terminal.stdout,
    });
    await waitUntil(
      () => runtime.provider.calls.length > 0,
      () => "the model call",
    );
    terminal.write("/quit");
    terminal.write(KEYS.enter);
    expect(await exit).toBe(0);
    expect(runtime.session.isBusy).toBe(false);
    expect(runtime.provider.calls[0]!.aborted).toBe(true);
  });

  test("honours NO_COLOR", async () => {
    const draw = async (): Promise<string> => {
      const runtime = await createTestRuntime({ steps: [script.text("# Title\n\nA `snippet`.")] });
      const terminal = new FakeTerminal();
      const exit = runInteractive(runtime, {
        initialPrompt: "go",
        stdin: terminal.stdin,
        stdout: terminal.stdout,
      });
      await waitUntil(
        () => terminal.output.includes("snippet"),
        () => `the answer; output:\n${terminal.output}`,
      );
      await runtime.session.waitForIdle();
      terminal.write(KEYS.ctrlC);
      terminal.write(KEYS.ctrlC);
      expect(await exit).toBe(0);
      return terminal.output;
    };
    vi.stubEnv("NO_COLOR", undefined); // CI runs the suite with NO_COLOR=1
    expect(await draw()).toMatch(COLOR_SEQUENCE);
    vi.stubEnv("NO_COLOR", "1");
    const plain = await draw();
    expect(plain).not.toMatch(COLOR_SEQUENCE);
    expect(plain).toContain("`snippet`");
  });
});
