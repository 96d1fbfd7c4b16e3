/**
 * @arbor/provider-openai end to end: is streaming a large tool argument O(L)?
 *
 * A local node:http server (127.0.0.1, random port) serves a recorded-shape SSE body in which one tool
 * call's JSON arguments (a `write` of ~1 MB of code-like text, or ~2 MB) arrive in small pieces of 16,
 * 32, 48 and 64 bytes in turn (40 bytes on average), for both wire protocols:
 *
 * - `chat`: `data: {chat.completion.chunk with tool_calls[0].function.arguments}` … `data: [DONE]`;
 * - `responses`: `event: response.function_call_arguments.delta` … `response.completed`.
 *
 * Measured in the same run, all reading the same bytes from the same server:
 *
 * 1. raw HTTP read (fetch, body drained; the baseline);
 * 2. raw read + SSE split + JSON.parse of every event (the least any client must do);
 * 3. the openai SDK's stream alone (`create({ stream: true })`, events iterated, nothing else), with
 *    the stock fetch and with the event-split fetch the provider gives the SDK (see the provider's
 *    `sse-chunks.ts`: the SDK copies the rest of its buffer after every event of a network chunk);
 * 4. the provider, end to end (request, SDK, event mapping, AssistantStreamWriter with its incremental
 *    argument parser, every event drained, final message checked).
 *
 * Each step runs 1 MB and 2 MB alternately, 7 times each; the fastest run counts (the least disturbed
 * by other processes on the machine). Throughput is argument megabytes per second. "2 MB / 1 MB" is the
 * time ratio of doubling the argument: ≈ 2 means O(L); 4 would mean O(L²).
 */
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import type { Model } from "@arbor/ai-providers";
import { createOpenAIProvider, type OpenAIApi } from "@arbor/provider-openai";
import type { Bench } from "./bench.js";
import { ms } from "./measure.js";
import { writeArguments } from "./partial-json.bench.js";

const PIECE_SIZES = [16, 32, 48, 64];
const MB = 1 << 20;

/** Splits text into pieces of 16, 32, 48, 64, 16, … characters. */
function pieces(text: string): string[] {
  const out: string[] = [];
  let cursor = 0;
  for (let i = 0; cursor < text.length; i++) {
    const size = PIECE_SIZES[i % PIECE_SIZES.length] as number;
    out.push(text.slice(cursor, cursor + size));
    cursor += size;
  }
  return out;
}

function chatBody(args: string): Buffer {
  const envelope = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({
      id: "chatcmpl-bench",
      object: "chat.completion.chunk",
      created: 1_764_500_000,
      model: "bench-model",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    })}\n\n`;
  const frames = [
    envelope({
      role: "assistant",
      content: null,
      tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "write", arguments: "" } }],
    }),
  ];
  for (const piece of pieces(args))
    frames.push(envelope({ tool_calls: [{ index: 0, function: { arguments: piece } }] }));
  frames.push(envelope({}, "tool_calls"), "data: [DONE]\n\n");
  return Buffer.from(frames.join(""));
}

function responsesBody(args: string): Buffer {
  let sequence = 0;
  const event = (type: string, fields: Record<string, unknown>) =>
    `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`;
  const item = { id: "fc_1", type: "function_call", call_id: "call_1", name: "write" };
  const frames = [
    event("response.created", {
      response: { id: "resp_bench", object: "response", status: "in_progress", output: [] },
    }),
    event("response.output_item.added", {
      output_index: 0,
      item: { ...item, status: "in_progress", arguments: "" },
    }),
  ];
  for (const delta of pieces(args)) {
    frames.push(event("response.function_call_arguments.delta", { item_id: "fc_1", output_index: 0, delta }));
  }
  frames.push(
    event("response.function_call_arguments.done", { item_id: "fc_1", output_index: 0, arguments: args }),
    event("response.output_item.done", {
      output_index: 0,
      item: { ...item, status: "completed", arguments: args },
    }),
    event("response.completed", {
      response: {
        id: "resp_bench",
        object: "response",
        status: "completed",
        output: [],
        usage: {
          input_tokens: 10,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 10,
          total_tokens: 20,
        },
      },
    }),
  );
  return Buffer.from(frames.join(""));
}

/** The parts of the openai SDK's client this bench calls. */
interface SdkClient {
  chat: { completions: { create(body: unknown): Promise<AsyncIterable<unknown>> } };
  responses: { create(body: unknown): Promise<AsyncIterable<unknown>> };
}

/**
 * The openai SDK the provider uses, loaded from the provider package's own dependencies (bench/ does
 * not declare `openai` itself).
 */
function loadSdk(baseURL: string, fetch?: typeof globalThis.fetch): SdkClient {
  const providerEntry = fileURLToPath(import.meta.resolve("@arbor/provider-openai"));
  const OpenAI = createRequire(providerEntry)("openai") as new (
    options: Record<string, unknown>,
  ) => SdkClient;
  return new OpenAI({ apiKey: "bench", baseURL, maxRetries: 0, logLevel: "off", fetch });
}

/** A fetch whose response body arrives one SSE event per chunk (views, no copies), as the provider's. */
const eventSplitFetch: typeof globalThis.fetch = async (input, init) => {
  const response = await fetch(input, init);
  const split = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      let start = 0;
      for (
        let index = chunk.indexOf(10);
        index !== -1 && index < chunk.length - 1;
        index = chunk.indexOf(10, index + 1)
      ) {
        if (chunk[index + 1] === 10) {
          controller.enqueue(chunk.subarray(start, index + 2));
          start = index + 2;
        }
      }
      if (start < chunk.length) controller.enqueue(chunk.subarray(start));
    },
  });
  return new Response(response.body?.pipeThrough(split), {
    status: response.status,
    headers: response.headers,
  });
};

/**
 * Times `fn(size)` for every size, interleaved (1 MB, 2 MB, 1 MB, 2 MB, …) so both sizes meet the same
 * machine load, after one untimed warm-up each; returns the fastest run per size (the least disturbed
 * by other processes).
 */
async function timeSizes(sizes: readonly number[], fn: (size: number) => Promise<unknown>, runs: number) {
  for (const size of sizes) await fn(size);
  const best = sizes.map(() => Number.POSITIVE_INFINITY);
  const collectGarbage = (globalThis as { gc?: () => void }).gc;
  for (let run = 0; run < runs; run++) {
    for (const [index, size] of sizes.entries()) {
      collectGarbage?.();
      const start = performance.now();
      await fn(size);
      best[index] = Math.min(best[index] as number, performance.now() - start);
    }
  }
  return best;
}

/** Reads the whole body and parses every SSE event's data as JSON (no SDK). */
async function parseSse(response: Response): Promise<number> {
  const decoder = new TextDecoder();
  let buffer = "";
  let events = 0;
  for await (const bytes of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(bytes, { stream: true });
    let end = buffer.indexOf("\n\n");
    let start = 0;
    while (end !== -1) {
      const frame = buffer.slice(start, end);
      const data = frame.slice(frame.indexOf("data: ") + 6);
      if (data !== "[DONE]") {
        JSON.parse(data);
        events++;
      }
      start = end + 2;
      end = buffer.indexOf("\n\n", start);
    }
    buffer = buffer.slice(start);
  }
  return events;
}

const SIZES: readonly number[] = [1, 2];
const RUNS = 7;

async function runOpenAIBench(): Promise<string[]> {
  const bodies = new Map<string, Buffer>();
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      // Paths look like /1/v1/chat/completions: the argument size in MB, then the api path.
      const [, size, , ...rest] = (request.url ?? "").split("/");
      const body = bodies.get(`${size}/${rest.join("/")}`);
      response.writeHead(body ? 200 : 404, { "content-type": "text/event-stream" });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const baseURL = (size: number) => `${origin}/${size}/v1`;
  const lines: string[] = [];
  try {
    for (const api of ["chat", "responses"] as OpenAIApi[]) {
      const path = api === "chat" ? "chat/completions" : "responses";
      const expected = new Map<number, number>();
      for (const size of SIZES) {
        const args = writeArguments(size * MB);
        bodies.set(`${size}/${path}`, api === "chat" ? chatBody(args) : responsesBody(args));
        expected.set(size, (JSON.parse(args) as { content: string }).content.length);
      }
      const providers = new Map(
        SIZES.map((size) => [
          size,
          createOpenAIProvider({ baseURL: baseURL(size), preset: "openai", apiKey: "bench", api }),
        ]),
      );
      const stockSdk = new Map(SIZES.map((size) => [size, loadSdk(baseURL(size))]));
      const splitSdk = new Map(SIZES.map((size) => [size, loadSdk(baseURL(size), eventSplitFetch)]));

      const rawRead = (size: number) =>
        fetch(`${baseURL(size)}/${path}`, { method: "POST", body: "{}" }).then((response) =>
          response.arrayBuffer(),
        );
      const rawParse = (size: number) =>
        fetch(`${baseURL(size)}/${path}`, { method: "POST", body: "{}" }).then((response) =>
          parseSse(response),
        );
      const sdk = (clients: Map<number, SdkClient>) => async (size: number) => {
        const client = clients.get(size) as SdkClient;
        const stream =
          api === "chat"
            ? await client.chat.completions.create({ model: "gpt-5.4-mini", messages: [], stream: true })
            : await client.responses.create({ model: "gpt-5.4-mini", input: "x", stream: true });
        let count = 0;
        for await (const _event of stream) count++;
        return count;
      };
      const endToEnd = async (size: number) => {
        const provider = providers.get(size) as ReturnType<typeof createOpenAIProvider>;
        const model = provider.resolveModel("gpt-5.4-mini") as Model;
        const stream = provider.stream(model, {
          messages: [{ role: "user", content: "write", timestamp: 0 }],
        });
        for await (const _event of stream) {
          // drain every event, as a UI would
        }
        const message = await stream.result();
        const call = message.content[0];
        if (message.stopReason !== "toolUse" || call?.type !== "toolCall") {
          throw new Error(`bench: unexpected result ${message.stopReason} ${message.errorMessage ?? ""}`);
        }
        if ((call.arguments.content as string).length !== expected.get(size)) {
          throw new Error("bench: the tool argument came back altered");
        }
      };

      const body = bodies.get(`1/${path}`) as Buffer;
      const events = (body.toString("latin1").match(/\n\n/g) ?? []).length;
      lines.push(
        `api ${api}: 1 MB argument in ${events} SSE events (16-64 argument bytes each), ${(body.length / MB).toFixed(1)} MB of SSE body`,
        "  step (fastest of 7)                          1 MB   arg MB/s  vs baseline       2 MB  2 MB / 1 MB",
      );
      let baseline = 0;
      for (const [label, fn] of [
        ["raw HTTP read (baseline)", rawRead],
        ["raw read + SSE split + JSON.parse", rawParse],
        ["openai SDK stream, stock fetch", sdk(stockSdk)],
        ["openai SDK stream, event-split fetch", sdk(splitSdk)],
        ["provider end to end", endToEnd],
      ] as const) {
        const [one, two] = (await timeSizes(SIZES, fn, RUNS)) as [number, number];
        if (baseline === 0) baseline = one;
        lines.push(
          `  ${label.padEnd(38)} ${ms(one).padStart(9)} ${(1000 / one).toFixed(1).padStart(9)} ${`${(one / baseline).toFixed(1)}x`.padStart(11)} ${ms(two).padStart(10)} ${(two / one).toFixed(2).padStart(11)}`,
        );
      }
      lines.push("");
    }
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return lines;
}

const bench: Bench = { name: "provider-openai: 1 MB tool argument over SSE", run: runOpenAIBench };
export default bench;
