import { describe, expect, it } from "vitest";
import { isContextOverflow, isContextOverflowText, OVERFLOW_PATTERNS } from "../src/overflow.js";
import type { AssistantMessage, StopReason, Usage } from "../src/types.js";

function message(
  stopReason: StopReason,
  errorMessage?: string,
  usage: Partial<Omit<Usage, "cost">> = {},
): AssistantMessage {
  return {
    role: "assistant",
    content: [],
    api: "openai-completions",
    provider: "x",
    model: "y",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      ...usage,
    },
    stopReason,
    ...(errorMessage === undefined ? {} : { errorMessage }),
    timestamp: 1_700_000_000_000,
  };
}

const OVERFLOW_TEXTS: readonly [provider: string, text: string][] = [
  ["Anthropic", "prompt is too long: 213462 tokens > 200000 maximum"],
  [
    "Anthropic (API error body)",
    '400 {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 202128 tokens > 200000 maximum"}}',
  ],
  [
    "Anthropic (input + max_tokens)",
    '400 {"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input length or `max_tokens` and try again"}}',
  ],
  [
    "Anthropic (HTTP 413)",
    '413 {"type":"error","error":{"type":"request_too_large","message":"Request exceeds the maximum size"}}',
  ],
  [
    "OpenAI Responses",
    '{"type":"invalid_request_error","code":"context_length_exceeded","message":"Your input exceeds the context window of this model. Please adjust your input and try again.","param":"input"}',
  ],
  [
    "OpenAI Responses (message only)",
    "Your input exceeds the context window of this model. Please adjust your input and try again.",
  ],
  ["OpenAI (code only)", "context_length_exceeded"],
  [
    "OpenAI Chat Completions",
    "This model's maximum context length is 4097 tokens. However, your messages resulted in 4294 tokens. Please reduce the length of the messages.",
  ],
  [
    "OpenAI Chat Completions (completion)",
    "400 This model's maximum context length is 131072 tokens. However, you requested 139162 tokens (130970 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.",
  ],
  [
    "Google Gemini",
    '{"error":{"code":400,"message":"The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}',
  ],
  ["xAI", "400 This model's maximum prompt length is 131072 but the request contains 136973 tokens."],
  [
    "Groq",
    "Error code: 400 - {'error': {'message': 'Please reduce the length of the messages or completion.', 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}",
  ],
  [
    "OpenRouter",
    '400 This endpoint\'s maximum context length is 32768 tokens. However, you requested about 42832 tokens (42832 of text input). Please reduce the length of either one, or use the "middle-out" transform to compress your prompt automatically.',
  ],
  ["llama.cpp server", "the request exceeds the available context size, try increasing it"],
  [
    "llama.cpp server (counts)",
    '{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}',
  ],
  ["llama.cpp server (type only)", '{"error":{"code":400,"type":"exceed_context_size_error"}}'],
  [
    "llama.cpp server (old build)",
    "input (5000 tokens) is larger than the max context size (4096 tokens). skipping",
  ],
  [
    "llama.cpp server / LM Studio (mid-generation)",
    '500 {"error":{"code":500,"message":"Context size has been exceeded.","type":"server_error"}}',
  ],
  [
    "LM Studio",
    "The number of tokens to keep from the initial prompt is greater than the context length (n_keep: 10978 >= n_ctx: 8192). Try to load the model with a larger context length, or provide a shorter input.",
  ],
  [
    "LM Studio (keep first)",
    "Trying to keep the first 111490 tokens when context the overflows. However, the model is loaded with context length of only 32768 tokens, which is not enough.",
  ],
  [
    "vLLM (decoder prompt)",
    "The decoder prompt (length 9254) is longer than the maximum model length of 4096. Make sure that `max_model_len` is no smaller than the number of text tokens.",
  ],
  [
    "vLLM (prompt too long to fit)",
    '{"object":"error","message":"The prompt (total length 43698) is too long to fit into the model (context length 32768). Make sure that `max_model_len` is no smaller than the number of text tokens plus multimodal tokens.","type":"BadRequestError","param":null,"code":400}',
  ],
  [
    "vLLM (OpenAI server)",
    "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
  ],
  ["Ollama", '{"error":"prompt too long; exceeded max context length by 17 tokens"}'],
  ["Ollama (context length)", "400 the input length exceeds the context length"],
  ["LiteLLM", "Input length (265330) exceeds model's maximum context length (262144)."],
  ["Amazon Bedrock", "ValidationException: input is too long for requested model"],
  [
    "Mistral",
    "Prompt contains 9000 tokens and 0 draft tokens, too large for model with 8192 maximum context length",
  ],
  ["Together AI", "The input (516368 tokens) is longer than the model's context length (262144 tokens)."],
  ["GitHub Copilot", "prompt token count of 200000 exceeds the limit of 128000"],
  ["MiniMax", "invalid params, context window exceeds limit"],
  ["Kimi", "Your request exceeded model token limit: 262144 (requested: 291351)"],
  ["generic", "Context length exceeded"],
  ["generic", "Too many tokens in the request"],
  ["generic", "token limit exceeded"],
  ["generic", "Tokens limit exceeded for this model"],
];

const NOT_OVERFLOW_TEXTS: readonly [kind: string, text: string][] = [
  ["HTTP 429", "429 Too Many Requests"],
  [
    "Anthropic rate limit",
    '429 {"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization of 30,000 input tokens per minute."}}',
  ],
  [
    "OpenAI TPM rate limit",
    "Rate limit reached for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Used 25000, Requested 8000. Please try again in 6.0s.",
  ],
  [
    "OpenAI TPM request too large",
    "429 Request too large for gpt-4o in organization org-abc on tokens per min (TPM): Limit 30000, Requested 36278. The input or output tokens must be reduced in order to run successfully.",
  ],
  [
    "Groq TPM request too large",
    '{"error":{"message":"Request too large for model `llama-3.3-70b-versatile` in organization `org_01` service tier `on_demand` on tokens per minute (TPM): Limit 6000, Requested 14810, please reduce your message size and try again.","type":"tokens","code":"rate_limit_exceeded"}}',
  ],
  ["Amazon Bedrock throttle", "ThrottlingException: Too many tokens, please wait before trying again."],
  ["OpenAI quota", "429 You exceeded your current quota, please check your plan and billing details."],
  ["Anthropic overloaded", '529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'],
  [
    "Anthropic auth",
    '401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
  ],
  [
    "OpenAI auth",
    "401 Incorrect API key provided: sk-abc. You can find your API key at https://platform.openai.com.",
  ],
  [
    "Anthropic max_tokens",
    '400 {"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 128001 > 64000, which is the maximum allowed number of output tokens for claude-opus-4-5-20251101"}}',
  ],
  [
    "OpenAI max_tokens",
    "400 max_tokens is too large: 20480. This model supports at most 16384 completion tokens, whereas you provided 20480.",
  ],
  [
    "OpenAI max_tokens minimum",
    "Invalid 'max_tokens': integer below minimum value. Expected a value >= 1, but got 0 instead.",
  ],
  ["network", "fetch failed"],
  ["server", "500 Internal Server Error"],
  ["empty", ""],
];

describe("isContextOverflowText", () => {
  it.each(OVERFLOW_TEXTS)("recognizes %s", (_provider, text) => {
    expect(isContextOverflowText(text)).toBe(true);
  });

  it.each(NOT_OVERFLOW_TEXTS)("rejects %s", (_kind, text) => {
    expect(isContextOverflowText(text)).toBe(false);
  });
});

describe("OVERFLOW_PATTERNS", () => {
  it("names a provider for every pattern and is frozen", () => {
    expect(OVERFLOW_PATTERNS.length).toBeGreaterThan(10);
    for (const entry of OVERFLOW_PATTERNS) {
      expect(entry.provider.length).toBeGreaterThan(0);
      expect(entry.pattern.flags).toContain("i");
    }
    expect(Object.isFrozen(OVERFLOW_PATTERNS)).toBe(true);
  });

  it("has every pattern matched by at least one sample text", () => {
    for (const entry of OVERFLOW_PATTERNS) {
      const matched = OVERFLOW_TEXTS.some(([, text]) => entry.pattern.test(text));
      expect(matched, `${entry.provider}: ${entry.pattern}`).toBe(true);
    }
  });
});

describe("isContextOverflow", () => {
  it("is true for an error message carrying overflow text", () => {
    expect(isContextOverflow(message("error", "prompt is too long: 213462 tokens > 200000 maximum"))).toBe(
      true,
    );
    expect(isContextOverflow(message("error", "prompt is too long: 1 tokens > 0 maximum"), 200_000)).toBe(
      true,
    );
  });

  it("is false for an error message with other text or none", () => {
    expect(isContextOverflow(message("error", "429 Too Many Requests"))).toBe(false);
    expect(isContextOverflow(message("error", "rate_limit_error: tokens per minute exceeded"))).toBe(false);
    expect(isContextOverflow(message("error"))).toBe(false);
  });

  it("ignores overflow text on messages that are not errors", () => {
    expect(isContextOverflow(message("stop", "prompt is too long: 213462 tokens > 200000 maximum"))).toBe(
      false,
    );
    expect(isContextOverflow(message("aborted", "context_length_exceeded"))).toBe(false);
    const withContent = message("stop");
    withContent.content = [
      { type: "text", text: "The API said: prompt is too long: 213462 tokens > 200000 maximum" },
    ];
    expect(isContextOverflow(withContent)).toBe(false);
    expect(isContextOverflow(withContent, 200_000)).toBe(false);
  });

  it("detects a silent overflow when the prompt exceeds the given context window", () => {
    expect(isContextOverflow(message("stop", undefined, { input: 130_000, output: 10 }), 128_000)).toBe(true);
    expect(
      isContextOverflow(message("length", undefined, { input: 100_000, cacheRead: 30_000 }), 128_000),
    ).toBe(true);
    expect(
      isContextOverflow(message("toolUse", undefined, { input: 120_000, cacheRead: 8_001 }), 128_000),
    ).toBe(true);
  });

  it("counts cache writes as part of the prompt", () => {
    expect(
      isContextOverflow(message("stop", undefined, { input: 100_000, cacheWrite: 30_000 }), 128_000),
    ).toBe(true);
  });

  it("is not a silent overflow at or below the context window", () => {
    expect(
      isContextOverflow(message("stop", undefined, { input: 100_000, cacheRead: 28_000 }), 128_000),
    ).toBe(false);
    expect(isContextOverflow(message("stop", undefined, { input: 1000, output: 200_000 }), 128_000)).toBe(
      false,
    );
  });

  it("needs a usable context window to detect a silent overflow", () => {
    const large = message("stop", undefined, { input: 10_000_000 });
    expect(isContextOverflow(large)).toBe(false);
    expect(isContextOverflow(large, 0)).toBe(false);
    expect(isContextOverflow(large, Number.NaN)).toBe(false);
    expect(isContextOverflow(large, -1)).toBe(false);
  });

  it("never reports a silent overflow for aborted or error messages", () => {
    expect(isContextOverflow(message("aborted", undefined, { input: 500_000 }), 128_000)).toBe(false);
    expect(isContextOverflow(message("error", "fetch failed", { input: 500_000 }), 128_000)).toBe(false);
  });
});
