/**
 * `startDemo()`: the whole demo — an app runtime (`createAppRuntime` with the demo's providers and
 * stores; the offline scripted model unless a provider, model or base URL is named), the hub and the
 * server on 127.0.0.1 with a fresh token. The agent's tools run in `--cwd`, by default in a fresh temporary
 * folder (never, by surprise, in the folder the demo was started from: a clone of the repository).
 * `--tour` runs with the tour's small model and compaction settings, so that the tour's build log crosses
 * the threshold.
 */
import { mkdtempSync, readdirSync, realpathSync, rmdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { Provider } from "@arbor/ai-providers";
import {
  type AppRuntime,
  createAppRuntime,
  type Environment,
  type PermissionMode,
  type ProviderFactories,
} from "@arbor/app-runtime";
import { createDemoProvider, demoModel, TOUR_COMPACTION, TOUR_MODEL } from "@arbor/app-runtime/demo";
import type { CompactionSettings } from "@arbor/compaction";
import { DemoHub } from "./demo-hub.js";
import { DEMO_PROVIDERS, DEMO_STORES } from "./factories.js";
import { type DemoServer, startDemoServer } from "./http-server.js";
import { createToken } from "./security.js";
import { createTourRun } from "./tour.js";

/** The port the demo listens on unless `--port` says otherwise. */
export const DEFAULT_DEMO_PORT = 4173;

/** Default pause between streamed chunks of the scripted model, in ms (so that streaming can be seen). */
export const DEFAULT_DEMO_PACE_MS = 8;

/** Options of {@link startDemo} (the flags of `pnpm demo` and `arbor demo`). */
export interface DemoOptions {
  /** Default {@link DEFAULT_DEMO_PORT}; 0 picks a free port. */
  port?: number;
  provider?: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  /** A store URL (`jsonl:DIR`, `sqlite:FILE`, `postgres://…`); default the JSONL store in the Arbor home. */
  store?: string;
  /** `false`: sessions in memory only. */
  persistent?: boolean;
  /**
   * Where the agent's tools run and new sessions are filed (`--cwd`): an existing folder, relative to
   * `process.cwd()`. Default a fresh temporary folder (`arbor-demo-…` in the system's temporary folder),
   * removed on close when nothing was written to it.
   */
  cwd?: string;
  env?: Environment;
  home?: string;
  /** Run the scripted tour once the server is up. */
  tour?: boolean;
  /** Pause between streamed chunks of the scripted model, in ms. */
  pace?: number;
  /** Compaction settings (default: settings', or the tour's with `tour`). */
  compaction?: Partial<CompactionSettings>;
  /** Merge window of streamed deltas sent to the page, in ms. */
  coalesceMs?: number;
  /** The folder of the built page (default the package's `dist/web`). */
  webRoot?: string;
  /**
   * Extension files loaded after those of the extension directories (`--extension`); `false`
   * (`--no-extensions`): none. Their commands are buttons on the page.
   */
  extensions?: readonly string[] | false;
  /** The permission mode (`--permissions`; default settings', else `auto`): `ask` asks on the page. */
  permissions?: PermissionMode;
}

/** A running demo. */
export interface RunningDemo {
  readonly runtime: AppRuntime;
  readonly hub: DemoHub;
  readonly server: DemoServer;
  readonly url: string;
  /** The folder the agent's tools run in (absolute). */
  readonly cwd: string;
  /** Whether {@link RunningDemo.cwd} is a fresh temporary folder made for this demo (no `--cwd`). */
  readonly freshCwd: boolean;
  /** The tour's prompts being run (resolves when it is done; undefined without `--tour`). */
  readonly tour: Promise<void> | undefined;
  /**
   * Stops the server and disposes the runtime; removes the fresh tools' folder if nothing was written to it.
   *
   * Contract: calling it twice is harmless.
   */
  close(): Promise<void>;
}

/** The built page next to this file's package (`dist/web`). */
export function defaultWebRoot(): string {
  return fileURLToPath(new URL("../../dist/web", import.meta.url));
}

/**
 * The tools' folder: `cwd` resolved and checked, or a fresh temporary folder.
 *
 * Contract: throws an `Error` whose message is for the user when `cwd` is not an existing folder.
 */
function toolFolder(cwd: string | undefined, tour: boolean): { cwd: string; fresh: boolean } {
  if (cwd === undefined) {
    const prefix = tour ? "arbor-demo-tour-" : "arbor-demo-";
    return { cwd: realpathSync(mkdtempSync(join(tmpdir(), prefix))), fresh: true };
  }
  const absolute = resolve(cwd);
  let folder = false;
  try {
    folder = statSync(absolute).isDirectory();
  } catch {
    folder = false;
  }
  if (!folder) throw new Error(`--cwd ${cwd}: not an existing folder`);
  return { cwd: realpathSync(absolute), fresh: false };
}

/** Removes a folder with nothing in it (the fresh tools' folder nothing was written to). */
function removeIfEmpty(folder: string): void {
  try {
    if (readdirSync(folder).length === 0) rmdirSync(folder);
  } catch {
    // Gone already, or not ours to remove: left as it is.
  }
}

function scriptedFactory(provider: () => Provider): ProviderFactories {
  return { ...DEMO_PROVIDERS, scripted: async () => ({ createDemoProvider: provider }) };
}

/**
 * Starts the demo (see the module comment).
 *
 * Contract: rejects with a message for the user when the flags name an unknown provider or store, or the
 * port is taken; nothing is left running then.
 */
export async function startDemo(options: DemoOptions = {}): Promise<RunningDemo> {
  const env = options.env ?? process.env;
  const named =
    options.provider !== undefined || options.model !== undefined || options.baseUrl !== undefined;
  const pace = options.pace ?? DEFAULT_DEMO_PACE_MS;
  const { cwd, fresh } = toolFolder(options.cwd, options.tour === true);
  const tourProvider = options.tour ? createTourRun(pace) : undefined;
  const providers = scriptedFactory(
    () => tourProvider?.provider ?? createDemoProvider({ model: demoModel(), chunkDelayMs: pace }),
  );
  const runtime = await createAppRuntime({
    cwd,
    env,
    ...(options.home === undefined ? {} : { home: options.home }),
    providers,
    stores: DEMO_STORES,
    flags: {
      ...(named ? {} : { provider: "scripted" }),
      ...(options.provider === undefined ? {} : { provider: options.provider }),
      ...(options.model === undefined ? {} : { model: options.model }),
      ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
      ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
      ...(options.tour ? { provider: "scripted", model: TOUR_MODEL.id } : {}),
    },
    ...(options.store === undefined ? {} : { store: options.store }),
    ...(options.persistent === undefined ? {} : { persistent: options.persistent }),
    ...(options.tour ? { compaction: TOUR_COMPACTION } : {}),
    ...(options.compaction === undefined ? {} : { compaction: options.compaction }),
    ...(options.extensions === undefined ? {} : { extensions: options.extensions }),
    ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
  });
  const hub = new DemoHub(runtime, {
    ...(options.coalesceMs === undefined ? {} : { coalesceMs: options.coalesceMs }),
  });
  let server: DemoServer;
  try {
    server = await startDemoServer({
      hub,
      token: createToken(),
      port: options.port ?? DEFAULT_DEMO_PORT,
      webRoot: options.webRoot ?? defaultWebRoot(),
      info: {
        model: `${runtime.model.provider}/${runtime.model.id}`,
        modelName: runtime.model.name,
        contextWindow: runtime.model.contextWindow,
        persistent: runtime.persistent,
        store: runtime.storeDescription ?? "memory",
        version: runtime.version,
        cwd,
        freshCwd: fresh,
      },
    });
  } catch (error) {
    hub.close();
    await runtime.dispose();
    throw error;
  }
  const tour = tourProvider?.run(hub);
  let closed: Promise<void> | undefined;
  return {
    runtime,
    hub,
    server,
    url: server.url,
    cwd,
    freshCwd: fresh,
    tour,
    close: () => {
      closed ??= (async () => {
        runtime.session.abort("the demo is closing");
        await tour?.catch(() => undefined);
        await server.close();
        hub.close();
        await runtime.dispose();
        if (fresh) removeIfEmpty(cwd);
      })();
      return closed;
    },
  };
}
