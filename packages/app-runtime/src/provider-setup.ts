/**
 * {@link setUpProvider}: the provider and model a run talks to, from the user's flags, `settings.json`,
 * `models.json`, the keys in the environment and a local server (see `provider-choice.ts`), loaded through
 * the app's provider factories — and a loader for any other provider by id, with the same settings.
 */
import type { Provider } from "@arbor/ai-providers";
import type { ProviderFactories } from "./factories.js";
import type { Environment } from "./home.js";
import type { ModelLimits } from "./model-limits.js";
import { type CustomProviderEntry, loadModelsFile } from "./models-file.js";
import { chooseProvider, type ProviderChoice, type ProviderFlags } from "./provider-choice.js";
import { type LoadedProvider, loadProvider, prepareProvider } from "./providers.js";
import { type LoadedSettings, loadSettings } from "./settings.js";

/** Options of {@link setUpProvider}. */
export interface ProviderSetupOptions {
  cwd: string;
  env: Environment;
  /** The Arbor home (`settings.json`, `models.json`). */
  home: string;
  /** The provider packages the app offers. */
  providers: ProviderFactories;
  /** The provider and model as the user named them (`--provider`, `--model`, `--base-url`, …). */
  flags?: ProviderFlags;
  /** `--record FILE`: append every interaction to this cassette. */
  record?: string;
  /** The settings, when the caller has loaded them already (default: read from `home` and `cwd`). */
  settings?: LoadedSettings;
  /** The provider is loaded during a session (`/model other/id`): see `ProviderChoice.inSession`. */
  inSession?: boolean;
  /**
   * Receives notes for the user (a model that is not in the catalog, with the limits it is used with).
   *
   * Contract: must not throw.
   */
  onNotice?: (message: string) => void;
}

/** What {@link setUpProvider} found and loaded. */
export interface ProviderSetup {
  settings: LoadedSettings;
  customProviders: Readonly<Record<string, CustomProviderEntry>>;
  /** `modelLimits` of `models.json`, then of the settings (whose entries win). */
  modelLimits: ModelLimits;
  choice: ProviderChoice;
  loaded: LoadedProvider;
  /**
   * Loads another provider by id (for `/model other/id`), with the same settings and keys; `models.json` is
   * read again for an id it did not name at the start.
   *
   * Contract: rejects with a user error when the id names no provider the app offers or has no key.
   */
  loadById(providerId: string): Promise<Provider>;
}

/** The merged `modelLimits`: the models file's, then the settings' over them. */
export function mergedModelLimits(fromFile: ModelLimits, settings: LoadedSettings): ModelLimits {
  return { ...fromFile, ...settings.settings.modelLimits };
}

/**
 * Loads the settings and `models.json`, chooses the provider and loads it with its model.
 *
 * Contract: throws `ArborUserError` for an invalid settings or models file, no provider to talk to, an
 * unknown model or a provider the app offers no factory for; sends a request only to probe a local server
 * or list its models.
 */
export async function setUpProvider(options: ProviderSetupOptions): Promise<ProviderSetup> {
  const { env, home, providers } = options;
  const settings = options.settings ?? loadSettings(home, options.cwd);
  const modelsFile = loadModelsFile(home);
  const customProviders = modelsFile.providers;
  const modelLimits = mergedModelLimits(modelsFile.modelLimits, settings);
  const idle = settings.settings.streamIdleTimeoutMs;
  const common = {
    env,
    providers,
    modelLimits,
    ...(idle === undefined ? {} : { streamIdleTimeoutMs: idle }),
    ...(options.onNotice === undefined ? {} : { onNotice: options.onNotice }),
  };
  const choice = await chooseProvider({ flags: options.flags ?? {}, settings, customProviders, env });
  if (options.inSession === true) choice.inSession = true;
  const loaded = await loadProvider(choice, {
    ...common,
    ...(options.record === undefined ? {} : { record: options.record }),
  });
  const loadById = async (providerId: string) => {
    // models.json read again: a provider added since the start loads too.
    const current = Object.hasOwn(customProviders, providerId)
      ? customProviders
      : loadModelsFile(home).providers;
    const other = await chooseProvider({
      flags: { provider: providerId },
      settings,
      customProviders: current,
      env,
    });
    return prepareProvider({ ...other, explicit: true, inSession: true }, common);
  };
  return { settings, customProviders, modelLimits, choice, loaded, loadById };
}
