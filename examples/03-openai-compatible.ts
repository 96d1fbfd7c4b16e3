/**
 * 03 — any OpenAI-compatible server: finds the models of a local Ollama (GET /v1/models), streams a
 * short answer from one of them and prints every event. Ollama must listen on 127.0.0.1:11434
 * (`ollama serve`, then `ollama pull llama3.2`); pick the model with OLLAMA_MODEL=<id>.
 *
 * When no Ollama answers, it says so and then shows the same flow against the fake OpenAI-compatible
 * wire server of `@internal/conformance`, started on 127.0.0.1 (clearly labelled: not a real model). No API
 * key, no internet:
 *
 *   pnpm exec tsx --conditions=@arbor/source examples/03-openai-compatible.ts
 */
import type { AssistantEvent, Context, Model } from "@arbor/ai-providers";
import { createOpenAIProvider, type OpenAIProvider } from "@arbor/provider-openai";
import { chatChunk, chatFrames, chatTextChunks, startOpenAIWireServer } from "@internal/conformance";

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

/**
 * A fake OpenAI-compatible server (the wire server of the provider tests): `GET /v1/models`, then a
 * streamed chat answer with reasoning.
 */
function startFakeServer() {
  const answer =
    "A tree is a hierarchy of nodes where each node has one parent, except the root, and any number of children.";
  const [role, ...text] = chatTextChunks(answer, { size: 12, usage: { prompt: 31, completion: 27 } });
  return startOpenAIWireServer([
    {
      kind: "json",
      status: 200,
      body: { object: "list", data: [{ id: "fake-model", object: "model", owned_by: "example" }] },
    },
    {
      kind: "sse",
      frames: chatFrames([
        role,
        chatChunk({ reasoning_content: "The user wants a one-sentence definition." }),
        ...text,
      ]),
      frameDelayMs: process.env.CI ? 0 : 20,
    },
  ]);
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
