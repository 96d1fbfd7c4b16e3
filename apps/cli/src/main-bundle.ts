/**
 * The entry of the CLI's CommonJS bundle (`dist/arbor-main.cjs`, loaded by `bin.ts`): `main`, and the hook
 * through which the bin imports the ES-module-only packages for it.
 */
export { setEsmImporter } from "./esm-externals.js";
export { main } from "./main.js";
