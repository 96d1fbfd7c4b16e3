import {
  createProviderStream,
  type Model,
  type StreamFn,
  type TextContent,
  type UserMessage,
} from "@arbor/ai-providers";
import type { SummarizerTarget } from "../summarizer.js";

/**
 * A deterministic, offline summarizer for the evaluation and CI: it answers a summary request in the
 * summary format from the conversation's own lines (the first and latest requests, the tool calls, the
 * failed results, the previous summary's lines), capped at the request's `maxTokens`. It measures what the
 * request carries (serialization, chunking, caps), not a model's judgement.
 */

function between(text: string, open: string, close: string): string {
  const start = text.indexOf(open);
  if (start < 0) return "";
  const end = text.indexOf(close, start + open.length);
  return end < 0 ? "" : text.slice(start + open.length, end);
}

function requestText(messages: readonly { role: string; content: unknown }[]): string {
  const user = messages.find((message) => message.role === "user") as UserMessage | undefined;
  if (user === undefined) return "";
  if (typeof user.content === "string") return user.content;
  return user.content
    .filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

/** The summary the extractive summarizer writes for a request text. */
export function extractiveSummary(request: string): string {
  const lines = between(request, "<conversation>", "</conversation>").split("\n");
  const previous = between(request, "<previous-summary>", "</previous-summary>").trim();
  const users = lines.filter((line) => line.startsWith("[User]: ")).map((line) => line.slice(8));
  const calls = lines
    .filter((line) => line.startsWith("[Assistant tool call]: "))
    .map((line) => line.slice(23));
  const errors = lines.filter((line) => /^\[Tool result [^\]]* \(error\)\]: /.test(line));
  const said = lines.filter((line) => line.startsWith("[Assistant]: ")).map((line) => line.slice(13));
  const clip = (text: string) => (text.length > 300 ? `${text.slice(0, 300)}…` : text);
  const sections = [
    "## Goal",
    `- ${clip(users[0] ?? "(continue the work)")}`,
    "## Constraints & Preferences",
    ...users
      .filter((text) => /\b(must|never|always|don't|do not|should|only|without)\b/i.test(text))
      .map((text) => `- ${clip(text)}`),
    "## Progress",
    "### Done",
    ...calls.map((text) => `- [x] ${clip(text)}`),
    "## Next Steps",
    `1. ${clip(users.at(-1) ?? said.at(-1) ?? "continue")}`,
    "## Critical Context",
    ...errors.map((line) => `- ${clip(line)}`),
    ...said.slice(-3).map((text) => `- ${clip(text)}`),
  ];
  return previous === "" ? sections.join("\n") : `${previous}\n\n${sections.join("\n")}`;
}

/** A model of the evaluation (`eval/<id>`): no cost, text only. */
export function evalModel(id: string, name: string, contextWindow: number): Model {
  return {
    id,
    name,
    provider: "eval",
    api: "eval",
    reasoning: false,
    input: ["text"],
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow,
    maxTokens: 16_384,
  };
}

/**
 * The extractive summarizer as a model and a stream function (`provider/model` = `eval/extractive`).
 *
 * Contract: never fails; honours the signal; answers at most `maxTokens × 4` characters.
 */
export function createExtractiveSummarizer(contextWindow = 200_000): SummarizerTarget {
  const model = evalModel("extractive", "Extractive summarizer (offline)", contextWindow);
  const stream: StreamFn = (callModel, context, options) =>
    createProviderStream(callModel, options, ({ writer }) => {
      const request = requestText(context.messages);
      const limit = Math.max(1, Number(options?.maxTokens ?? callModel.maxTokens)) * 4;
      const text = extractiveSummary(request).slice(0, limit);
      writer.usage({ input: Math.ceil(request.length / 4), output: Math.ceil(text.length / 4) });
      writer.text(text);
      writer.done("stop");
    });
  return { model, stream };
}
