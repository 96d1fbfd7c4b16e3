import { idleTimeoutFetch } from "@arbor/ai-providers";
import OpenAI from "openai";
import type { OpenAIPreset } from "./presets.js";
import type { OpenAIProviderSettings } from "./settings.js";
import { eventSplittingFetch } from "./sse-chunks.js";

/** Stands in for the key of a server that needs none (the Authorization header is then removed). */
const NO_KEY = "no-key";

/**
 * The API key of a request: the request's own, else the settings', else the preset's environment
 * variable (read now, so a key set after the provider was created still counts).
 */
export function resolveApiKey(
  settings: OpenAIProviderSettings,
  preset: OpenAIPreset,
  requestKey: string | undefined,
): string | undefined {
  const key = requestKey ?? settings.apiKey ?? (preset.apiKeyEnv ? process.env[preset.apiKeyEnv] : undefined);
  return key !== undefined && key.trim().length > 0 ? key : undefined;
}

/**
 * Builds and caches SDK clients, one per API key. The SDK's own retries are off (the retry policy of
 * @arbor/ai-providers applies instead), its logging is silenced (failures become stream data), its
 * fetch hands event streams over one event per chunk (see `sse-chunks.ts`), and the base URL and key are
 * always the provider's (`OPENAI_BASE_URL` is read once, by `createOpenAIProvider`).
 */
export class ClientCache {
  private readonly clients = new Map<string, OpenAI>();

  constructor(
    private readonly baseURL: string,
    private readonly preset: OpenAIPreset,
    private readonly settings: OpenAIProviderSettings,
  ) {}

  /**
   * The client for a key (`undefined`: no Authorization header at all) and a stream idle limit in ms (`0`:
   * none; see `idleTimeoutFetch` of @arbor/ai-providers).
   */
  get(apiKey: string | undefined, idleMs = 0): OpenAI {
    const cacheKey = `${idleMs}\n${apiKey ?? ""}`;
    let client = this.clients.get(cacheKey);
    if (client === undefined) {
      const isOpenAI = this.preset.name === "openai";
      const defaultHeaders: Record<string, string | null> = { ...this.settings.headers };
      if (apiKey === undefined) defaultHeaders.Authorization = null;
      client = new OpenAI({
        apiKey: apiKey ?? NO_KEY,
        baseURL: this.baseURL,
        organization: this.settings.organization ?? (isOpenAI ? (process.env.OPENAI_ORG_ID ?? null) : null),
        project: this.settings.project ?? (isOpenAI ? (process.env.OPENAI_PROJECT_ID ?? null) : null),
        maxRetries: 0,
        timeout: this.settings.timeoutMs,
        defaultHeaders,
        logLevel: "off",
        fetch: eventSplittingFetch(idleTimeoutFetch((input, init) => globalThis.fetch(input, init), idleMs)),
      });
      if (this.clients.size >= 8) this.clients.clear();
      this.clients.set(cacheKey, client);
    }
    return client;
  }
}
