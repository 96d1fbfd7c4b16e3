/**
 * The providers and stores the demo offers, as `@arbor/app-runtime` factories: the same set as `arbor`
 * (Anthropic, OpenAI and OpenAI-compatible servers, the offline scripted model; the JSONL, SQLite and
 * PostgreSQL stores), each loaded only when a run uses it.
 */
import type { ProviderFactories, StoreFactories } from "@arbor/app-runtime";

/** The provider packages. */
export const DEMO_PROVIDERS: ProviderFactories = {
  anthropic: () => import("@arbor/provider-anthropic"),
  openai: () => import("@arbor/provider-openai"),
  scripted: () => import("@arbor/app-runtime/demo"),
};

/** The store backends (`--store jsonl:DIR`, `sqlite:FILE`, `postgres://…`). */
export const DEMO_STORES: StoreFactories = {
  jsonl: () => import("@arbor/session-store-jsonl"),
  sqlite: async ({ path, readOnly }) =>
    (await import("@arbor/session-store-sqlite")).openSqliteStore({ file: path, readOnly }),
  postgres: async ({ connectionString }) => {
    const { PostgresSessionStore } = await import("@arbor/session-store-postgres");
    const store = PostgresSessionStore.fromUrl(connectionString);
    await store.connect();
    return store;
  },
};
