/**
 * 04 — an agent with tools: an `Agent` runs a scripted model that lists this directory and reads two
 * files at once (the tools run in parallel; their results go back in call order), a `beforeToolCall`
 * hook blocks a read outside the directory, and a steering message typed while the tools run is
 * injected before the next model call. Every agent event is printed as it arrives. Runs offline:
 *
 *   pnpm exec tsx --conditions=@arbor/source examples/04-agent-with-tools.ts
 */
import { readdir, readFile } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Agent, type AgentEvent, defineTool, type ToolResultMessage, Type } from "@arbor/agent-core";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";

const root = dirname(fileURLToPath(import.meta.url));

const listFiles = defineTool({
  name: "list_files",
  label: "List files",
  description: "List the files of the examples directory.",
  parameters: Type.Object({}),
  async execute() {
    const names = (await readdir(root)).filter((name) => name.endsWith(".ts")).sort();
    return { content: [{ type: "text", text: names.join("\n") }], details: { count: names.length } };
  },
});

const readLines = defineTool({
  name: "read_lines",
  label: "Read lines",
  description: "Read the first lines of a file in the examples directory.",
  parameters: Type.Object({
    path: Type.String({ description: "Path relative to the examples directory" }),
    lines: Type.Integer({ minimum: 1, maximum: 50, default: 3 }),
  }),
  async execute({ path, lines }, { signal, onUpdate }) {
    onUpdate({ details: { status: `opening ${path}` } });
    const text = await readFile(resolve(root, path), { encoding: "utf8", signal });
    const head = text.split("\n").slice(0, lines).join("\n");
    return {
      content: [{ type: "text", text: head }],
      details: { path, totalLines: text.split("\n").length },
    };
  },
});

const resultText = (message: ToolResultMessage | undefined) =>
  message?.content.map((block) => (block.type === "text" ? block.text : "")).join("") ?? "";

// The "model": three scripted replies; the last one reads what the tools returned.
const provider = createScriptedProvider(
  [
    script.toolCall("list_files", {}, { text: "Let me look around." }),
    script.toolCalls([
      { name: "read_lines", arguments: { path: "01-minimal.ts", lines: 2 } },
      { name: "read_lines", arguments: { path: "04-agent-with-tools.ts" } },
      { name: "read_lines", arguments: { path: "../package.json" } },
    ]),
    script.dynamic((call) => {
      const results = call.context.messages.filter((message) => message.role === "toolResult");
      const listing = resultText(results[0]).split("\n");
      const refused = results.filter((result) => result.isError).length;
      return script.text(
        `As you asked, a summary: ${listing.length} example file(s) (${listing.join(", ")}); ` +
          `I read ${results.length - 1 - refused} of them, ${refused} read was refused.`,
      );
    }),
  ],
  { chunkSize: 12, chunkDelayMs: process.env.CI ? 0 : 10 },
);

const agent = new Agent({
  model: provider.model,
  streamFn: provider.stream,
  systemPrompt: "You are a careful assistant with read-only file tools.",
  tools: [listFiles, readLines],
  beforeToolCall: ({ toolCall, args }) => {
    const path = String(args.path ?? "");
    const inside = resolve(root, path).startsWith(root + sep);
    return toolCall.name === "read_lines" && !inside
      ? { block: true, reason: `Refused: ${path} is outside the examples directory.` }
      : undefined;
  },
});

function show(event: AgentEvent): string | undefined {
  switch (event.type) {
    case "message_update": {
      const update = event.assistantMessageEvent;
      if (update.type === "text_delta") return `  … ${JSON.stringify(update.delta)}`;
      if (update.type === "toolcall_end")
        return `  … calls ${update.toolCall.name}(${JSON.stringify(update.toolCall.arguments)})`;
      return undefined;
    }
    case "message_start":
    case "message_end": {
      const message = event.message as { role: string };
      return `${event.type} (${message.role})`;
    }
    case "tool_execution_start":
      return `tool_execution_start ${event.toolName} ${JSON.stringify(event.args)}`;
    case "tool_execution_update":
      return `tool_execution_update ${event.toolName} ${JSON.stringify(event.partialResult.details)}`;
    case "tool_execution_end":
      return `tool_execution_end ${event.toolName}${event.isError ? " (error)" : ""} ${JSON.stringify(event.result.details ?? null)}`;
    case "turn_end":
      return `turn_end: ${event.toolResults.length} tool result(s)`;
    case "agent_end":
      return `agent_end: ${event.messages.length} message(s) added`;
    default:
      return event.type;
  }
}

let steered = false;
agent.subscribe((event) => {
  const line = show(event);
  if (line !== undefined) console.log(line);
  // The user types while the reads run: the message is injected before the next model call.
  if (event.type === "tool_execution_start" && event.toolName === "read_lines" && !steered) {
    steered = true;
    agent.steer("Actually, just summarize the listing.");
  }
});

await agent.prompt("What is in the examples directory?");

console.log("\n--- transcript");
for (const message of agent.state.messages) {
  const text =
    message.role === "assistant"
      ? message.content
          .map((block) =>
            block.type === "text" ? block.text : block.type === "toolCall" ? `[${block.name}]` : "",
          )
          .join(" ")
      : message.role === "toolResult"
        ? `${message.toolName}${message.isError ? " (error)" : ""}: ${resultText(message).split("\n")[0]}`
        : message.role !== "user"
          ? `[${message.role}]`
          : typeof message.content === "string"
            ? message.content
            : message.content.map((block) => (block.type === "text" ? block.text : "[image]")).join("");
  console.log(`${message.role.padEnd(10)} ${text}`);
}
provider.assertDone();
