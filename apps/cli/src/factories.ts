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
 * The store backends: the JSONL store. `sqlite:` and `postgres://` are refused with a clear message until
 * their packages are added here.
 */
export const STORE_FACTORIES: StoreFactories = {
  jsonl: () => import("@arbor/session-store-jsonl"),
};

/** The renderers of `/export` (`exportSession`). */
export const EXPORTERS: SessionExporters = {
  html: async ({ session, location }) => (await import("./export/html.js")).exportHtml(session, { location }),
  md: async ({ session }) =>
    (await import("./export/markdown.js")).exportMarkdown(session, { leafId: session.leafId }),
  jsonl: async ({ session, store }) =>
    (await (await import("./export/jsonl.js")).exportJsonl(store, session.id)).text,
};
