/**
 * A test utility (never used by published code): a context limit for the local wire servers. A request whose
 * estimated size (chars/4 of its JSON body) passes the limit is answered with the provider's overflow error,
 * as a real server with a small window would; any other request gets the scripted reply.
 */
import type { OpenAIWireReply, OpenAIWireRequest } from "./openai-server.js";
import { openAIErrorReply } from "./openai-server.js";

/** The estimated tokens of a request: chars/4 of its JSON body. */
export function estimatedRequestTokens(request: { body: unknown }): number {
  return Math.ceil(JSON.stringify(request.body ?? null).length / 4);
}

/**
 * An OpenAI wire reply that enforces a context limit of `limitTokens`: over it, HTTP 400 with OpenAI's
 * `This model's maximum context length is M tokens. However, you requested N tokens …` (code
 * `context_length_exceeded`); otherwise `reply` (a reply or a function of the request).
 */
export function withTokenLimit(
  limitTokens: number,
  reply: OpenAIWireReply | ((request: OpenAIWireRequest) => OpenAIWireReply),
): (request: OpenAIWireRequest) => OpenAIWireReply {
  return (request) => {
    const tokens = estimatedRequestTokens(request);
    if (tokens > limitTokens) {
      return openAIErrorReply(
        400,
        `This model's maximum context length is ${limitTokens} tokens. However, you requested ${tokens} tokens. Please reduce the length of the messages.`,
        { code: "context_length_exceeded" },
      );
    }
    return typeof reply === "function" ? reply(request) : reply;
  };
}
