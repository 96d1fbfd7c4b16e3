/**
 * Which provider and model a run talks to, decided in this order:
 *
 * 1. flags: `--replay FILE`, `--provider`, `--model provider/id`, `--base-url`;
 * 2. settings: `provider`, `model`, `baseUrl` of `~/.arbor/settings.json` then `.arbor/settings.json`;
 * 3. environment: `ANTHROPIC_API_KEY` (Anthropic), then `OPENAI_API_KEY` (OpenAI);
 * 4. a local OpenAI-compatible server answering on `127.0.0.1:11434` (Ollama's port; another URL with
 *    `ARBOR_LOCAL_SERVER_URL`), probed with a short timeout;
 * 5. otherwise an {@link ArborUserError} (`no_provider`) listing the choices.
 *
 * This module only decides; `providers.ts` loads the SDKs. It imports no provider package.
 */
import { request } from "node:http";
import { ArborUserError } from "./errors.js";
import type { Environment } from "./home.js";
import type { CustomProviderEntry } from "./models-file.js";
import type { LoadedSettings } from "./settings.js";

/** The OpenAI-compatible presets of `@arbor/provider-openai` (a test keeps this list equal to `OPENAI_PRESETS`). */
export const OPENAI_PRESET_NAMES = [
  "openai",
  "ollama",
  "vllm",
  "llama-cpp",
  "lm-studio",
  "openrouter",
  "groq",
  "deepseek",
  "openai-compatible",
] as const;

/** An OpenAI-compatible preset name. */
export type OpenAIPresetId = (typeof OPENAI_PRESET_NAMES)[number];

/** The default model of each provider that has a catalog. */
export const DEFAULT_MODELS: Readonly<Record<string, string>> = {
  anthropic: "claude-sonnet-5-5",
  openai: "gpt-5.5",
  scripted: "demo",
};

/** The URL probed for a local OpenAI-compatible server when nothing else is configured. */
export const DEFAULT_LOCAL_SERVER_URL = "http://127.0.0.1:11434/v1";

/** Longest wait for the local server's answer. */
export const LOCAL_PROBE_TIMEOUT_MS = 400;

/** What kind of provider a choice loads. */
export type ProviderKind = "anthropic" | "openai" | "scripted" | "custom" | "replay";

/** The decided provider and model (nothing loaded yet). */
export interface ProviderChoice {
  kind: ProviderKind;
  /** The provider id; `undefined` for a bare `--base-url`, whose id the preset detected from the URL gives. */
  providerId: string | undefined;
  /** For `openai`: the preset (`undefined`: detected from `baseUrl`). */
  preset?: OpenAIPresetId;
  baseUrl?: string;
  /** From `--api-key` only (never from a file). */
  apiKey?: string;
  /** The model id within the provider; `undefined`: the provider's default (or the first discovered). */
  modelId?: string;
  /** For `custom`: its entry of `models.json`. */
  custom?: CustomProviderEntry;
  /** For `replay`: the cassette. */
  replayFile?: string;
  /** Where the choice came from, in words (`--provider`, `settings (/home/me/.arbor/settings.json)`, …). */
  source: string;
  /** True when flags chose the provider or model (then it wins over a resumed session's recorded model). */
  explicit: boolean;
  /**
   * True when the provider is loaded during a session (`/model other/id`), not at start: advice for a missing
   * key then names what to do from the session, not a start-up flag.
   */
  inSession?: boolean;
}

/** The flags that choose a provider. */
export interface ProviderFlags {
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  replay?: string;
}

/** What {@link chooseProvider} decides from. */
export interface ProviderChoiceInputs {
  flags: ProviderFlags;
  settings: LoadedSettings;
  customProviders: Readonly<Record<string, CustomProviderEntry>>;
  env: Environment;
  /**
   * Whether an OpenAI-compatible server answers at a base URL (default: {@link probeLocalServer}).
   *
   * Contract: resolves `true` or `false`, never rejects; returns within about {@link LOCAL_PROBE_TIMEOUT_MS}.
   */
  probe?: (baseUrl: string) => Promise<boolean>;
}

/** The provider names `--provider` accepts besides the custom ones. */
export function builtInProviderNames(): string[] {
  return ["anthropic", "scripted", ...OPENAI_PRESET_NAMES];
}

function isPreset(name: string): name is OpenAIPresetId {
  return (OPENAI_PRESET_NAMES as readonly string[]).includes(name);
}

function isKnownProvider(name: string, custom: ProviderChoiceInputs["customProviders"]): boolean {
  return Object.hasOwn(custom, name) || name === "anthropic" || name === "scripted" || isPreset(name);
}

/** A `provider/id` reference split when its provider part names a known provider. */
function splitModel(
  model: string | undefined,
  custom: ProviderChoiceInputs["customProviders"],
): { provider?: string; modelId?: string } {
  if (model === undefined) return {};
  const slash = model.indexOf("/");
  if (slash > 0 && isKnownProvider(model.slice(0, slash), custom)) {
    return { provider: model.slice(0, slash), modelId: model.slice(slash + 1) };
  }
  return { modelId: model };
}

/** A choice of a named provider. */
function named(
  name: string,
  inputs: ProviderChoiceInputs,
  fields: { modelId?: string; baseUrl?: string; source: string; explicit: boolean },
): ProviderChoice {
  const apiKey = inputs.flags.apiKey;
  const base = { ...fields, ...(apiKey === undefined ? {} : { apiKey }) };
  const custom = Object.hasOwn(inputs.customProviders, name) ? inputs.customProviders[name] : undefined;
  if (custom !== undefined) return { kind: "custom", providerId: name, custom, ...base };
  if (name === "anthropic") return { kind: "anthropic", providerId: name, ...base };
  if (name === "scripted") return { kind: "scripted", providerId: name, ...base };
  if (isPreset(name)) return { kind: "openai", providerId: name, preset: name, ...base };
  const known = [...builtInProviderNames(), ...Object.keys(inputs.customProviders)];
  throw new ArborUserError(
    "unknown_provider",
    `Unknown provider "${name}" (${fields.source}). Known providers: ${known.join(", ")}. ` +
      "Add others to ~/.arbor/models.json, or give --base-url for any OpenAI-compatible server.",
  );
}

/** The choice flags or settings make, if they make one. */
function configuredChoice(
  layer: { provider?: string; model?: string; baseUrl?: string },
  inputs: ProviderChoiceInputs,
  source: string,
  explicit: boolean,
): ProviderChoice | undefined {
  const fromModel = splitModel(layer.model, inputs.customProviders);
  let provider = layer.provider ?? fromModel.provider;
  if (layer.provider !== undefined && layer.model !== undefined) {
    // `--provider openrouter --model anthropic/claude-x`: the whole text is the model id, unless its
    // provider part repeats the provider.
    fromModel.modelId = fromModel.provider === layer.provider ? fromModel.modelId : layer.model;
  }
  if (provider === undefined && layer.baseUrl === undefined) return undefined;
  const fields = {
    ...(fromModel.modelId === undefined ? {} : { modelId: fromModel.modelId }),
    ...(layer.baseUrl === undefined ? {} : { baseUrl: layer.baseUrl }),
    source,
    explicit,
  };
  if (provider === undefined) {
    // A bare base URL: an OpenAI-compatible server; the preset comes from the URL.
    const apiKey = inputs.flags.apiKey;
    return { kind: "openai", providerId: undefined, ...fields, ...(apiKey === undefined ? {} : { apiKey }) };
  }
  provider = provider.trim();
  return named(provider, inputs, fields);
}

/**
 * Sends `GET <baseUrl>/models` and reports whether an OpenAI-compatible server answered with a success.
 *
 * Contract: never rejects; gives up after `timeoutMs` (default {@link LOCAL_PROBE_TIMEOUT_MS}).
 */
export function probeLocalServer(baseUrl: string, timeoutMs = LOCAL_PROBE_TIMEOUT_MS): Promise<boolean> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(`${baseUrl.replace(/\/+$/, "")}/models`);
    } catch {
      resolve(false);
      return;
    }
    if (url.protocol !== "http:") {
      resolve(false);
      return;
    }
    const probe = request(url, { method: "GET", timeout: timeoutMs, agent: false }, (response) => {
      response.resume();
      resolve((response.statusCode ?? 500) < 400);
    });
    probe.on("timeout", () => probe.destroy());
    probe.on("error", () => resolve(false));
    probe.end();
  });
}

/** The message listing every way to choose a provider. */
export function noProviderMessage(localServerUrl: string): string {
  return [
    "No model provider is configured. Choose one:",
    "  --provider anthropic     with ANTHROPIC_API_KEY set (or --api-key KEY)",
    "  --provider openai        with OPENAI_API_KEY set (or --api-key KEY)",
    `  --provider ollama        a local Ollama (\`ollama serve\`); nothing answered on ${localServerUrl}`,
    "  --base-url URL           any OpenAI-compatible server (vLLM, llama.cpp, LM Studio, OpenRouter, …)",
    "  --provider scripted      the offline scripted model (no key; say `help` to it)",
    'or set "provider" (and "model") in ~/.arbor/settings.json, or add providers to ~/.arbor/models.json.',
    "`arbor tour` shows everything Arbor does, offline, in under a minute.",
  ].join("\n");
}

/**
 * Decides the provider and model of a run (see the module comment for the order).
 *
 * Contract: reads no file (the settings and models file are given); the only I/O is the local-server probe,
 * made only when flags, settings and keys all say nothing. Throws {@link ArborUserError}: `unknown_provider`
 * for a name no provider has, `no_provider` when nothing is configured.
 */
export async function chooseProvider(inputs: ProviderChoiceInputs): Promise<ProviderChoice> {
  const { flags, settings, env } = inputs;
  if (flags.replay !== undefined) {
    return {
      kind: "replay",
      providerId: undefined,
      replayFile: flags.replay,
      ...(flags.model === undefined ? {} : { modelId: flags.model }),
      source: "--replay",
      explicit: true,
    };
  }
  const fromFlags = configuredChoice(flags, inputs, "flags", true);
  if (fromFlags !== undefined) {
    // Settings still fill in what the flags leave open for the same provider (its model, its URL).
    const layer = settings.settings;
    const sameProvider =
      fromFlags.providerId !== undefined &&
      (layer.provider ?? splitModel(layer.model, inputs.customProviders).provider) === fromFlags.providerId;
    if (sameProvider && fromFlags.modelId === undefined && layer.model !== undefined) {
      const modelId = splitModel(layer.model, inputs.customProviders).modelId;
      if (modelId !== undefined) fromFlags.modelId = modelId;
    }
    if (sameProvider && fromFlags.baseUrl === undefined && layer.baseUrl !== undefined) {
      fromFlags.baseUrl = layer.baseUrl;
    }
    return fromFlags;
  }
  const settingsSource =
    settings.sourceOf.provider ?? settings.sourceOf.model ?? settings.sourceOf.baseUrl ?? "settings";
  const fromSettings = configuredChoice(settings.settings, inputs, `settings (${settingsSource})`, false);
  if (fromSettings !== undefined) return fromSettings;
  if (env.ANTHROPIC_API_KEY)
    return named("anthropic", inputs, { source: "ANTHROPIC_API_KEY", explicit: false });
  if (env.OPENAI_API_KEY) return named("openai", inputs, { source: "OPENAI_API_KEY", explicit: false });
  const localUrl = env.ARBOR_LOCAL_SERVER_URL || DEFAULT_LOCAL_SERVER_URL;
  const probe = inputs.probe ?? ((url: string) => probeLocalServer(url));
  if (await probe(localUrl)) {
    return {
      kind: "openai",
      providerId: undefined,
      baseUrl: localUrl,
      source: `the local server at ${localUrl}`,
      explicit: false,
      ...(flags.apiKey === undefined ? {} : { apiKey: flags.apiKey }),
    };
  }
  throw new ArborUserError("no_provider", noProviderMessage(localUrl));
}
