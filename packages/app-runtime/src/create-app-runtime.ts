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
import {
  type AgentHarness,
  type BashExecutionInput,
  createHarness,
  type HarnessOptions,
  type HarnessSession,
} from "@arbor/harness";
import { createResourceLoader, createSystemPromptBuilder } from "@arbor/harness/resources";
import { MemorySessionStore, type SessionStore, type SessionSummary } from "@arbor/session-store";
import type { AppRuntime, ExportFormat, ListSessionsOptions, SessionExporters } from "./app-runtime.js";
import { withFileMentions } from "./commands/mention-input.js";
import { runUserShellCommand } from "./commands/shell-command.js";
import { ArborUserError } from "./errors.js";
import type { ExtensionHost } from "./extensions/extension-host.js";
import type { ExtensionTimeoutSettings } from "./extensions/extension-timeouts.js";
import { type McpConnections, startMcpServers } from "./extensions/mcp-servers.js";
import { extensionProviderChoice, loadRuntimeExtensions } from "./extensions/runtime-extensions.js";
import type { ProviderFactories, StoreFactories } from "./factories.js";
import { type Environment, resolveArborHome } from "./home.js";
import { loadModelsFile, modelsFilePath } from "./models-file.js";
import { createSessionOperations, type SessionOperations } from "./operations/session-operations.js";
import { PermissionGate } from "./permissions/permission-gate.js";
import { readRefusal } from "./permissions/permission-policy.js";
import { resolvePermissionPolicy } from "./permissions/permission-settings.js";
import { builtInProviderNames, type ProviderFlags } from "./provider-choice.js";
import { type ProviderSetup, setUpProvider } from "./provider-setup.js";
import { resolveForResume, type SessionChoice, startSession } from "./session-choice.js";
import { jsonlPathOf } from "./session-reference.js";
import { applyPendingRecovery } from "./sessions/recover-session.js";
import { createRecoveryKeeper, defaultHowToApply } from "./sessions/recovery-file.js";
import { movedSessionNotice, resumableHere } from "./sessions/resume-here.js";
import { loadSettings } from "./settings.js";
import {
  checkJsonlDirectory,
  describeStoreLocation,
  openStore,
  parseStoreUrl,
  redactStoreUrl,
} from "./store-url.js";
import { keyVariableNames, withoutVariables } from "./tool-environment.js";
import type { PermissionMode, ToolName } from "./tool-names.js";
import { UnsavedWork, type UnsavedWorkWatch, type WatchUnsavedWorkOptions } from "./unsaved-work.js";
import { VERSION } from "./version.js";
import { leaseWhenStored, releaseOtherLeases, takeWriterLease } from "./writer-lease.js";

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
  /**
   * An allow list of tools (built-in names, `mcp__<server>__<tool>`, `mcp__<server>`), `false` for none,
   * `undefined` for settings' `tools`, else every tool. Extension tools are in every list except `false`.
   */
  tools?: readonly ToolName[] | false;
  /** `--extension` paths loaded after those of the extension directories; `false` (`--no-extensions`): none. */
  extensions?: readonly string[] | false;
  /** How long extensions may take (docs/extensions.md); default: settings' `extensionTimeouts`. */
  extensionTimeouts?: ExtensionTimeoutSettings;
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
  /** The permission mode (`--permissions`); default settings' `permissions.mode`, else `auto`. */
  permissions?: PermissionMode;
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
  /**
   * Whether an id names a provider (built in, of an extension, or of `models.json` — read again, so a
   * provider added since the start counts), loaded or not.
   */
  isProvider: (providerId: string) => boolean;
  /** The providers {@link isProvider} knows, for a message. */
  providerNames: () => string[];
  release: () => Promise<void>;
  extensions: ExtensionHost;
  mcp: McpConnections | undefined;
  /** Notes for the user (the runtime's `onWarning`). */
  warn: (message: string) => void;
  /** This runtime's record of store refusals (the harness's `onError` reports into it). */
  unsavedWork: UnsavedWork;
  /** The environment option of every bash command (the model's and the user's). */
  toolEnvironment: Record<string, undefined>;
  permissions: PermissionGate;
  /** The runtime's environment (`$ARBOR_COMMAND` for the commands a notice prints). */
  env: Readonly<Record<string, string | undefined>>;
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
  readonly extensions: ExtensionHost;
  readonly mcp: McpConnections | undefined;
  readonly permissions: PermissionGate;
  private current: HarnessSession;
  private readonly listeners = new Set<(session: HarnessSession) => void>();
  private disposed: Promise<void> | undefined;
  readonly label: SessionOperations["label"];
  readonly edit: SessionOperations["edit"];
  readonly diff: SessionOperations["diff"];
  readonly merge: SessionOperations["merge"];
  readonly navigate: SessionOperations["navigate"];
  readonly fork: SessionOperations["fork"];
  readonly compact: SessionOperations["compact"];
  readonly listSessionPage: SessionOperations["listSessionPage"];
  readonly importSession: SessionOperations["importSession"];
  readonly lastCompaction: SessionOperations["lastCompaction"];

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
    this.extensions = wiring.extensions;
    this.mcp = wiring.mcp;
    this.permissions = wiring.permissions;
    this.current = session;
    leaseWhenStored(this.store, session);
    // The operations every front end calls (operations/): one implementation, over this runtime.
    ({
      label: this.label,
      edit: this.edit,
      diff: this.diff,
      merge: this.merge,
      navigate: this.navigate,
      fork: this.fork,
      compact: this.compact,
      listSessionPage: this.listSessionPage,
      importSession: this.importSession,
      lastCompaction: this.lastCompaction,
    } = createSessionOperations(this));
  }

  get session(): HarnessSession {
    return this.current;
  }

  runShellCommand(command: string, signal?: AbortSignal): Promise<BashExecutionInput> {
    return runUserShellCommand(this.cwd, command, signal, this.wiring.toolEnvironment);
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

  watchUnsavedWork(options?: WatchUnsavedWorkOptions): UnsavedWorkWatch {
    return this.wiring.unsavedWork.watchAcross(this, options);
  }

  private changed(): void {
    void releaseOtherLeases(this.store, this.current.id);
    leaseWhenStored(this.store, this.current);
    void this.extensions.sessionChanged(this.current);
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
    return this.replaceWith(() => this.harness.newSession({ cwd: this.cwd, createOnFirstFlush: true }));
  }

  async openSession(reference: string): Promise<HarnessSession> {
    const sessionId = await resolveForResume(this.store, reference, this.cwd, this.stores);
    if (sessionId === this.current.id) return this.current;
    // Refused here (another process writes it), nothing changes: the current session stays.
    await takeWriterLease(this.store, sessionId);
    try {
      if (this.persistent) await applyPendingRecovery(this.store, this.home, sessionId, this.wiring.warn);
      // Recorded in another directory: it continues here as a fork (sessions/resume-here.ts).
      const here = await resumableHere(this.store, sessionId, this.cwd);
      if (here.sessionId === this.current.id) return this.current;
      if (here.moved !== undefined) {
        // A notice of the front end (the terminal's transcript, rpc and the demo), else a warning.
        this.extensions.notice(movedSessionNotice(here.moved, this.cwd, this.wiring.env), "warning");
        await takeWriterLease(this.store, here.sessionId);
      }
      return await this.replaceWith(() => this.harness.openSession(here.sessionId));
    } finally {
      void releaseOtherLeases(this.store, this.current.id);
    }
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
    const current = this.current.state.model.provider;
    // A bare id: a model of the current provider, whatever its id.
    if (slash <= 0) return this.registry.resolveModel(`${current}/${reference}`);
    const providerId = reference.slice(0, slash);
    const loaded = (id: string) => this.registry.providers.some((item) => item.id === id);
    if (loaded(providerId) || this.wiring.isProvider(providerId)) {
      if (!loaded(providerId)) this.registry.register(await this.wiring.loadProvider(providerId));
      return this.registry.resolveModel(reference);
    }
    // The first part names no provider: a model of the current provider only when its catalog lists the
    // whole id (OpenRouter's `anthropic/claude-x`); never a silent `current/other/id`.
    const provider = this.registry.providers.find((item) => item.id === current);
    if (provider?.models.some((model) => model.id === reference) === true) {
      return this.registry.resolveModel(`${current}/${reference}`);
    }
    throw new ArborUserError(
      "unknown_provider",
      `No provider "${providerId}" (in "${reference}"): the known providers are ` +
        `${this.wiring.providerNames().join(", ")} (models.json was read again: ${modelsFilePath(this.home)}). ` +
        `For a model of ${current} whose id has a slash, write ${current}/${reference}.`,
    );
  }

  dispose(): Promise<void> {
    this.disposed ??= (async () => {
      try {
        await this.extensions.shutdown();
        await this.harness.close();
      } finally {
        try {
          await this.mcp?.close();
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
  env: Record<string, undefined>,
): Promise<AgentTool[]> {
  if (tools === false) return [];
  const { createCodingTools, CODING_TOOL_NAMES } = await import("@arbor/coding-tools");
  const wanted =
    tools === undefined ? CODING_TOOL_NAMES : CODING_TOOL_NAMES.filter((name) => tools.includes(name));
  return wanted.length === 0 ? [] : createCodingTools({ cwd, tools: wanted, bash: { env } });
}

/** The provider setup when an extension's provider was chosen: other providers load on demand. */
function extensionSetup(
  home: string,
  loaded: ProviderSetup["loaded"],
  settings: ProviderSetup["settings"],
  setup: (flags: ProviderFlags, inSession: boolean) => Promise<ProviderSetup>,
): Pick<ProviderSetup, "settings" | "loaded" | "loadById" | "customProviders"> & {
  choice: { explicit: boolean };
} {
  return {
    settings,
    loaded,
    customProviders: loadModelsFile(home).providers,
    choice: { explicit: true },
    loadById: async (providerId) => (await setup({ provider: providerId }, true)).loaded.provider,
  };
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
  const unsavedWork = new UnsavedWork(warn);
  const home = options.home ?? resolveArborHome(options.env);
  const version = options.version ?? VERSION;
  const persistent = options.persistent !== false;
  const storeOptions = { env: options.env, cwd: options.cwd, home, stores: options.stores };
  // Settings first (they may name the store), then the store's directory, before any provider or request:
  // an unusable ARBOR_HOME is one clear message, never a recursive mkdir that does not return.
  const loadedSettings = loadSettings(home, options.cwd);
  const storeUrl = options.store ?? loadedSettings.settings.store;
  if (persistent) {
    const location = parseStoreUrl(storeUrl, storeOptions);
    if (location.backend === "jsonl") checkJsonlDirectory(location.home, storeOptions);
  }
  const extensionTimeouts = options.extensionTimeouts ?? loadedSettings.settings.extensionTimeouts;
  const extensions = await loadRuntimeExtensions({
    cwd: options.cwd,
    home,
    ...(options.extensions === undefined ? {} : { extensions: options.extensions }),
    ...(extensionTimeouts === undefined ? {} : { timeouts: extensionTimeouts }),
    warn,
  });
  const setup = (flags: ProviderFlags | undefined, inSession = false) =>
    setUpProvider({
      inSession,
      cwd: options.cwd,
      env: options.env,
      home,
      providers: options.providers,
      settings: loadedSettings,
      onNotice: warn,
      ...(flags === undefined ? {} : { flags }),
      ...(options.record === undefined ? {} : { record: options.record }),
    });
  const fromExtension =
    extensions.providers.size === 0
      ? undefined
      : extensionProviderChoice(extensions.providers, options.flags ?? {}, loadedSettings.settings);
  const { settings, choice, loaded, loadById, customProviders } =
    fromExtension === undefined
      ? await setup(options.flags)
      : extensionSetup(home, fromExtension, loadedSettings, setup);
  const defaults = settings.settings;
  const permissionPolicy = resolvePermissionPolicy(defaults.permissions, options.permissions);
  // models.json's providers, read again when a model names a provider not known yet (`/model new/id`).
  let custom = customProviders;
  const readCustomProviders = () => {
    custom = loadModelsFile(home).providers;
    return custom;
  };
  // The schema admits only built-in names and `mcp__…` names.
  const tools = (options.tools ?? defaults.tools) as readonly ToolName[] | false | undefined;
  const shareKeys = options.shareKeysWithTools ?? defaults.shareKeysWithTools ?? false;
  const thinkingLevel = options.thinkingLevel ?? (defaults.thinking as ThinkingLevel | undefined);
  const systemPrompt = options.systemPrompt ?? defaults.systemPrompt;
  const appendSystemPrompt = options.appendSystemPrompt ?? defaults.appendSystemPrompt;
  const compaction = options.compaction ?? defaults.compaction;
  const store: SessionStore = persistent ? await openStore(storeUrl, storeOptions) : new MemorySessionStore();
  let sourceStore: SessionStore = store;
  const release = async () => {
    if (sourceStore !== store) await sourceStore.close?.();
  };
  let harness: AgentHarness | undefined;
  let mcp: McpConnections | undefined;
  try {
    if (!persistent && options.session?.kind === "fork") {
      sourceStore = await openStore(storeUrl, { ...storeOptions, readOnly: true });
    }
    const registry = createProviderRegistry([loaded.provider]);
    for (const provider of extensions.providers.values()) {
      if (provider === loaded.provider) continue;
      if (registry.providers.some((known) => known.id === provider.id)) {
        warn(
          `the provider "${provider.id}" an extension registered is ignored: one of that name is set up already`,
        );
      } else registry.register(provider);
    }
    const model = loaded.model;
    const storeDescription = persistent
      ? describeStoreLocation(parseStoreUrl(storeUrl, storeOptions))
      : undefined;
    // The commands that apply a recovery file name the store when a flag chose it (settings are read again).
    const storeFlag = options.store === undefined ? "" : ` --store ${redactStoreUrl(options.store)}`;
    const howToApply = (sessionId: string) => defaultHowToApply(sessionId, storeFlag);
    // MCP servers start while the coding tools load (starting never rejects; the catch below closes them).
    const starting = startMcpServers({
      servers: defaults.mcpServers,
      tools,
      cwd: options.cwd,
      env: options.env,
      version,
      warn,
    });
    // One list of key variables, read at each command (the model's and the user's `!command`): built-in,
    // models.json, the extensions' providers (also one the registry ignored) and every provider the
    // registry holds by then.
    const hidden = () => keyVariableNames(custom, [...registry.providers, ...extensions.providers.values()]);
    const toolEnvironment = withoutVariables(shareKeys ? () => [] : hidden);
    let builtIn: AgentTool[];
    try {
      builtIn = await codingTools(options.cwd, tools, toolEnvironment);
    } finally {
      mcp = await starting;
    }
    harness = createHarness({
      registry,
      model,
      store,
      tools: [
        ...builtIn,
        ...(mcp?.tools(tools === false ? [] : tools) ?? []),
        ...(tools === false ? [] : extensions.tools),
      ],
      recallTool: tools === undefined || (tools !== false && tools.includes("recall")),
      cwd: options.cwd,
      // `@path` attaches the file in every mode (the editor, print, json, rpc, the demo).
      // A deny rule for reading a file (`read(.env)`) keeps it out of a mention too.
      resources: withFileMentions(
        createResourceLoader({ home }),
        options.cwd,
        (notice) => extensions.notice(notice.message, notice.level),
        { refuse: (path) => readRefusal(permissionPolicy, path, options.cwd) },
      ),
      settings: {
        ...(thinkingLevel === undefined ? {} : { thinkingLevel }),
        ...(compaction === undefined ? {} : { compaction }),
        ...(defaults.saveRetryMs === undefined ? {} : { saveRetry: { timeoutMs: defaults.saveRetryMs } }),
      },
      systemPrompt: createSystemPromptBuilder({
        ...(systemPrompt === undefined ? {} : { customPrompt: systemPrompt }),
        ...(appendSystemPrompt === undefined ? {} : { appendPrompt: appendSystemPrompt }),
      }),
      onError: unsavedWork.reportError,
      // What a save the store refused could not store goes to a recovery file in the home.
      ...(storeDescription === undefined
        ? {}
        : { unsavedEntries: createRecoveryKeeper({ home, store: storeDescription, howToApply }) }),
      ...options.harnessOptions,
    });
    extensions.attach(harness);
    // Every tool call passes the permission gate, after the extensions' guards (the first refusal wins).
    let current: () => HarnessSession = () => {
      throw new Error("no session yet");
    };
    const permissions = new PermissionGate(permissionPolicy, { cwd: options.cwd, session: () => current() });
    harness.on("tool_call", (event, context) => permissions.check(event, context));
    const sessionChoice = options.session ?? { kind: "new" };
    const session = await startSession(
      {
        harness,
        store,
        sourceStore,
        cwd: options.cwd,
        stores: options.stores,
        notice: warn,
        env: options.env,
        ...(persistent ? { home } : {}),
        // A model chosen with flags wins over the one a resumed session records: that one is not looked up.
        ...(choice.explicit ? { model } : {}),
      },
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
    const runtime = new Runtime(
      {
        version,
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
      {
        exporters: options.exporters ?? {},
        loadProvider: loadById,
        isProvider: (id) =>
          extensions.providers.has(id) ||
          builtInProviderNames().includes(id) ||
          Object.hasOwn(readCustomProviders(), id),
        providerNames: () => [
          ...new Set([
            ...builtInProviderNames(),
            ...Object.keys(readCustomProviders()),
            ...extensions.providers.keys(),
          ]),
        ],
        release,
        extensions,
        mcp,
        warn,
        unsavedWork,
        toolEnvironment,
        permissions,
        env: options.env,
      },
      options.stores,
    );
    current = () => runtime.session;
    await extensions.bind({
      session: () => runtime.session,
      loadModel: (reference) => runtime.loadModel(reference),
    });
    return runtime;
  } catch (error) {
    await harness?.close();
    await mcp?.close();
    await release();
    await store.close?.();
    throw error;
  }
}
