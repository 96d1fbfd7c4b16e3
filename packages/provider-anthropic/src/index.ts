/**
 * @arbor/provider-anthropic — the Anthropic Messages API as an Arbor `Provider`, through
 * `@anthropic-ai/sdk`: streaming text, tool calls and thinking, prompt caching, the Claude catalog,
 * errors as data and retries with the policy of `@arbor/ai-providers`.
 */

import { createRequire } from "node:module";

export { createAnthropicProvider } from "./provider.js";
export type { AnthropicProviderSettings } from "./settings.js";

/** The package version (read from its package.json). */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;
