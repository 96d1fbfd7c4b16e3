/**
 * `@arbor/app-runtime/extensions` — how the runtime hosts extensions, for a front end or a tool that loads
 * them itself: the {@link ExtensionHost}, the loader (discover, compile, evaluate, import), the hook
 * timeouts and the MCP servers started beside them. `createAppRuntime()` does all of this already; the
 * types an extension's author imports (`ExtensionApi`, `ExtensionFactory`, …) are on the main entry.
 */

export {
  type ExtensionBinding,
  type ExtensionFailure,
  ExtensionHost,
  type ExtensionHostOptions,
  type LoadedExtension,
} from "./extension-host.js";
export {
  type CompiledExtension,
  compileExtension,
  discoverExtensions,
  type ExtensionOrigin,
  type ExtensionSource,
  evaluateExtension,
  importExtension,
} from "./extension-loader.js";
export {
  DEFAULT_EXTENSION_TIMEOUTS,
  type ExtensionTimeoutSettings,
  type ExtensionTimeouts,
  ExtensionTimeoutsSchema,
  extensionName,
  extensionTimeoutsFor,
  SUMMARY_HOOKS,
} from "./extension-timeouts.js";
export {
  type McpConnections,
  type McpServerReport,
  type McpServerSettings,
  startMcpServers,
} from "./mcp-servers.js";
export {
  describeExtensionFailure,
  extensionProviderChoice,
  loadRuntimeExtensions,
  type RuntimeExtensionOptions,
} from "./runtime-extensions.js";
