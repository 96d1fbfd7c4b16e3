/**
 * What `createAppRuntime()` does with extensions and MCP servers: loads the extensions (unless turned off),
 * and lets a provider an extension registered answer `--provider`/`--model` (the MCP servers: mcp-servers.ts).
 * Every failure is one warning line; none fails the runtime.
 */
import type { Model, Provider } from "@arbor/ai-providers";
import { ArborUserError } from "../errors.js";
import type { ProviderFlags } from "../provider-choice.js";
import type { Settings } from "../settings.js";
import { TOOL_NAMES } from "../tool-names.js";
import { type ExtensionFailure, ExtensionHost } from "./extension-host.js";
import { discoverExtensions } from "./extension-loader.js";
import type { ExtensionTimeoutSettings } from "./extension-timeouts.js";

/** One line for a failure: `extension <file> failed to load: …` or `extension <file>, hook <hook>: …`. */
export function describeExtensionFailure(failure: ExtensionFailure): string {
  return failure.hook === "load"
    ? `extension ${failure.path} failed to load: ${failure.message}`
    : `extension ${failure.path}, ${failure.hook}: ${failure.message}`;
}

/** Options of {@link loadRuntimeExtensions}. */
export interface RuntimeExtensionOptions {
  cwd: string;
  home: string;
  /** `--extension` paths; `false` (`--no-extensions`): none, not even the directories' files. */
  extensions?: readonly string[] | false;
  /** `extensionTimeouts` of the settings. */
  timeouts?: ExtensionTimeoutSettings;
  warn: (message: string) => void;
}

/**
 * Loads the extensions of `<home>/extensions/`, `<cwd>/.arbor/extensions/` and the given paths.
 *
 * Contract: never rejects for an extension's fault; each failure is warned as one line.
 */
export async function loadRuntimeExtensions(options: RuntimeExtensionOptions): Promise<ExtensionHost> {
  const hostOptions = {
    cwd: options.cwd,
    home: options.home,
    reservedToolNames: TOOL_NAMES,
    ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
    onFailure: (failure: ExtensionFailure) => options.warn(describeExtensionFailure(failure)),
    onUnhandledNotice: (notice: { message: string }) => options.warn(notice.message),
  };
  if (options.extensions === false) return ExtensionHost.empty(hostOptions);
  const sources = discoverExtensions({
    home: options.home,
    cwd: options.cwd,
    paths: options.extensions ?? [],
  });
  if (sources.length === 0) return ExtensionHost.empty(hostOptions);
  return ExtensionHost.load(sources, hostOptions);
}

function findModel(provider: Provider, modelId: string): Model | undefined {
  return provider.models.find((model) => model.id === modelId) ?? provider.resolveModel?.(modelId);
}

/**
 * The provider and model when the flags (else the settings) name a provider an extension registered.
 *
 * Contract: `undefined` when they name none (or replay a cassette); throws `ArborUserError`
 * (`unknown_model`) for a model that provider does not know.
 */
export function extensionProviderChoice(
  providers: ReadonlyMap<string, Provider>,
  flags: ProviderFlags,
  settings: Settings,
): { provider: Provider; model: Model } | undefined {
  if (providers.size === 0 || flags.replay !== undefined) return undefined;
  const fromFlags = flags.provider !== undefined || flags.model !== undefined;
  const providerName = fromFlags ? flags.provider : settings.provider;
  const modelName = fromFlags ? flags.model : settings.model;
  const slash = modelName?.indexOf("/") ?? -1;
  const name = providerName ?? (slash > 0 ? modelName!.slice(0, slash) : undefined);
  const provider = name === undefined ? undefined : providers.get(name);
  if (provider === undefined) return undefined;
  const modelId =
    modelName === undefined
      ? provider.models[0]?.id
      : slash > 0 && modelName.startsWith(`${name}/`)
        ? modelName.slice(slash + 1)
        : modelName;
  const model = modelId === undefined ? undefined : findModel(provider, modelId);
  if (model === undefined) {
    const known = provider.models.map((item) => item.id).join(", ") || "(none)";
    throw new ArborUserError(
      "unknown_model",
      `The provider "${name}" (from an extension) has no model "${modelId ?? ""}". Models: ${known}.`,
    );
  }
  return { provider, model };
}
