/**
 * What an app passes so that app-runtime never imports a concrete provider or store: for each provider and
 * store backend, a function that loads its package (`() => import("@arbor/provider-anthropic")`). A package
 * is loaded only when a run uses it, so naming every factory costs nothing at start-up.
 */
import type { Provider } from "@arbor/ai-providers";
import type { SessionStore } from "@arbor/session-store";

/** The settings app-runtime passes to `createAnthropicProvider` (a subset of the package's own). */
export interface AnthropicProviderFactorySettings {
  id?: string;
  apiKey?: string;
  baseURL?: string;
  headers?: Record<string, string>;
  models?: Provider["models"];
  listCatalog?: boolean;
  streamIdleTimeoutMs?: number;
}

/** The part of `@arbor/provider-anthropic` app-runtime uses. */
export interface AnthropicProviderModule {
  createAnthropicProvider(settings?: AnthropicProviderFactorySettings): Provider;
}

/** The settings app-runtime passes to `createOpenAIProvider` (a subset of the package's own). */
export interface OpenAIProviderFactorySettings {
  id?: string;
  preset?: string;
  baseURL?: string;
  apiKey?: string;
  api?: "chat" | "responses";
  /** Overrides of the preset's compatibility switches (`OpenAICompat` of `@arbor/provider-openai`). */
  compat?: Record<string, unknown>;
  models?: Provider["models"];
  headers?: Record<string, string>;
  streamIdleTimeoutMs?: number;
}

/** The part of `@arbor/provider-openai` app-runtime uses. */
export interface OpenAIProviderModule {
  createOpenAIProvider(settings?: OpenAIProviderFactorySettings): Provider;
}

/** The part of `@arbor/app-runtime/demo` (or any offline model) `--provider scripted` uses. */
export interface ScriptedProviderModule {
  createDemoProvider(): Provider;
}

/**
 * Loaders of the provider packages a front end offers, by kind. A kind without a loader is refused with a
 * message naming it (e.g. a web demo that offers only `scripted`).
 */
export interface ProviderFactories {
  /** `() => import("@arbor/provider-anthropic")`: Anthropic and the `"api": "anthropic"` providers of `models.json`. */
  anthropic?: () => Promise<AnthropicProviderModule>;
  /** `() => import("@arbor/provider-openai")`: OpenAI, its presets and the custom providers of `models.json`. */
  openai?: () => Promise<OpenAIProviderModule>;
  /** `() => import("@arbor/app-runtime/demo")`: the offline scripted demo model. */
  scripted?: () => Promise<ScriptedProviderModule>;
}

/** A JSONL store as app-runtime uses it (the class of `@arbor/session-store-jsonl`). */
export interface JsonlStoreModule {
  JsonlSessionStore: (new (options: {
    home: string;
    readOnly?: boolean;
  }) => SessionStore) & {
    /** Opens any session file (e.g. a pi agent file) as a store of its own; read-only never writes or locks. */
    openFile(
      path: string,
      options?: { readOnly?: boolean },
    ): Promise<{ store: SessionStore; sessionId: string; path: string }>;
  };
}

/** Where an SQLite store lives, as a store URL names it (`sqlite:FILE`). */
export interface SqliteStoreLocation {
  /** The database file, as written (`:memory:` included). */
  path: string;
  readOnly: boolean;
}

/** Where a PostgreSQL store lives, as a store URL names it (`postgres://…`). */
export interface PostgresStoreLocation {
  /** The connection string, as given. */
  connectionString: string;
  readOnly: boolean;
}

/**
 * Loaders of the session store backends a front end offers, by the scheme of a store URL. A backend
 * without a loader is refused with `StoreBackendUnavailableError`, naming the URLs that work.
 */
export interface StoreFactories {
  /** `() => import("@arbor/session-store-jsonl")`: the default store (`jsonl:DIR`, or no URL). */
  jsonl?: () => Promise<JsonlStoreModule>;
  /**
   * Opens the store of `sqlite:FILE`.
   *
   * Contract: resolves to an open store (the caller closes it) or rejects with a message for the user.
   */
  sqlite?: (location: SqliteStoreLocation) => Promise<SessionStore>;
  /**
   * Opens the store of `postgres://…` / `postgresql://…`.
   *
   * Contract: resolves to an open store (the caller closes it) or rejects with a message for the user.
   */
  postgres?: (location: PostgresStoreLocation) => Promise<SessionStore>;
}
