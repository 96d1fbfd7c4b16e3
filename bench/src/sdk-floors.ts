/**
 * The floors of the CLI bench's wire-server rows: what a one-line answer costs a program that does
 * nothing but call the provider's official SDK — or Node's `fetch` — against the same wire server.
 *
 * Arbor's real providers must use the SDKs (and they use `fetch`, whose first call loads Node's HTTP
 * client), so these are the lowest times an answer through them can take on this machine; the bench
 * reports each wire row's time over its floor. The SDK programs are bundled the way `apps/cli` bundles
 * `arbor` (one ES module, whitespace and syntax minified) so the floor pays the same for loading the SDK.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

/** Paths of the floor programs; each takes the wire server's URL as its one argument. */
export interface SdkFloors {
  /** `fetch` POSTs one request, reads the whole answer and prints its text deltas (no SDK). */
  fetch: string;
  /**
   * `@anthropic-ai/sdk`: `messages.create({ stream: true })`, printing the text deltas — through the
   * SDK's client with the Messages resource only, as `@arbor/provider-anthropic` builds it (the full
   * `Anthropic` class parses ~0.8 MB more).
   */
  anthropic: string;
  /** `openai`: `responses.create({ stream: true })`, printing the text deltas. */
  openai: string;
}

const PACKAGES = fileURLToPath(new URL("../../packages/", import.meta.url));

/**
 * What `arbor` does around its work, so the floor is not slower for a reason Arbor avoids: the tiering
 * budget that keeps Node's exit from waiting on an optimizing recompile of `fetch`'s WebAssembly HTTP
 * parser (see `apps/cli/src/cli.ts`), and an exit once the output is written (an idle keep-alive socket
 * does not hold the process).
 */
const PROLOGUE = `
import { setFlagsFromString } from "node:v8";
setFlagsFromString("--wasm-tiering-budget=1000000000");
`;
const EPILOGUE = `
process.stdout.write("", () => process.exit(0));
`;

const FETCH_FLOOR = `
const response = await fetch(new URL("/v1/messages", process.argv[2]), {
  method: "POST",
  headers: { "content-type": "application/json", "x-api-key": "sk-ant-fake" },
  body: JSON.stringify({ model: "m", max_tokens: 64, stream: true, messages: [{ role: "user", content: "hi" }] }),
});
let text = "";
for (const line of (await response.text()).split("\\n")) {
  if (!line.startsWith("data: ")) continue;
  const event = JSON.parse(line.slice(6));
  if (event.type === "content_block_delta") text += event.delta.text;
}
process.stdout.write(\`\${text}\\n\`);
`;

const ANTHROPIC_FLOOR = `
import { BaseAnthropic } from "@anthropic-ai/sdk/client";
import { Messages } from "@anthropic-ai/sdk/resources/messages";
class MessagesClient extends BaseAnthropic {
  messages = new Messages(this);
}
const client = new MessagesClient({ apiKey: "sk-ant-fake", baseURL: process.argv[2], maxRetries: 0 });
const stream = await client.messages.create({
  model: "claude-sonnet-4-5",
  max_tokens: 1024,
  stream: true,
  messages: [{ role: "user", content: "hi" }],
});
for await (const event of stream) {
  if (event.type === "content_block_delta" && event.delta.type === "text_delta") process.stdout.write(event.delta.text);
}
process.stdout.write("\\n");
`;

const OPENAI_FLOOR = `
import OpenAI from "openai";
const client = new OpenAI({ apiKey: "sk-fake", baseURL: process.argv[2], maxRetries: 0 });
const stream = await client.responses.create({ model: "gpt-5", input: "hi", stream: true });
for await (const event of stream) {
  if (event.type === "response.output_text.delta") process.stdout.write(event.delta);
}
process.stdout.write("\\n");
`;

/** Writes and bundles the floor programs into `directory`. */
export async function buildSdkFloors(directory: string): Promise<SdkFloors> {
  mkdirSync(directory, { recursive: true });
  const fetchFloor = join(directory, "fetch-floor.mjs");
  writeFileSync(fetchFloor, PROLOGUE + FETCH_FLOOR + EPILOGUE);
  const bundle = async (name: string, source: string, packageDirectory: string) => {
    const outfile = join(directory, `${name}.mjs`);
    await build({
      stdin: {
        contents: PROLOGUE + source + EPILOGUE,
        resolveDir: join(PACKAGES, packageDirectory),
        loader: "js",
      },
      outfile,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      banner: {
        js: 'import { createRequire as __floorCreateRequire } from "node:module"; const require = __floorCreateRequire(import.meta.url);',
      },
      minifyWhitespace: true,
      minifySyntax: true,
      legalComments: "none",
      logLevel: "warning",
    });
    return outfile;
  };
  return {
    fetch: fetchFloor,
    anthropic: await bundle("anthropic-sdk-floor", ANTHROPIC_FLOOR, "provider-anthropic"),
    openai: await bundle("openai-sdk-floor", OPENAI_FLOOR, "provider-openai"),
  };
}
