/**
 * The environment the coding tools run in: the user's, without the variables that hold the API keys Arbor
 * uses (the built-in providers' and every `apiKeyEnv` of `models.json`), so that a model running `env` in
 * the bash tool cannot read a key into a tool result, which the session would then store. The setting
 * `shareKeysWithTools: true` (or the runtime option of that name) keeps them.
 */
import type { CustomProviderEntry } from "./models-file.js";

/** The variables the built-in providers read their keys from. */
export const PROVIDER_KEY_VARIABLES: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "OPENROUTER_API_KEY",
  "GROQ_API_KEY",
  "DEEPSEEK_API_KEY",
  "VLLM_API_KEY",
];

/** The key variables of the built-in providers and of `models.json`'s providers, each once, sorted. */
export function keyVariableNames(customProviders: Readonly<Record<string, CustomProviderEntry>>): string[] {
  const names = new Set(PROVIDER_KEY_VARIABLES);
  for (const entry of Object.values(customProviders)) {
    if (entry.apiKeyEnv !== undefined) names.add(entry.apiKeyEnv);
  }
  return [...names].sort();
}

/**
 * The bash tool's `env` option that removes each of `names` from the inherited environment (a variable
 * mapped to `undefined` is removed).
 */
export function withoutVariables(names: readonly string[]): Record<string, undefined> {
  return Object.fromEntries(names.map((name) => [name, undefined]));
}
