/**
 * 02 — Anthropic: Claude streams its thinking and two parallel tool calls; we run the tools, send the
 * results back (one user turn of tool_result blocks), and Claude answers. Every event is printed, then
 * the usage with prompt-cache reads and writes and the cost.
 *
 *   pnpm tsx --conditions=@arbor/source examples/02-anthropic.ts            (offline unless ANTHROPIC_API_KEY is set)
 *   ... examples/02-anthropic.ts --record my.jsonl                   record the interactions to a cassette
 *   ... examples/02-anthropic.ts --replay examples/fixtures/02-anthropic.jsonl   replay one, no server at all
 *
 * Without ANTHROPIC_API_KEY it starts the local wire server of `@internal/conformance` (the one the
 * provider's tests use), which speaks the Messages API streaming protocol (SSE), and says so: the real
 * SDK and provider run against it. With a key it talks to the real
 * API (model: ARBOR_ANTHROPIC_MODEL, default claude-haiku-5-5).
 */
import {
  type AssistantEvent,
  type Context,
  type Provider,
  type ToolCall,
  type ToolResultMessage,
  Type,
  validateToolArguments,
} from "@arbor/ai-providers";
import { createRecordingProvider, createReplayProvider } from "@arbor/ai-providers/recording";
import { createAnthropicProvider } from "@arbor/provider-anthropic";
import { anthropicSse, completeAnthropicStream, startFakeAnthropicServer } from "@internal/conformance";

const weatherTool = {
  name: "get_weather",
  description: "Current weather in a city.",
  parameters: Type.Object({ city: Type.String({ description: "City name, e.g. Paris" }) }),
};
const WEATHER: Record<string, string> = { Paris: "14 °C, light rain", Tokyo: "21 °C, clear sky" };

/**
 * A local stand-in for api.anthropic.com (the wire server of the provider tests): thinking and two
 * parallel tool calls, then the answer from the tool results, with prompt-cache usage.
 */
function startLocalAnthropic() {
  const delayMs = process.env.CI ? 0 : 12;
  const calls = ["Paris", "Tokyo"].map((city, index) =>
    anthropicSse.toolUseBlock(2 + index, {
      id: `toolu_local_${city}`,
      name: "get_weather",
      json: JSON.stringify({ city }),
      chunkSize: 5,
    }),
  );
  const firstCall = completeAnthropicStream(
    [
      anthropicSse.thinkingBlock(
        0,
        "Two cities: call get_weather for each, in parallel.",
        "local-demo-signature",
        9,
      ),
      anthropicSse.textBlock(1, "Let me check both cities.", 6),
      ...calls,
    ],
    {
      model: "local",
      stopReason: "tool_use",
      usage: { input_tokens: 310, cache_creation_input_tokens: 1200, cache_read_input_tokens: 0 },
      finalUsage: { output_tokens: 74 },
    },
  );
  const answer = `Paris has ${WEATHER.Paris} and Tokyo has ${WEATHER.Tokyo}.`;
  const secondCall = completeAnthropicStream([anthropicSse.textBlock(0, answer, 6)], {
    model: "local",
    usage: { input_tokens: 95, cache_creation_input_tokens: 140, cache_read_input_tokens: 1200 },
    finalUsage: { output_tokens: 21 },
  });
  return startFakeAnthropicServer([
    { kind: "stream", events: firstCall, delayMs },
    { kind: "stream", events: secondCall, delayMs },
  ]);
}

function show(event: AssistantEvent): string {
  switch (event.type) {
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return `${event.type.padEnd(14)} [${event.contentIndex}] ${JSON.stringify(event.delta)}`;
    case "toolcall_end":
      return `${event.type.padEnd(14)} [${event.contentIndex}] ${event.toolCall.name}(${JSON.stringify(event.toolCall.arguments)})`;
    case "done":
    case "error": {
      const message = event.type === "done" ? event.message : event.error;
      const { input, output, cacheRead, cacheWrite, cost } = message.usage;
      const outcome =
        event.type === "done" ? `stopReason=${event.reason}` : `${event.reason}: ${message.errorMessage}`;
      return `${event.type.padEnd(14)} ${outcome}  tokens: ${input} in, ${cacheRead} cache read, ${cacheWrite} cache write, ${output} out  $${cost.total.toFixed(6)}`;
    }
    default:
      return "contentIndex" in event ? `${event.type.padEnd(14)} [${event.contentIndex}]` : event.type;
  }
}

function runTool(call: ToolCall): ToolResultMessage {
  const checked = validateToolArguments(weatherTool, call.arguments);
  const city = checked.ok ? String(checked.value.city) : "";
  const text = checked.ok ? (WEATHER[city] ?? `no data for ${city}`) : checked.message;
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text }],
    isError: !checked.ok,
    timestamp: Date.now(),
  };
}

const flag = (name: string) => {
  const index = process.argv.indexOf(name);
  return index >= 0 ? process.argv[index + 1] : undefined;
};
const replayFile = flag("--replay");
const recordFile = flag("--record");
let local: Awaited<ReturnType<typeof startLocalAnthropic>> | undefined;
let provider: Provider;
if (replayFile !== undefined) {
  console.log(`Replaying ${replayFile}: no server, no key, the recorded answers.`);
  provider = createReplayProvider(replayFile);
} else if (process.env.ANTHROPIC_API_KEY) {
  console.log("ANTHROPIC_API_KEY is set: talking to the real Anthropic API.");
  provider = createAnthropicProvider();
} else {
  local = await startLocalAnthropic();
  console.log(
    `No ANTHROPIC_API_KEY: talking to a LOCAL FAKE Anthropic server at ${local.url} (offline demo).`,
  );
  provider = createAnthropicProvider({ apiKey: "sk-ant-local-demo", baseURL: local.url });
}
if (recordFile !== undefined) {
  console.log(`Recording to ${recordFile}.`);
  provider = createRecordingProvider(provider, recordFile);
}

const modelId = process.env.ARBOR_ANTHROPIC_MODEL ?? "claude-haiku-5-5";
const model =
  provider.models.find((candidate) => candidate.id === modelId) ?? provider.resolveModel?.(modelId);
if (model === undefined) throw new Error(`Unknown model ${modelId}`);
const context: Context = {
  systemPrompt: "You are a concise weather assistant. Use get_weather for every city you are asked about.",
  messages: [
    {
      role: "user",
      content: "What's the weather in Paris and in Tokyo? One sentence.",
      timestamp: Date.now(),
    },
  ],
  tools: [weatherTool],
};

try {
  for (let turn = 1; turn <= 4; turn++) {
    console.log(`--- model call ${turn} (${model.provider}/${model.id})`);
    const stream = provider.stream(model, context, { reasoning: "low", maxTokens: 4096 });
    for await (const event of stream) console.log(show(event));
    const message = await stream.result();
    context.messages.push(message);
    const calls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
    if (message.stopReason !== "toolUse" || calls.length === 0) break;
    for (const call of calls) {
      const result = runTool(call);
      console.log(
        `--- tool ${call.name}(${JSON.stringify(call.arguments)}) -> ${JSON.stringify(result.content[0])}`,
      );
      context.messages.push(result);
    }
  }
} finally {
  await local?.close();
}
