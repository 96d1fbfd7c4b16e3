/**
 * Extensions that never settle, loop without yielding or throw what is not an `Error`: each ends as one
 * reported failure naming the file and the hook, within its time limit, and the run goes on; `abort()` ends
 * a run at once while a hook or an event handler hangs.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type AppRuntimeOptions, createAppRuntime } from "../src/create-app-runtime.js";
import type { ProviderFactories } from "../src/factories.js";
import { createRpcServer } from "../src/protocol/rpc-server.js";
import { temporaryDirectory } from "./helpers.js";

const providers: ProviderFactories = { scripted: () => import("../src/demo/index.js") };

/** Writes an extension module (`.mjs`, no compile step) and returns its path. */
function extension(source: string, name = "bad.mjs"): string {
  const path = join(temporaryDirectory(), name);
  writeFileSync(path, `${source}\n`);
  return path;
}

function options(path: string, overrides: Partial<AppRuntimeOptions> = {}): AppRuntimeOptions {
  return {
    cwd: temporaryDirectory(),
    env: {},
    home: temporaryDirectory(),
    providers,
    stores: {},
    persistent: false,
    flags: { provider: "scripted" },
    tools: false,
    extensions: [path],
    extensionTimeouts: { loadMs: 300, hookMs: 200, eventMs: 200 },
    ...overrides,
  };
}

/** Runs one prompt with the extension; returns its failures and the last message's role. */
async function promptWith(path: string, overrides: Partial<AppRuntimeOptions> = {}) {
  const warnings: string[] = [];
  const runtime = await createAppRuntime({
    ...options(path, overrides),
    onWarning: (line) => warnings.push(line),
  });
  try {
    const started = Date.now();
    await runtime.session.prompt("hello");
    return {
      failures: runtime.extensions.failures.map(({ hook, message }) => ({ hook, message })),
      loaded: runtime.extensions.loaded.length,
      last: runtime.session.state.messages.at(-1),
      ms: Date.now() - started,
      warnings,
    };
  } finally {
    await runtime.dispose();
  }
}

const NEVER = "new Promise(() => {})";

describe("extension time limits", () => {
  it("a hook that never settles counts as no result after hookMs, reported once", async () => {
    const path = extension(`export default (arbor) => arbor.on("before_agent_start", () => ${NEVER});`);
    const result = await promptWith(path);
    expect(result.failures).toEqual([
      {
        hook: "before_agent_start",
        message: "did not settle within 200 ms; counted as no result (setting extensionTimeouts.hookMs)",
      },
    ]);
    expect(result.last).toMatchObject({ role: "assistant", stopReason: "stop" });
    expect(result.warnings).toContain(
      `extension ${path}, before_agent_start: did not settle within 200 ms; counted as no result (setting extensionTimeouts.hookMs)`,
    );
  });

  it("an event handler that never settles is left behind after eventMs", async () => {
    const path = extension(`export default (arbor) => arbor.on("turn_end", () => ${NEVER});`);
    const result = await promptWith(path);
    expect(result.failures).toEqual([
      {
        hook: "turn_end",
        message:
          "did not settle within 200 ms; the run went on without it (setting extensionTimeouts.eventMs)",
      },
    ]);
    expect(result.last).toMatchObject({ role: "assistant", stopReason: "stop" });
  });

  it("a default export that never settles, or a top-level await, is skipped after loadMs", async () => {
    for (const source of [
      `export default async () => { await ${NEVER}; };`,
      `await ${NEVER};\nexport default () => {};`,
    ]) {
      const result = await promptWith(extension(source));
      expect(result.loaded).toBe(0);
      expect(result.failures).toEqual([
        {
          hook: "load",
          message:
            "did not settle within 300 ms; the extension is skipped (setting extensionTimeouts.loadMs)",
        },
      ]);
      expect(result.last).toMatchObject({ role: "assistant", stopReason: "stop" });
    }
  });

  it("a loop that never yields, in a hook, an event handler or the module itself, is stopped", async () => {
    const inHook = await promptWith(
      extension(
        'export default (arbor) => arbor.on("tool_call", () => {}) || arbor.on("context", () => { for (;;) {} });',
      ),
    );
    expect(inHook.failures).toEqual([
      {
        hook: "context",
        message:
          "ran 200 ms without yielding (a busy loop?) and was stopped; counted as no result (setting extensionTimeouts.hookMs)",
      },
    ]);
    expect(inHook.last).toMatchObject({ role: "assistant", stopReason: "stop" });

    const inEvent = await promptWith(
      extension('export default (arbor) => arbor.on("agent_start", async () => { for (;;) {} });'),
    );
    expect(inEvent.failures.map((failure) => failure.hook)).toEqual(["agent_start"]);
    expect(inEvent.failures[0]!.message).toMatch(/^ran 200 ms without yielding/);

    const atLoad = await promptWith(extension("for (;;) {}\nexport default () => {};"));
    expect(atLoad.failures).toEqual([
      {
        hook: "load",
        message:
          "ran 300 ms without yielding (a busy loop?) and was stopped; the extension is skipped (setting extensionTimeouts.loadMs)",
      },
    ]);
  });

  it("what is thrown need not be an Error: a string, undefined, an object without prototype", async () => {
    const atLoad = await promptWith(extension("export default () => { throw Object.create(null); };"));
    expect(atLoad.failures).toEqual([{ hook: "load", message: "threw [Object: null prototype] {}" }]);
    const inHooks = await promptWith(
      extension(
        [
          "export default (arbor) => {",
          '  arbor.on("before_agent_start", () => { throw "a plain string"; });',
          '  arbor.on("context", async () => { throw undefined; });',
          '  arbor.on("turn_end", () => { throw { code: 7 }; });',
          "};",
        ].join("\n"),
      ),
    );
    expect(inHooks.failures).toEqual([
      { hook: "before_agent_start", message: "a plain string" },
      { hook: "context", message: "threw undefined" },
      { hook: "turn_end", message: "threw { code: 7 }" },
    ]);
    expect(inHooks.last).toMatchObject({ role: "assistant", stopReason: "stop" });
  });
});

describe("abort while extension code hangs", () => {
  /** Starts a prompt, aborts it once `entered` was called, and says how long the abort took. */
  async function abortWhileHanging(source: string, via: "session" | "rpc") {
    const path = extension(source);
    let enter!: () => void;
    const entered = new Promise<void>((resolve) => {
      enter = resolve;
    });
    (globalThis as { __entered?: () => void }).__entered = enter;
    // The defaults: seconds, far longer than the abort may take.
    const runtime = await createAppRuntime({ ...options(path), extensionTimeouts: {} });
    try {
      const run = runtime.session.prompt("hello");
      await entered;
      const started = Date.now();
      if (via === "session") {
        runtime.session.abort("stop");
        await run;
      } else {
        const lines: { type: string; command?: string; success?: boolean }[] = [];
        const server = createRpcServer(runtime, (line) => lines.push(JSON.parse(line)));
        server.handleLine('{"type":"abort","id":"a"}');
        await expect
          .poll(() => lines.find((line) => line.type === "response"))
          .toMatchObject({
            command: "abort",
            success: true,
          });
        await run;
        await server.close();
      }
      return { ms: Date.now() - started, failures: runtime.extensions.failures };
    } finally {
      delete (globalThis as { __entered?: () => void }).__entered;
      await runtime.dispose();
    }
  }

  const hangs = (on: string) =>
    `export default (arbor) => arbor.on("${on}", () => { globalThis.__entered(); return ${NEVER}; });`;

  it.each([
    ["a hook", "before_agent_start"],
    ["a hook between turns", "context"],
    ["an event handler", "agent_start"],
  ])("%s (%s): abort() ends the run at once, and rpc's abort answers", async (_what, on) => {
    for (const via of ["session", "rpc"] as const) {
      const { ms, failures } = await abortWhileHanging(hangs(on), via);
      // The default limits are seconds: the abort must not wait for them.
      expect(ms).toBeLessThan(2000);
      expect(failures).toEqual([]);
    }
  });
});
