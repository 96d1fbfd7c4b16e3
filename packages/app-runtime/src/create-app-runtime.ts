/**
 * `createAppRuntime()`: a front end's wiring. The provider the flags, settings, keys or a local server
 * choose (loaded through the app's provider factories), the session store (`store` URL, else the JSONL
 * store in the Arbor home; in memory when not persistent), the harness with the coding tools of the working
 * directory, and the session to start in (new, continue, open, open-or-create, fork) — as one
 * {@link AppRuntime} that every mode (print, json, rpc, interactive, a web server) drives.
 */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { AgentTool } from "@arbor/agent-core";
import {
  createProviderRegistry,
  type Model,
  type Provider,
  type ProviderRegistry,
  type ThinkingLevel,
} from "@arbor/ai-providers";
import type { CompactionSettings } from "@arbor/compaction";
import { type AgentHarness, createHarness, type HarnessOptions, type HarnessSession } from "@arbor/harness";
import { createResourceLoader, createSystemPromptBuilder } from "@arbor/harness/resources";
import { MemorySessionStore, type SessionStore, type SessionSummary } from "@arbor/session-store";
import type { AppRuntime, ExportFormat, ListSessionsOptions, SessionExporters } from "./app-runtime.js";
import { ArborUserError } from "./errors.js";
import type { ProviderFactories, StoreFactories } from "./factories.js";
import { type Environment, resolveArborHome } from "./home.js";
import type { ProviderFlags } from "./provider-choice.js";
import { setUpProvider } from "./provider-setup.js";
import { resolveForResume, type SessionChoice, startSession } from "./session-choice.js";
import { jsonlPathOf } from "./session-reference.js";
import { describeStoreLocation, openStore, parseStoreUrl } from "./store-url.js";
import { keyVariableNames, withoutVariables } from "./tool-environment.js";
import type { ToolName } from "./tool-names.js";
import { harnessErrorReporter } from "./unsaved-work.js";
import { VERSION } from "./version.js";

/** What {@link createAppRuntime} wires. Only `cwd`, `env`, `providers` and `stores` are required. */
export interface AppRuntimeOptions {
  cwd: string;
  /** Where keys, `ARBOR_HOME` and `HOME` are read (a front end passes `process.env`). */
  env: Environment;
  /** The Arbor home; default `$ARBOR_HOME`, else `~/.arbor` (resolved once, passed to the store and harness). */
  home?: string;
  /** The provider packages the app offers, e.g. `{ anthropic: () => import("@arbor/provider-anthropic") }`. */
  providers: ProviderFactories;
  /** The store backends the app offers, e.g. `{ jsonl: () => import("@arbor/session-store-jsonl") }`. */
  stores: StoreFactories;
  /** Renderers of `exportSession`'s formats (supplied by the app; app-runtime renders nothing itself). */
  exporters?: SessionExporters;
  /** The provider and model as the user named them (`--provider`, `--model`, `--base-url`, `--api-key`, `--replay`). */
  flags?: ProviderFlags;
  /** `--record FILE`: append every provider interaction to this cassette. */
  record?: string;
  /** A store URL (`--store`); default settings' `store`, else the JSONL store in the Arbor home. */
  store?: string;
  /** `false` (`--no-session`): sessions live in memory only. Default `true`. */
  persistent?: boolean;
  /** The session to start in; default a new one. */
  session?: SessionChoice;
  /** An allow list of tools, `false` for none, `undefined` for settings' `tools`, else every tool. */
  tools?: readonly ToolName[] | false;
  /**
   * `true`: the tools' environment keeps the API key variables (see `tool-environment.ts`). Default:
   * settings' `shareKeysWithTools`, else `false` (the bash tool never sees the keys).
   */
  shareKeysWithTools?: boolean;
  /** The thinking level (`--thinking`); when given, a resumed session switches to it. Default: settings'. */
  thinkingLevel?: ThinkingLevel;
  /** Default: settings' `systemPrompt`. */
  systemPrompt?: string;
  /** Default: settings' `appendSystemPrompt`. */
  appendSystemPrompt?: string;
  /** Default: settings' `compaction`. */
  compaction?: Partial<CompactionSettings>;
  /** More harness options (they win over the runtime's). */
  harnessOptions?: Partial<HarnessOptions>;
  /**
   * Receives warnings and notes for the user (default: ignored).
   *
   * Contract: must not throw.
   */
  onWarning?: (message: string) => void;
  /** The app's version (default: app-runtime's). */
  version?: string;
}

/** What the runtime object keeps besides its public fields. */
interface RuntimeWiring {
  exporters: SessionExporters;
  loadProvider: (providerId: string) => Promise<Provider>;
  release: () => Promise<void>;
}

type RuntimeFields = Pick<
  AppRuntime,
  "version" | "cwd" | "home" | "registry" | "model" | "store" | "storeDescription" | "persistent" | "harness"
>;

const EXPORT_EXTENSIONS = { html: "html", md: "md", jsonl: "jsonl" } as const;

class Runtime implements AppRuntime {
  readonly version: string;
  readonly cwd: string;
  readonly home: string;
  readonly registry: ProviderRegistry;
  readonly model: Model;
  readonly store: SessionStore;
  readonly storeDescription: string | undefined;
  readonly persistent: boolean;
  readonly harness: AgentHarness;
  private current: HarnessSession;
  private readonly listeners = new Set<(session: HarnessSession) => void>();
  private disposed: Promise<void> | undefined;

  constructor(
    fields: RuntimeFields,
    session: HarnessSession,
    private readonly wiring: RuntimeWiring,
    private readonly stores: StoreFactories,
  ) {
    this.version = fields.version;
    this.cwd = fields.cwd;
    this.home = fields.home;
    this.registry = fields.registry;
    this.model = fields.model;
    this.store = fields.store;
    this.storeDescription = fields.storeDescription;
    this.persistent = fields.persistent;
    this.harness = fields.harness;
    this.current = session;
  }

  get session(): HarnessSession {
    return this.current;
  }

  get sessionFile(): string | undefined {
    return jsonlPathOf(this.store, this.current.id);
  }

  onSessionChange(listener: (session: HarnessSession) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener(this.current);
      } catch {
        // A listener's failure must not stop the switch.
      }
    }
  }

  /** Closes the current session and makes `open()`'s current; reopens the previous one when it fails. */
  private async replaceWith(open: () => Promise<HarnessSession>): Promise<HarnessSession> {
    const previous = this.current;
    await previous.close();
    try {
      this.current = await open();
    } catch (error) {
      this.current = await this.harness.openSession(previous.id);
      throw error;
    }
    this.changed();
    return this.current;
  }

  newSession(): Promise<HarnessSession> {
    return this.replaceWith(() => this.harness.newSession({ cwd: this.cwd }));
  }

  async openSession(reference: string): Promise<HarnessSession> {
    const sessionId = await resolveForResume(this.store, reference, this.cwd, this.stores);
    if (sessionId === this.current.id) return this.current;
    return this.replaceWith(() => this.harness.openSession(sessionId));
  }

  async switchTo(session: HarnessSession): Promise<void> {
    if (session === this.current) return;
    const previous = this.current;
    this.current = session;
    await previous.close();
    this.changed();
  }

  async listSessions(options: ListSessionsOptions = {}): Promise<SessionSummary[]> {
    const page = await this.store.listSessions({
      ...(options.all === true ? {} : { cwd: this.cwd }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    });
    return page.sessions;
  }

  async exportSession(format: ExportFormat, file?: string): Promise<string> {
    const exporter = this.wiring.exporters[format];
    if (exporter === undefined) {
      throw new ArborUserError("usage", `This app cannot export sessions as ${format}.`);
    }
    const session = this.current.session;
    const text = await exporter({ session, store: this.store, location: this.sessionFile });
    const path = resolve(this.cwd, file ?? `${session.id}.${EXPORT_EXTENSIONS[format]}`);
    // Sessions can hold secrets: the export is private, like the session file.
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  }

  async loadModel(reference: string): Promise<Model> {
    const slash = reference.indexOf("/");
    const providerId = slash > 0 ? reference.slice(0, slash) : undefined;
    const known = providerId !== undefined && this.registry.providers.some((item) => item.id === providerId);
    if (providerId !== undefined && !known) {
      this.registry.register(await this.wiring.loadProvider(providerId));
    }
    return this.registry.resolveModel(reference);
  }

  dispose(): Promise<void> {
    this.disposed ??= (async () => {
      try {
        await this.harness.close();
      } finally {
        try {
          await this.store.close?.();
        } finally {
          await this.wiring.release();
        }
      }
    })();
    return this.disposed;
  }
}

async function codingTools(
  cwd: string,
  tools: AppRuntimeOptions["tools"],
  hiddenVariables: readonly string[],
): Promise<AgentTool[]> {
  if (tools === false) return [];
  const { createCodingTools, CODING_TOOL_NAMES } = await import("@arbor/coding-tools");
  const wanted =
    tools === undefined ? CODING_TOOL_NAMES : CODING_TOOL_NAMES.filter((name) => tools.includes(name));
  const bash = { env: withoutVariables(hiddenVariables) };
  return wanted.length === 0 ? [] : createCodingTools({ cwd, tools: wanted, bash });
}

/**
 * Wires an app runtime (see the module comment).
 *
 * Contract: throws `ArborUserError` for an invalid settings or models file, no provider, an unknown model
 * or a session reference that does not resolve, the store URL errors (`InvalidStoreUrlError`,
 * `StoreBackendUnavailableError`) and the harness's option errors; whatever it opened before failing is
 * closed again. The caller disposes the runtime.
 */
export async function createAppRuntime(options: AppRuntimeOptions): Promise<AppRuntime> {
  const warn = options.onWarning ?? (() => undefined);
  const home = options.home ?? resolveArborHome(options.env);
  const { settings, customProviders, choice, loaded, loadById } = await setUpProvider({
    cwd: options.cwd,
    env: options.env,
    home,
    providers: options.providers,
    ...(options.flags === undefined ? {} : { flags: options.flags }),
    ...(options.record === undefined ? {} : { record: options.record }),
  });
  const defaults = settings.settings;
  const persistent = options.persistent !== false;
  const storeUrl = options.store ?? defaults.store;
  const tools = options.tools ?? defaults.tools;
  const shareKeys = options.shareKeysWithTools ?? defaults.shareKeysWithTools ?? false;
  const thinkingLevel = options.thinkingLevel ?? (defaults.thinking as ThinkingLevel | undefined);
  const systemPrompt = options.systemPrompt ?? defaults.systemPrompt;
  const appendSystemPrompt = options.appendSystemPrompt ?? defaults.appendSystemPrompt;
  const compaction = options.compaction ?? defaults.compaction;
  const storeOptions = { env: options.env, cwd: options.cwd, home, stores: options.stores };
  const store: SessionStore = persistent ? await openStore(storeUrl, storeOptions) : new MemorySessionStore();
  let sourceStore: SessionStore = store;
  const release = async () => {
    if (sourceStore !== store) await sourceStore.close?.();
  };
  let harness: AgentHarness | undefined;
  try {
    if (!persistent && options.session?.kind === "fork") {
      sourceStore = await openStore(storeUrl, { ...storeOptions, readOnly: true });
    }
    const registry = createProviderRegistry([loaded.provider]);
    const model = loaded.model;
    harness = createHarness({
      registry,
      model,
      store,
      tools: await codingTools(options.cwd, tools, shareKeys ? [] : keyVariableNames(customProviders)),
      recallTool: tools === undefined || (tools !== false && tools.includes("recall")),
      cwd: options.cwd,
      resources: createResourceLoader({ home }),
      settings: {
        ...(thinkingLevel === undefined ? {} : { thinkingLevel }),
        ...(compaction === undefined ? {} : { compaction }),
      },
      systemPrompt: createSystemPromptBuilder({
        ...(systemPrompt === undefined ? {} : { customPrompt: systemPrompt }),
        ...(appendSystemPrompt === undefined ? {} : { appendPrompt: appendSystemPrompt }),
      }),
      onError: harnessErrorReporter(warn),
      ...options.harnessOptions,
    });
    const sessionChoice = options.session ?? { kind: "new" };
    const session = await startSession(
      { harness, store, sourceStore, cwd: options.cwd, stores: options.stores, notice: warn },
      sessionChoice,
    );
    if (sessionChoice.kind !== "new") {
      // The model the session's entries record (the harness may have fallen back to the default).
      const recorded = session.session.buildContext().model;
      const differs = recorded?.provider !== model.provider || recorded?.modelId !== model.id;
      if (choice.explicit && differs) await session.setModel(model);
      if (options.thinkingLevel !== undefined && session.state.thinkingLevel !== options.thinkingLevel) {
        await session.setThinkingLevel(options.thinkingLevel);
      }
    }
    for (const warning of session.warnings) warn(warning);
    const storeDescription = persistent
      ? describeStoreLocation(parseStoreUrl(storeUrl, storeOptions))
      : undefined;
    return new Runtime(
      {
        version: options.version ?? VERSION,
        cwd: options.cwd,
        home,
        registry,
        model,
        store,
        storeDescription,
        persistent,
        harness,
      },
      session,
      { exporters: options.exporters ?? {}, loadProvider: loadById, release },
      options.stores,
    );
  } catch (error) {
    await harness?.close();
    await release();
    await store.close?.();
    throw error;
  }
}
