/**
 * The offline scripted model of `--provider scripted` (`scripted/demo`): no network, no key, deterministic.
 * It reads the last message and answers by a small grammar (see {@link DEMO_HELP}): `run <command>` calls
 * the bash tool, `read <path>` the read tool, …; after tool results it reports them; asked for a summary by
 * compaction or a branch summary, it writes one from the conversation; anything else it repeats back.
 */
import type { AssistantMessage, Context, Message, Model, ToolResultMessage } from "@arbor/ai-providers";
import {
  createScriptedProvider,
  type ScriptedPart,
  type ScriptedProvider,
  type ScriptedStep,
  script,
} from "@arbor/ai-providers/testing";
import { SUMMARIZER_SYSTEM_PROMPT } from "@arbor/compaction";
import { demoSummary } from "./demo-summary.js";
import { clipLine, DEMO_HELP, demoWords, firstLines } from "./demo-text.js";

/** The provider id and model id of the scripted model. */
export const SCRIPTED_PROVIDER_ID = "scripted";
export const DEMO_MODEL_ID = "demo";

/** Most words `words <n>` writes. */
const MAX_WORDS = 200_000;

/** The scripted model as plain data (free, a 128k window). */
export function demoModel(overrides: Partial<Model> = {}): Model {
  return {
    id: DEMO_MODEL_ID,
    name: "Scripted demo model (offline)",
    provider: SCRIPTED_PROVIDER_ID,
    api: "scripted",
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: 128_000,
    maxTokens: 16_384,
    ...overrides,
  };
}

/** Options of {@link createDemoProvider}. */
export interface DemoProviderOptions {
  /** The model it answers as (default {@link demoModel}). */
  model?: Model;
  /** Pause between streamed chunks in ms (default 0). */
  chunkDelayMs?: number;
}

/**
 * The scripted provider of `--provider scripted`: every call is answered by {@link demoStep}.
 *
 * Contract: records no calls (memory does not grow with a long session); never needs a network or a key.
 */
export function createDemoProvider(options: DemoProviderOptions = {}): ScriptedProvider {
  const model = options.model ?? demoModel();
  return createScriptedProvider((call) => demoStep(call.context), {
    id: model.provider,
    model,
    recordCalls: false,
    ...(options.chunkDelayMs === undefined ? {} : { chunkDelayMs: options.chunkDelayMs }),
  });
}

function textOf(message: Message): string {
  if (typeof message.content === "string") return message.content;
  return message.content
    .map((block) => (block.type === "text" ? block.text : ""))
    .join("\n")
    .trim();
}

function hasTool(context: Context, name: string): boolean {
  return context.tools?.some((tool) => tool.name === name) ?? false;
}

/** A tool call, or a text saying the tool is not available in this session. */
function callTool(
  context: Context,
  name: string,
  args: Record<string, unknown>,
  intro: string,
): ScriptedStep {
  if (!hasTool(context, name)) {
    return script.text(
      `I would use the \`${name}\` tool, but it is not available in this session (see --tools / --no-tools).`,
    );
  }
  return script.toolCall(name, args, { text: intro });
}

/** One rule of the grammar: a pattern of the user's message and the answer it gives. */
interface GrammarRule {
  pattern: RegExp;
  answer: (match: RegExpExecArray, context: Context) => ScriptedStep;
}

const GRAMMAR: readonly GrammarRule[] = [
  {
    pattern: /^(?:run|bash|\$)\s+([\s\S]+)$/i,
    answer: ([, command = ""], context) =>
      callTool(context, "bash", { command: command.trim() }, `Running \`${clipLine(command, 60)}\`.`),
  },
  {
    pattern: /^read\s+(\S+)(?:\s+(\d+)(?:-(\d+))?)?$/i,
    answer: ([, path, from, to], context) => {
      const args: Record<string, unknown> = { path };
      if (from !== undefined) args.offset = Number(from);
      if (from !== undefined && to !== undefined) args.limit = Math.max(1, Number(to) - Number(from) + 1);
      return callTool(context, "read", args, `Reading ${path}.`);
    },
  },
  {
    pattern: /^write\s+([^\s:]+):?[ \t]*\n?([\s\S]*)$/i,
    answer: ([, path, text = ""], context) => {
      const content = text === "" || text.endsWith("\n") ? text : `${text}\n`;
      return callTool(context, "write", { path, content }, `Writing ${path}.`);
    },
  },
  {
    pattern: /^edit\s+([^\s:]+):\s*([\s\S]+?)\s+=>\s+([\s\S]*)$/i,
    answer: ([, path, oldText, newText], context) =>
      callTool(context, "edit", { path, edits: [{ oldText, newText }] }, `Editing ${path}.`),
  },
  {
    pattern: /^ls(?:\s+(\S+))?$/i,
    answer: ([, path], context) =>
      callTool(context, "ls", path === undefined ? {} : { path }, "Listing the files."),
  },
  {
    pattern: /^(find|grep)\s+(\S+)(?:\s+(\S+))?$/i,
    answer: ([, tool = "", pattern, path], context) => {
      const name = tool.toLowerCase();
      const args: Record<string, unknown> = path === undefined ? { pattern } : { pattern, path };
      return callTool(context, name, args, name === "find" ? "Looking for files." : "Searching.");
    },
  },
  {
    pattern: /^words\s+(\d+)$/i,
    answer: ([, count]) => script.text(demoWords(Math.min(MAX_WORDS, Number(count)))),
  },
  {
    pattern: /^think\s+([\s\S]+)$/i,
    answer: ([, text = ""]) => {
      const question = clipLine(text, 200);
      return script.thinking(
        `The user asks: "${question}". I am a scripted model, so I note the question and answer plainly.`,
        `I thought about "${question}". A real model would answer it: try \`arbor --provider anthropic\` (or openai, or a local server).`,
      );
    },
  },
  {
    pattern: /^(?:fail|error)(?:\s+([\s\S]*))?$/i,
    answer: ([, text]) =>
      script.error(`Scripted failure: ${text?.trim() || "the scripted model was asked to fail"}`, {
        partial: [script.part.text("Starting… ")],
      }),
  },
  {
    pattern: /^wait\s+(\d+)(?:\s+([\s\S]*))?$/i,
    answer: ([, milliseconds, text]) => {
      const ms = Math.min(600_000, Number(milliseconds));
      return script.delay(ms, script.text(text?.trim() || `Waited ${ms} ms.`));
    },
  },
  { pattern: /^(?:help|\?)$/i, answer: () => script.text(DEMO_HELP) },
  {
    pattern: /^(?:hi|hello|hey)\b/i,
    answer: () =>
      script.text(
        "Hello! I am Arbor's offline scripted model. Say `help` to see what I understand, or `run ls` to watch a tool call.",
      ),
  },
];

/** The grammar: a user message to an answer. */
function answerUser(text: string, context: Context): ScriptedStep {
  const trimmed = text.trim();
  for (const rule of GRAMMAR) {
    const match = rule.pattern.exec(trimmed);
    if (match !== null) return rule.answer(match, context);
  }
  if (trimmed === "") return script.text("You sent an empty message. Say `help` to see what I understand.");
  return script.text(
    `You said: "${clipLine(trimmed, 2_000)}". (Scripted model: say \`help\` for what I understand.)`,
  );
}

/** The tool calls of the assistant message before the trailing tool results, by id. */
function callsById(messages: readonly Message[], before: number): Map<string, Record<string, unknown>> {
  const calls = new Map<string, Record<string, unknown>>();
  const assistant = messages[before] as AssistantMessage | undefined;
  if (assistant?.role !== "assistant") return calls;
  for (const block of assistant.content) if (block.type === "toolCall") calls.set(block.id, block.arguments);
  return calls;
}

function describeResult(result: ToolResultMessage, args: Record<string, unknown> | undefined): string {
  const output = textOf(result);
  const name = result.toolName;
  if (result.isError) return `The \`${name}\` call failed:\n\n${"```"}\n${firstLines(output, 6)}\n${"```"}`;
  switch (name) {
    case "bash": {
      const command = clipLine(String(args?.command ?? ""), 60);
      return output === "" || output === "(no output)"
        ? `\`${command}\` ran without output.`
        : `\`${command}\` printed:\n\n${"```"}\n${firstLines(output, 12)}\n${"```"}`;
    }
    case "read":
      return `${String(args?.path ?? "The file")} starts with:\n\n${"```"}\n${firstLines(output, 8)}\n${"```"}`;
    case "write":
    case "edit":
      return firstLines(output, 3);
    default:
      return `The \`${name}\` tool found:\n\n${"```"}\n${firstLines(output, 12)}\n${"```"}`;
  }
}

/** The answer after tool results: what each call gave. */
function reportResults(messages: readonly Message[]): ScriptedStep {
  let start = messages.length;
  while (start > 0 && messages[start - 1]!.role === "toolResult") start--;
  const calls = callsById(messages, start - 1);
  const parts: ScriptedPart[] = [];
  const results = messages.slice(start) as ToolResultMessage[];
  const described = results.map((result) => describeResult(result, calls.get(result.toolCallId)));
  parts.push(script.part.text(described.join("\n\n")));
  return script.response(parts);
}

/**
 * The scripted model's answer to a context.
 *
 * Contract: pure and deterministic; reads the last messages only (O(1) in the conversation's length, apart
 * from the summarizer's request, which it reads once).
 */
export function demoStep(context: Context): ScriptedStep {
  const messages = context.messages;
  const last = messages.at(-1);
  if (context.systemPrompt === SUMMARIZER_SYSTEM_PROMPT && last !== undefined) {
    return script.text(demoSummary(textOf(last)));
  }
  if (last === undefined) return script.text(DEMO_HELP);
  if (last.role === "toolResult") return reportResults(messages);
  if (last.role === "user") return answerUser(textOf(last), context);
  return script.text("(The scripted model has nothing to add.)");
}
