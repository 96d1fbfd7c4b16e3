/**
 * The environment the coding tools run in: the user's, without the variables that hold the API keys Arbor
 * knows of, so that a model running `env` in the bash tool cannot read a key into a tool result, which the
 * session would then store. The setting `shareKeysWithTools: true` (or the runtime option of that name)
 * keeps them.
 *
 * There is one list, {@link keyVariableNames}, fed by every source of providers: the built-in providers'
 * variables, every `apiKeyEnv` of `models.json`, and the `credentials.apiKeyEnv` of every `Provider` object
 * the run holds — those an extension registered and whatever the runtime's registry holds, read again at
 * each command ({@link withoutVariables} given a function), so a provider registered later, by any source,
 * is left out too.
 */
import type { Provider } from "@arbor/ai-providers";
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

/**
 * The key variables of the built-in providers, of `models.json`'s providers and of the given `Provider`
 * objects (their `credentials.apiKeyEnv`), each once, sorted.
 *
 * Contract: pure; a provider without `credentials` (or without `apiKeyEnv`) adds nothing.
 */
export function keyVariableNames(
  customProviders: Readonly<Record<string, CustomProviderEntry>>,
  providers: Iterable<Pick<Provider, "credentials">> = [],
): string[] {
  const names = new Set(PROVIDER_KEY_VARIABLES);
  for (const entry of Object.values(customProviders)) {
    if (entry.apiKeyEnv !== undefined) names.add(entry.apiKeyEnv);
  }
  for (const provider of providers) {
    const variable = provider.credentials?.apiKeyEnv;
    if (typeof variable === "string" && variable !== "") names.add(variable);
  }
  return [...names].sort();
}

/**
 * The bash tool's `env` option that removes each of `names` from the inherited environment (a variable
 * mapped to `undefined` is removed). Given a function, the record is live: each command reads the names
 * again (the tool lists the record's entries when it starts a command).
 */
export function withoutVariables(
  names: readonly string[] | (() => readonly string[]),
): Record<string, undefined> {
  if (typeof names !== "function") return Object.fromEntries(names.map((name) => [name, undefined]));
  const has = (key: string | symbol) => typeof key === "string" && names().includes(key);
  return new Proxy({} as Record<string, undefined>, {
    ownKeys: () => [...names()],
    has: (_target, key) => has(key),
    getOwnPropertyDescriptor: (_target, key) =>
      has(key) ? { value: undefined, enumerable: true, configurable: true, writable: false } : undefined,
    get: () => undefined,
  });
}
