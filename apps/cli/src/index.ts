/**
 * @arbor/cli — `arbor`, the Arbor command line: wiring and rendering only, every capability comes from the
 * packages. The bin is `dist/arbor.js` (a bundle of `src/cli.ts`); this entry point exposes the same pieces for programs that embed the
 * CLI or drive its runtime (tests, editors, wrappers).
 */
import { createRequire } from "node:module";

export { ArborCliError, type ArborCliErrorCode } from "./errors.js";
export { type CliInput, type CliIo, type CliOutput, processIo } from "./io.js";
export { main } from "./main.js";
export { ModelsFileSchema } from "./models-file.js";
export { JSON_EVENT_SCHEMA_VERSION, JsonEventWriter, type JsonRecord } from "./modes/json-events.js";
export { RPC_COMMANDS, type RpcCommand } from "./modes/rpc-commands.js";
export { chooseProvider, type ProviderChoice, type ProviderChoiceInputs } from "./provider-choice.js";
export type { CliRuntime } from "./runtime.js";
export { type ArborRuntime, type CreateRuntimeOptions, createRuntime } from "./runtime-factory.js";
export { createDemoProvider, demoModel } from "./scripted/demo-model.js";
export { type Settings, SettingsSchema } from "./settings.js";

/** The package version (read from its package.json). */
export const VERSION: string = (createRequire(import.meta.url)("../package.json") as { version: string })
  .version;
