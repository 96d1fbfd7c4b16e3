/**
 * 01 — minimal: a scripted model streams a reply with a tool call; we run the tool, send the result
 * back, and the model answers. Every event is printed as it arrives. Runs offline, no API key:
 *
 *   pnpm example            (or: bash scripts/main.sh)
 */
import {
  type AssistantEvent,
  type Context,
  type ToolCall,
  type ToolResultMessage,
  Type,
  validateToolArguments,
} from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";

const clockTool = {
  name: "get_time",
  description: "Current time in a time zone.",
  parameters: Type.Object({ timeZone: Type.String({ description: "IANA zone, e.g. Europe/Paris" }) }),
};

// The "model": two scripted answers, streamed in 6-character chunks with a small delay.
const provider = createScriptedProvider(
  [
    script.toolCall("get_time", { timeZone: "Europe/Paris" }, { text: "Let me check the clock." }),
    script.dynamic((call) => {
      const result = call.context.messages.at(-1) as ToolResultMessage;
      const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
      return script.text(`In Paris it is ${text}. Anything else?`);
    }),
  ],
  { chunkSize: 6, chunkDelayMs: process.env.CI ? 0 : 15 },
);

function show(event: AssistantEvent): string {
  switch (event.type) {
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return `${event.type.padEnd(14)} [${event.contentIndex}] ${JSON.stringify(event.delta)}`;
    case "toolcall_end":
      return `${event.type.padEnd(14)} [${event.contentIndex}] ${event.toolCall.name}(${JSON.stringify(event.toolCall.arguments)})`;
    case "done":
      return `${event.type.padEnd(14)} stopReason=${event.reason} usage=${event.message.usage.input} in / ${event.message.usage.output} out, $${event.message.usage.cost.total.toFixed(6)}`;
    case "error":
      return `${event.type.padEnd(14)} ${event.reason}: ${event.error.errorMessage}`;
    default:
      return "contentIndex" in event ? `${event.type.padEnd(14)} [${event.contentIndex}]` : event.type;
  }
}

function runTool(call: ToolCall): ToolResultMessage {
  const checked = validateToolArguments(clockTool, call.arguments);
  const text = checked.ok
    ? new Date().toLocaleTimeString("en-GB", { timeZone: String(checked.value.timeZone) })
    : checked.message;
  return {
    role: "toolResult",
    toolCallId: call.id,
    toolName: call.name,
    content: [{ type: "text", text }],
    isError: !checked.ok,
    timestamp: Date.now(),
  };
}

const context: Context = {
  systemPrompt: "You are a helpful assistant.",
  messages: [{ role: "user", content: "What time is it in Paris?", timestamp: Date.now() }],
  tools: [clockTool],
};

for (let turn = 1; ; turn++) {
  console.log(`--- model call ${turn}`);
  const stream = provider.stream(provider.model, context);
  for await (const event of stream) console.log(show(event));
  const message = await stream.result();
  context.messages.push(message);
  const calls = message.content.filter((block): block is ToolCall => block.type === "toolCall");
  if (message.stopReason !== "toolUse" || calls.length === 0) break;
  for (const call of calls) {
    const result = runTool(call);
    console.log(`--- tool ${call.name} -> ${JSON.stringify(result.content[0])}`);
    context.messages.push(result);
  }
}
provider.assertDone();
