/**
 * The Anthropic provider end to end: is a big streamed tool argument O(L)?
 *
 * A local node:http server streams one `tool_use` block whose 1 MB (then 2 MB) JSON argument arrives in
 * 32-byte `input_json_delta` events — the shape of a model writing a large file. Three readers of the
 * same SSE body, measured in the same run:
 *
 * - raw HTTP read (baseline): `fetch` and drain the body, no parsing at all;
 * - SDK only: `@anthropic-ai/sdk` `messages.create({ stream: true })`, iterating its raw events;
 * - provider: `createAnthropicProvider().stream()` — the SDK plus event mapping, the incremental
 *   tool-argument parser and one `toolcall_delta` event (with the partial object) per piece.
 *
 * Reported: median and minimum of 9 runs, throughput in MB/s of tool argument, the ratio to the raw read,
 * and the ratio of 2 MB to 1 MB time (about 2.0 means linear) for both the median and the minimum.
 */
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import type { Context, Model } from "@arbor/ai-providers";
import { createAnthropicProvider } from "@arbor/provider-anthropic";
import type { Bench } from "./bench.js";
import { ms } from "./measure.js";

/** The part of the SDK client the bench uses. */
interface SdkClient {
  messages: { create(body: Record<string, unknown>): Promise<AsyncIterable<{ type: string }>> };
}

/**
 * The SDK copy the provider itself loads: the bench package does not depend on `@anthropic-ai/sdk`, so it
 * resolves it from the provider's package.
 */
const sdk = createRequire(createRequire(import.meta.url).resolve("@arbor/provider-anthropic/package.json"))(
  "@anthropic-ai/sdk",
) as { Anthropic: new (options: Record<string, unknown>) => SdkClient };

const PIECE = 32;
const MB = 1 << 20;

/** JSON arguments of about `bytes` characters: a file write with code-like content. */
function writeArguments(bytes: number): string {
  const line = '  const value = "quoted \\" text"; // tab\there, unicode é\n';
  const content = line.repeat(Math.ceil(bytes / (JSON.stringify(line).length - 2)));
  return JSON.stringify({ path: "src/generated/big-file.ts", content });
}

const event = (name: string, data: Record<string, unknown>) =>
  `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;

/** The whole SSE body of one streamed tool call. */
function sseBody(json: string): Buffer {
  const parts = [
    event("message_start", {
      message: {
        id: "msg_bench",
        type: "message",
        role: "assistant",
        content: [],
        model: "claude-sonnet-5-5",
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: 20,
          output_tokens: 1,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        },
      },
    }),
    event("content_block_start", {
      index: 0,
      content_block: { type: "tool_use", id: "toolu_bench", name: "write", input: {} },
    }),
  ];
  for (let index = 0; index < json.length; index += PIECE) {
    parts.push(
      event("content_block_delta", {
        index: 0,
        delta: { type: "input_json_delta", partial_json: json.slice(index, index + PIECE) },
      }),
    );
  }
  parts.push(
    event("content_block_stop", { index: 0 }),
    event("message_delta", {
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: { output_tokens: Math.ceil(json.length / 4) },
    }),
    event("message_stop", {}),
  );
  return Buffer.from(parts.join(""), "utf8");
}

/** Serves `body` for every request, written in 16 KiB slices. */
async function serve(body: Buffer): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", async () => {
      response.writeHead(200, { "content-type": "text/event-stream" });
      for (let offset = 0; offset < body.length; offset += 16 * 1024) {
        if (!response.write(body.subarray(offset, offset + 16 * 1024))) {
          await new Promise<void>((resolve) => response.once("drain", resolve));
        }
      }
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Median and minimum of `runs` timed runs of an async function, after `warmup` untimed ones. */
async function measureAsync(fn: () => Promise<unknown>, runs = 9, warmup = 2) {
  for (let index = 0; index < warmup; index++) await fn();
  const times: number[] = [];
  const collectGarbage = (globalThis as { gc?: () => void }).gc;
  for (let index = 0; index < runs; index++) {
    collectGarbage?.();
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { medianMs: times[Math.floor(times.length / 2)]!, minMs: times[0]! };
}

const context: Context = { messages: [{ role: "user", content: "Write the big file.", timestamp: 0 }] };

async function measureSize(bytes: number) {
  const json = writeArguments(bytes);
  const expected = JSON.parse(json) as { content: string };
  const body = sseBody(json);
  const { server, url } = await serve(body);
  try {
    const provider = createAnthropicProvider({
      apiKey: "sk-ant-bench",
      baseURL: url,
      retry: { maxRetries: 0 },
    });
    const model = provider.models.find((candidate) => candidate.id === "claude-sonnet-5-5") as Model;
    const client = new sdk.Anthropic({ apiKey: "sk-ant-bench", baseURL: url, maxRetries: 0 });

    const raw = await measureAsync(async () => {
      const response = await fetch(`${url}/v1/messages`, { method: "POST", body: "{}" });
      let received = 0;
      // Node's web streams are async iterable (the DOM typings, when a program includes them, say otherwise).
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
        received += chunk.byteLength;
      if (received !== body.length) throw new Error(`raw read got ${received} of ${body.length} bytes`);
    });
    const sdkOnly = await measureAsync(async () => {
      const events = await client.messages.create({
        model: model.id,
        max_tokens: 1024,
        messages: [{ role: "user", content: "Write the big file." }],
        stream: true,
      });
      let pieces = 0;
      for await (const item of events) if (item.type === "content_block_delta") pieces++;
      if (pieces !== Math.ceil(json.length / PIECE)) throw new Error(`SDK saw ${pieces} pieces`);
    });
    const end = await measureAsync(async () => {
      const stream = provider.stream(model, context);
      let deltas = 0;
      for await (const item of stream) if (item.type === "toolcall_delta") deltas++;
      const result = await stream.result();
      const call = result.content[0];
      if (
        result.stopReason !== "toolUse" ||
        call?.type !== "toolCall" ||
        deltas !== Math.ceil(json.length / PIECE)
      ) {
        throw new Error(`provider run failed: ${result.stopReason} ${result.errorMessage ?? ""}`);
      }
      if (call.arguments.content !== expected.content)
        throw new Error("arguments differ from the streamed JSON");
    });
    return {
      json: json.length,
      wire: body.length,
      pieces: Math.ceil(json.length / PIECE),
      raw,
      sdkOnly,
      end,
    };
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function runProviderAnthropicBench(): Promise<string[]> {
  const lines: string[] = [];
  const results = [];
  for (const size of [MB, 2 * MB]) results.push(await measureSize(size));
  const mbPerSecond = (bytes: number, milliseconds: number) =>
    (bytes / MB / (milliseconds / 1000)).toFixed(1);
  for (const result of results) {
    lines.push(
      `tool argument ${(result.json / MB).toFixed(2)} MB in ${result.pieces} input_json_delta events of ${PIECE} bytes ` +
        `(${(result.wire / MB).toFixed(2)} MB of SSE on the wire)`,
      "  reader                                  median       min   MB/s (median)   vs raw read",
    );
    for (const [label, timing] of [
      ["raw HTTP read, no parsing (baseline)", result.raw],
      ["SDK raw events only", result.sdkOnly],
      ["provider end to end", result.end],
    ] as const) {
      lines.push(
        `  ${label.padEnd(40)}${ms(timing.medianMs).padStart(8)}  ${ms(timing.minMs).padStart(8)}   ${mbPerSecond(result.json, timing.medianMs).padStart(13)}   ${(timing.medianMs / result.raw.medianMs).toFixed(1).padStart(9)}x`,
      );
    }
  }
  const [one, two] = results as [(typeof results)[0], (typeof results)[0]];
  const ratio = (key: "raw" | "sdkOnly" | "end", field: "medianMs" | "minMs") =>
    (two[key][field] / one[key][field]).toFixed(2);
  lines.push(
    "",
    "doubling the argument (2 MB time / 1 MB time; about 2.0 means O(L)); min is steadier on a busy machine:",
    `  median: raw read ${ratio("raw", "medianMs")}x, SDK ${ratio("sdkOnly", "medianMs")}x, provider ${ratio("end", "medianMs")}x`,
    `  min:    raw read ${ratio("raw", "minMs")}x, SDK ${ratio("sdkOnly", "minMs")}x, provider ${ratio("end", "minMs")}x`,
  );
  return lines;
}

const bench: Bench = {
  name: "provider-anthropic: a 1 MB tool argument end to end",
  run: runProviderAnthropicBench,
};
export default bench;
