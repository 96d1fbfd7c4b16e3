/**
 * `arbor models [--json] [--all]`: the models of the configured providers — Anthropic and OpenAI when their
 * key is set (every catalog with `--all`), the providers of `models.json`, the models a local
 * OpenAI-compatible server reports, and the offline scripted model — with the default marked `*`.
 */
import type { Model, ModelDiscoveryResult, Provider } from "@arbor/ai-providers";
import {
  chooseProvider,
  createChosenProvider,
  DEFAULT_LOCAL_SERVER_URL,
  DEFAULT_MODELS,
  loadModelsFile,
  loadSettings,
  type ProviderChoice,
  probeLocalServer,
  resolveArborHome,
} from "@arbor/app-runtime";
import { formatCount } from "@arbor/session-view";
import type { RawCliOptions } from "../cli-options.js";
import { PROVIDER_FACTORIES } from "../factories.js";
import type { CliIo } from "../io.js";

/** One provider's models, or why they are not listed. */
interface ProviderListing {
  id: string;
  models: Model[];
  note?: string;
}

function price(value: number): string {
  return value === 0 ? "-" : value.toFixed(2);
}

async function discovered(provider: Provider): Promise<ModelDiscoveryResult> {
  if (provider.discoverModels === undefined) return { models: [...provider.models] };
  const found = await provider.discoverModels();
  return found.models.length > 0 || found.error !== undefined ? found : { models: [...provider.models] };
}

async function listingOf(
  choice: ProviderChoice,
  env: CliIo["env"],
  discover: boolean,
): Promise<ProviderListing> {
  try {
    const provider = await createChosenProvider(choice, env, PROVIDER_FACTORIES);
    if (!discover) return { id: provider.id, models: [...provider.models] };
    const found = await discovered(provider);
    return {
      id: provider.id,
      models: found.models,
      ...(found.error === undefined ? {} : { note: found.error }),
    };
  } catch (error) {
    return { id: choice.providerId ?? "?", models: [], note: (error as Error).message };
  }
}

/**
 * Lists the models; resolves to the exit code (0; 1 for a settings or models file that does not validate,
 * reported by the caller).
 */
export async function runModelsCommand(
  options: { json?: boolean; all?: boolean },
  globals: RawCliOptions,
  io: CliIo,
): Promise<number> {
  const home = resolveArborHome(io.env);
  const settings = loadSettings(home, io.cwd);
  const { providers: customProviders } = loadModelsFile(home);
  const base = { settings, customProviders, env: io.env };
  const flags = {
    ...(globals.provider === undefined ? {} : { provider: globals.provider }),
    ...(globals.model === undefined ? {} : { model: globals.model }),
    ...(globals.baseUrl === undefined ? {} : { baseUrl: globals.baseUrl }),
  };
  let choice: ProviderChoice | undefined;
  try {
    choice = await chooseProvider({ ...base, flags });
  } catch {
    choice = undefined;
  }

  const wanted: { choice: ProviderChoice; discover: boolean }[] = [];
  const named = async (provider: string) => chooseProvider({ ...base, flags: { provider } });
  const seen = new Set<string>();
  const add = async (make: () => Promise<ProviderChoice>, discover = false) => {
    const made = await make().catch(() => undefined);
    const key = made === undefined ? undefined : `${made.providerId ?? ""}@${made.baseUrl ?? ""}`;
    if (made === undefined || key === undefined || seen.has(key)) return;
    seen.add(key);
    wanted.push({ choice: made, discover });
  };
  if (choice !== undefined)
    await add(async () => choice, choice.kind === "openai" && choice.preset !== "openai");
  if (options.all === true || io.env.ANTHROPIC_API_KEY) await add(() => named("anthropic"));
  if (options.all === true || io.env.OPENAI_API_KEY) await add(() => named("openai"));
  for (const id of Object.keys(customProviders)) await add(() => named(id));
  const localUrl = io.env.ARBOR_LOCAL_SERVER_URL || DEFAULT_LOCAL_SERVER_URL;
  if (await probeLocalServer(localUrl)) {
    await add(
      async () => ({
        kind: "openai",
        providerId: undefined,
        baseUrl: localUrl,
        source: localUrl,
        explicit: false,
      }),
      true,
    );
  }
  await add(() => named("scripted"));

  const listings = await Promise.all(
    wanted.map(({ choice: item, discover }) => listingOf(item, io.env, discover)),
  );
  let defaultReference: string | undefined;
  if (choice !== undefined) {
    const listing = listings[0];
    const id =
      choice.modelId ??
      (listing === undefined ? undefined : (DEFAULT_MODELS[listing.id] ?? listing.models[0]?.id));
    if (listing !== undefined && id !== undefined) defaultReference = `${listing.id}/${id}`;
  }

  const rows = listings.flatMap((listing) => listing.models.map((model) => ({ listing, model })));
  if (options.json === true) {
    for (const { model } of rows) {
      const reference = `${model.provider}/${model.id}`;
      io.stdout.write(
        `${JSON.stringify({
          model: reference,
          name: model.name,
          contextWindow: model.contextWindow,
          maxTokens: model.maxTokens,
          reasoning: model.reasoning,
          input: model.input,
          cost: model.cost,
          default: reference === defaultReference,
        })}\n`,
      );
    }
    return 0;
  }
  const table = rows.map(({ model }) => {
    const reference = `${model.provider}/${model.id}`;
    return [
      reference === defaultReference ? "*" : " ",
      reference,
      formatCount(model.contextWindow),
      formatCount(model.maxTokens),
      price(model.cost.input),
      price(model.cost.output),
      model.reasoning ? "yes" : "no",
    ];
  });
  const header = [" ", "model", "context", "max output", "$/M in", "$/M out", "thinking"];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...table.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column >= 2 && column <= 5 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!),
      )
      .join("  ")
      .trimEnd();
  const lines = [line(header), ...table.map(line)];
  for (const listing of listings)
    if (listing.note !== undefined) lines.push(`(${listing.id}: ${listing.note})`);
  if (defaultReference === undefined) {
    lines.push(
      "No provider is configured, so there is no default: see `arbor --help` (--provider, --model).",
    );
  } else if (choice !== undefined) {
    lines.push(`* the default (${choice.source})`);
  }
  if (options.all !== true && !(io.env.ANTHROPIC_API_KEY && io.env.OPENAI_API_KEY)) {
    lines.push("--all also lists the catalogs of providers whose key is not set.");
  }
  io.stdout.write(`${lines.join("\n")}\n`);
  return 0;
}
