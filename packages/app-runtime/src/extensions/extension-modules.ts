/**
 * The packages an extension may import without installing them: TypeBox and Arbor's own packages, handed to
 * it as the runtime's own copies (jiti's virtual modules). So `import { Type } from "@sinclair/typebox"` in
 * `~/.arbor/extensions/x.ts` works from any install — a global `npm i -g @arbor/cli` included, where nothing
 * beside the extension could resolve them — and the extension's values are the runtime's (one TypeBox, one
 * `ArborError`).
 */

/** The module ids an extension gets from the runtime, whatever is installed beside it. */
export const EXTENSION_MODULE_IDS = [
  "@sinclair/typebox",
  "@sinclair/typebox/value",
  "@arbor/ai-providers",
  "@arbor/agent-core",
  "@arbor/session-store",
  "@arbor/compaction",
  "@arbor/harness",
  "@arbor/coding-tools",
  "@arbor/session-view",
  "@arbor/app-runtime",
] as const;

/**
 * Loads the modules of {@link EXTENSION_MODULE_IDS}, by id (jiti's `virtualModules`).
 *
 * Contract: loads each once per call; rejects only when one of the runtime's own packages cannot load.
 */
export async function loadExtensionModules(): Promise<Record<string, unknown>> {
  const modules = await Promise.all([
    import("@sinclair/typebox"),
    import("@sinclair/typebox/value"),
    import("@arbor/ai-providers"),
    import("@arbor/agent-core"),
    import("@arbor/session-store"),
    import("@arbor/compaction"),
    import("@arbor/harness"),
    import("@arbor/coding-tools"),
    import("@arbor/session-view"),
    import("../index.js"),
  ]);
  return Object.fromEntries(EXTENSION_MODULE_IDS.map((id, index) => [id, modules[index]]));
}
