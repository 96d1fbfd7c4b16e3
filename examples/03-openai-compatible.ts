/**
 * 03 — any OpenAI-compatible server: finds the models of a local Ollama (GET /v1/models), streams a
 * short answer from one of them and prints every event. Ollama must listen on 127.0.0.1:11434
 * (`ollama serve`, then `ollama pull llama3.2`); pick the model with OLLAMA_MODEL=<id>.
 *
 * When no Ollama answers, it says so and then shows the same flow against a tiny fake
 * OpenAI-compatible server it starts itself on 127.0.0.1 (clearly labelled: not a real model). No API
 * key, no internet:
 *
 *   pnpm exec tsx --conditions=source examples/03-openai-compatible.ts
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { AssistantEvent, Context, Model } from "@arbor/ai-providers";
import { createOpenAIProvider, type OpenAIProvider } from "@arbor/provider-openai";

function show(event: AssistantEvent): string {
  switch (event.type) {
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return `${event.type.padEnd(14)} [${event.contentIndex}] ${JSON.stringify(event.delta)}`;
    case "done":
      return `${event.type.padEnd(14)} stopReason=${event.reason} usage=${event.message.usage.input} in / ${event.message.usage.output} out`;
    case "error":
      return `${event.type.padEnd(14)} ${event.reason}: ${event.error.errorMessage}`;
    default:
      return "contentIndex" in event ? `${event.type.padEnd(14)} [${event.contentIndex}]` : event.type;
  }
}

const context: Context = {
  systemPrompt: "You are a concise assistant.",
  messages: [
    { role: "user", content: "In one sentence: what is a tree data structure?", timestamp: Date.now() },
  ],
};

/** Discovers the server's models, streams one answer, prints the events. True when a model answered. */
async function run(provider: OpenAIProvider, preferred?: string): Promise<boolean> {
  const discovery = await provider.discoverModels({ signal: AbortSignal.timeout(3000) });
  if (discovery.error !== undefined) {
    console.log(`No models: ${discovery.error}`);
    return false;
  }
  console.log(
    `Models at ${provider.baseURL}: ${discovery.models.map((model) => model.id).join(", ") || "(none)"}`,
  );
  const model: Model | undefined =
    (preferred ? provider.resolveModel(preferred) : undefined) ?? discovery.models[0];
  if (model === undefined) {
    console.log("The server lists no model. With Ollama: `ollama pull llama3.2`, then run this again.");
    return false;
  }
  console.log(
    `--- streaming from ${model.id} (context window ${model.contextWindow} tokens, as assumed or reported)`,
  );
  const stream = provider.stream(model, context, { maxTokens: 300 });
  for await (const event of stream) console.log(show(event));
  const message = await stream.result();
  return message.stopReason !== "error";
}

/** A tiny fake OpenAI-compatible server: GET /v1/models and a streamed chat answer with reasoning. */
async function startFakeServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const answer =
    "A tree is a hierarchy of nodes where each node has one parent, except the root, and any number of children.";
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", created: 0, model: "fake-model", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", async () => {
      if (request.method === "GET" && request.url === "/v1/models") {
        response.writeHead(200, { "content-type": "application/json" });
        response.end(
          JSON.stringify({
            object: "list",
            data: [{ id: "fake-model", object: "model", owned_by: "example" }],
          }),
        );
        return;
      }
      response.writeHead(200, { "content-type": "text/event-stream" });
      const frames = [
        chunk({ role: "assistant", content: "" }),
        chunk({ reasoning_content: "The user wants a one-sentence definition." }),
        ...(answer.match(/.{1,12}/g) ?? []).map((piece) => chunk({ content: piece })),
        chunk({}, "stop"),
        `data: ${JSON.stringify({ id: "chatcmpl-fake", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 31, completion_tokens: 27, total_tokens: 58 } })}\n\n`,
        "data: [DONE]\n\n",
      ];
      for (const frame of frames) {
        response.write(frame);
        await new Promise((resolve) => setTimeout(resolve, process.env.CI ? 0 : 20));
      }
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const ollama = createOpenAIProvider({ preset: "ollama" });
console.log(`Looking for Ollama at ${ollama.baseURL} …`);
if (await run(ollama, process.env.OLLAMA_MODEL)) {
  console.log("--- done: that answer came from your local Ollama.");
} else {
  console.log(
    "\nNo usable Ollama server on 127.0.0.1:11434. Start one with `ollama serve` and pull a model (`ollama pull llama3.2`) to see a real model answer.",
  );
  const fake = await startFakeServer();
  console.log(
    `\n=== FALLBACK: a fake OpenAI-compatible server started by this example at ${fake.url} (not a real model) ===`,
  );
  try {
    await run(createOpenAIProvider({ baseURL: fake.url, preset: "vllm", id: "fake" }));
  } finally {
    await fake.close();
  }
  console.log("=== end of the fallback demo (the answer above is canned) ===");
}
