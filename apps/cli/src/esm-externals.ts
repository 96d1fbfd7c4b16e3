/**
 * The ES-module-only packages the interactive UI imports (ink, whose layout engine loads with a top-level
 * `await`, and ink-spinner), for the CommonJS bundle of the CLI: `require` cannot load such a package, and
 * code compiled from a code cache cannot `import()`. So the bin passes an importer (`setEsmImporter`), the
 * interactive mode imports the packages through it before its modules load (`preloadEsmExternals`), and
 * the bundle's `ink` and `ink-spinner` are stand-ins that read what was imported (`esmExternal`; see
 * scripts/bundle.mjs). Run from source, no importer is set and the UI imports the packages itself.
 */

/** The packages the bundle takes from `preloadEsmExternals` instead of `require`. */
export const ESM_EXTERNALS = ["ink", "ink-spinner"] as const;

/** One of {@link ESM_EXTERNALS}. */
export type EsmExternal = (typeof ESM_EXTERNALS)[number];

let importer: ((name: EsmExternal) => Promise<unknown>) | undefined;
const imported = new Map<string, unknown>();

/**
 * Sets the function that imports a package for the bundle (the bin's own `import()`).
 *
 * Contract: called once, before `main` runs; `importEsm` resolves to the named package's module namespace.
 */
export function setEsmImporter(importEsm: (name: EsmExternal) => Promise<unknown>): void {
  importer = importEsm;
}

/** Imports {@link ESM_EXTERNALS} through the importer, when one is set (in the bundle); otherwise nothing. */
export async function preloadEsmExternals(): Promise<void> {
  if (importer === undefined) return;
  for (const name of ESM_EXTERNALS) if (!imported.has(name)) imported.set(name, await importer(name));
}

/** The namespace of a preloaded package; throws when `preloadEsmExternals` has not imported it. */
export function esmExternal(name: EsmExternal): Record<string, unknown> {
  const namespace = imported.get(name);
  if (namespace === undefined)
    throw new Error(`internal: ${name} is used before preloadEsmExternals() imported it`);
  return namespace as Record<string, unknown>;
}
