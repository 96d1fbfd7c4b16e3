/**
 * @arbor/provider-anthropic — the Anthropic Messages API as an Arbor `Provider`, through
 * `@anthropic-ai/sdk`: streaming text, tool calls and thinking, prompt caching, the Claude catalog,
 * errors as data and retries with the policy of `@arbor/ai-providers`.
 */

export { createAnthropicProvider } from "./provider.js";
export type { AnthropicProviderSettings } from "./settings.js";
export { VERSION } from "./version.js";
