/**
 * The concrete providers, stores and exporters `arbor` offers, as the factories `@arbor/app-runtime` takes.
 * This is the one place where the CLI chooses them; each package is loaded only when a run uses it.
 */
import type { ProviderFactories, SessionExporters, StoreFactories } from "@arbor/app-runtime";

/** The provider packages: Anthropic, OpenAI (and every OpenAI-compatible server), the offline demo model. */
export const PROVIDER_FACTORIES: ProviderFactories = {
  anthropic: () => import("@arbor/provider-anthropic"),
  openai: () => import("@arbor/provider-openai"),
  scripted: () => import("@arbor/app-runtime/demo"),
};

/**
 * The store backends: the JSONL store (the default), one SQLite file (`sqlite:FILE`) and PostgreSQL
 * (`postgres://…`). A SQLite file opened to read (`readOnly`) is never created or written.
 */
export const STORE_FACTORIES: StoreFactories = {
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

/** The renderers of `/export` (`exportSession`). */
export const EXPORTERS: SessionExporters = {
  html: async ({ session, location }) =>
    (await import("@arbor/session-view")).exportHtml(session, { location }),
  md: async ({ session }) =>
    (await import("@arbor/session-view")).exportMarkdown(session, { leafId: session.leafId }),
  jsonl: async ({ session, store }) =>
    (await (await import("@arbor/session-view")).exportJsonl(store, session.id)).text,
};
