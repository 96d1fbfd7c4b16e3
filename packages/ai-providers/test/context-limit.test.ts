import { describe, expect, it } from "vitest";
import { parseContextLimit, parseRequestedTokens } from "../src/index.js";

describe("parseContextLimit", () => {
  it.each([
    ["prompt is too long: 213462 tokens > 200000 maximum", 200_000],
    ["input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input", 204_648],
    [
      "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens (8000 in the messages, 1000 in the completion).",
      8192,
    ],
    [
      "This endpoint's maximum context length is 32,768 tokens. However, you requested about 42832 tokens",
      32_768,
    ],
    ["The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).", 1_048_576],
    ["This model's maximum prompt length is 131072 but the request contains 136973 tokens.", 131_072],
    ["request (4476 tokens) exceeds the available context size (4096 tokens), try increasing it", 4096],
    ["The decoder prompt (length 9254) is longer than the maximum model length of 4096.", 4096],
    ["The prompt (total length 25938) is too long to fit into the model (context length 4096).", 4096],
    ["Input length (265330) exceeds model's maximum context length (262144).", 262_144],
    ["The input (5000 tokens) is longer than the model's context length (4096 tokens).", 4096],
    ["prompt token count of 200000 exceeds the limit of 128000", 128_000],
    ["Your request exceeded model token limit: 262144 (requested: 291351)", 262_144],
  ])("reads the limit of %s", (text, limit) => {
    expect(parseContextLimit(text)).toBe(limit);
  });

  it("returns undefined for an overflow without a limit and for texts that are no overflow", () => {
    expect(parseContextLimit("context_length_exceeded")).toBeUndefined();
    expect(parseContextLimit("Your input exceeds the context window of this model.")).toBeUndefined();
    expect(
      parseContextLimit(
        "Rate limit reached on tokens per min (TPM): Limit 30000, Used 25000, Requested 8000",
      ),
    ).toBeUndefined();
    expect(parseContextLimit("maximum context length is 0 tokens")).toBeUndefined();
    expect(parseContextLimit("")).toBeUndefined();
  });
});

describe("parseRequestedTokens", () => {
  it.each([
    ["prompt is too long: 213,462 tokens > 200000 maximum", 213_462],
    ["This model's maximum context length is 8192 tokens. However, you requested 9000 tokens.", 9000],
    [
      "This model's maximum context length is 4096 tokens. However, your messages resulted in 4500 tokens.",
      4500,
    ],
    ["input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000", 198_000],
  ])("reads the refused request's size from %j", (text, size) => {
    expect(parseRequestedTokens(text)).toBe(size);
  });

  it("returns undefined when the overflow states no size, and for texts that are no overflow", () => {
    expect(parseRequestedTokens("context_length_exceeded")).toBeUndefined();
    expect(parseRequestedTokens("you requested 9000 tokens of quota")).toBeUndefined();
  });
});
