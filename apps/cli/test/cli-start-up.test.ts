/**
 * What a one-shot `arbor -p` loads before it answers: the provider's SDK and the tools' definitions, not the
 * other provider's SDK, nor the libraries the tools use only when they run (globbing, `.gitignore` rules,
 * diffs), nor the interactive UI or MCP. Each module the process loads is logged by a preloaded module hook
 * (fixtures/module-log.mjs); the wire servers check that the request still carries every tool.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  anthropicSse,
  completeAnthropicStream,
  type FakeAnthropicServer,
  type OpenAIWireServer,
  ResponsesStream,
  responsesFrames,
  startFakeAnthropicServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { runArbor, type Sandbox, sandbox } from "./cli-helpers.js";

const MODULE_LOG_HOOK = fileURLToPath(new URL("fixtures/module-log.mjs", import.meta.url));
const CODING_TOOLS = ["read", "bash", "edit", "write"];

/** Modules no one-shot answer needs before its request (the tools load theirs when they run). */
const NOT_BEFORE_THE_ANSWER = [
  "/node_modules/tinyglobby/",
  "/node_modules/ignore/",
  "/node_modules/diff/",
  "/node_modules/ink/",
  "/node_modules/react/",
  "/node_modules/@modelcontextprotocol/",
  "/node_modules/jiti/",
  "/node_modules/yaml/", // frontmatter is parsed only when a skill or prompt template exists
];

let anthropic: FakeAnthropicServer | undefined;
let openai: OpenAIWireServer | undefined;

afterEach(async () => {
  await anthropic?.close();
  await openai?.close();
  anthropic = undefined;
  openai = undefined;
});

/** Runs `arbor <args>` with the module log on; resolves to its result and the loaded modules' URLs. */
async function runLogged(box: Sandbox, args: string[], env: Record<string, string>) {
  const log = join(box.cwd, "..", "modules.log");
  const run = await runArbor(box, args, {
    env: { ...env, NODE_OPTIONS: `--import=${MODULE_LOG_HOOK}`, ARBOR_TEST_MODULE_LOG: log },
  });
  const modules = readFileSync(log, "utf8").trim().split("\n");
  return { run, modules };
}

function loadedOf(modules: readonly string[], fragments: readonly string[]): string[] {
  return fragments.filter((fragment) => modules.some((url) => url.includes(fragment)));
}

describe("arbor -p: what loads before the answer", () => {
  it("Anthropic: the request carries the tools; no OpenAI SDK, no tool libraries, no UI", async () => {
    anthropic = await startFakeAnthropicServer([
      { kind: "stream", events: completeAnthropicStream([anthropicSse.textBlock(0, "Hi there.")]) },
    ]);
    const box = sandbox();
    const { run, modules } = await runLogged(
      box,
      ["-p", "hi", "--provider", "anthropic", "--base-url", anthropic.url],
      { ANTHROPIC_API_KEY: "sk-ant-fake" },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Hi there.\n");
    expect(anthropic.requests).toHaveLength(1);
    const tools = (anthropic.requests[0]!.body.tools as { name: string }[]).map((tool) => tool.name);
    expect(tools).toEqual(expect.arrayContaining(CODING_TOOLS));
    expect(modules.some((url) => url.includes("/@anthropic-ai/sdk/"))).toBe(true);
    expect(loadedOf(modules, ["/node_modules/openai/", ...NOT_BEFORE_THE_ANSWER])).toEqual([]);
  }, 60_000);

  it("OpenAI: the request carries the tools; no Anthropic SDK, no tool libraries, no UI", async () => {
    openai = await startOpenAIWireServer([
      {
        kind: "sse",
        frames: responsesFrames(
          new ResponsesStream().created().message("msg_1", "Hi there.").completed().events,
        ),
      },
    ]);
    const box = sandbox();
    const { run, modules } = await runLogged(
      box,
      ["-p", "hi", "--provider", "openai", "--base-url", openai.url],
      { OPENAI_API_KEY: "sk-fake" },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toBe("Hi there.\n");
    expect(openai.requests).toHaveLength(1);
    const tools = (openai.requests[0]!.body!.tools as { function?: { name: string }; name?: string }[]).map(
      (tool) => tool.function?.name ?? tool.name,
    );
    expect(tools).toEqual(expect.arrayContaining(CODING_TOOLS));
    expect(modules.some((url) => url.includes("/node_modules/openai/"))).toBe(true);
    expect(loadedOf(modules, ["/@anthropic-ai/sdk/", ...NOT_BEFORE_THE_ANSWER])).toEqual([]);
  }, 60_000);
});
