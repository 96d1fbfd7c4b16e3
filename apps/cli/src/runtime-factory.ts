/**
 * `createRuntime()`: the CLI's wiring. A provider registry with the chosen provider, the session store
 * (`--store`, else the JSONL store in the Arbor home; in memory with `--no-session`), the harness with the
 * coding tools of the working directory, and the session `-c` / `-r` / `--session` / `--fork` name — as one
 * {@link CliRuntime} that every mode (print, json, rpc, interactive) drives.
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
import type { CliRuntime } from "./runtime.js";
import { resolveForResume, type SessionChoice, startSession } from "./session-choice.js";
import { jsonlPathOf } from "./session-reference.js";
import { defaultStoreHome, describeStoreLocation, openStore, parseStoreUrl } from "./store-url.js";
import type { ToolName } from "./tool-names.js";

/** What {@link createRuntime} wires. */
export interface CreateRuntimeOptions {
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The provider the run talks to, and its model. */
  provider: Provider;
  model: Model;
  /** True when flags chose the provider or model: a resumed session then switches to it. */
  modelExplicit?: boolean;
  /** `--store <url>` (or settings' `store`); `undefined`: the JSONL store in the Arbor home. */
  storeUrl?: string;
  /** `false` for `--no-session`: sessions live in memory only. */
  persistent: boolean;
  /** `--tools` (an allow list), `false` for `--no-tools`, `undefined` for every tool. */
  tools?: readonly ToolName[] | false;
  /** `--thinking` or settings' `thinking`. */
  thinkingLevel?: ThinkingLevel;
  /** True when `--thinking` was given: a resumed session then switches to it. */
  thinkingExplicit?: boolean;
  systemPrompt?: string;
  appendSystemPrompt?: string;
  compaction?: Partial<CompactionSettings>;
  session?: SessionChoice;
  /**
   * Loads a provider that is not registered yet, for `loadModel("other/model")`.
   *
   * Contract: resolves to the provider with that id, or rejects with a message for the user.
   */
  loadProvider?: (providerId: string) => Promise<Provider>;
  /** More harness options (they win over the CLI's). */
  harnessOptions?: Partial<HarnessOptions>;
  /**
   * Receives warnings and notes for the user (default: ignored).
   *
   * Contract: must not throw.
   */
  onWarning?: (message: string) => void;
  /** `@arbor/cli`'s version. */
  version: string;
}

/** {@link CliRuntime} plus what the CLI core itself uses. */
export interface ArborRuntime extends CliRuntime {
  /** The file of the current session, when the store keeps one per session (JSONL). */
  readonly sessionFile: string | undefined;
  /**
   * Registers a listener called after the current session changed (new, open, switch, fork).
   *
   * Contract: returns a function that removes it; a throwing listener is ignored.
   */
  onSessionChange(listener: (session: HarnessSession) => void): () => void;
  /**
   * Resolves `"provider/model"`, loading the provider first when it is not registered yet (e.g. `/model
   * anthropic/claude-sonnet-5-5` in a session started with another provider).
   *
   * Contract: rejects with a message for the user when the provider or model is unknown.
   */
  loadModel(reference: string): Promise<Model>;
}

const EXPORT_EXTENSIONS = { html: "html", md: "md", jsonl: "jsonl" } as const;

class Runtime implements ArborRuntime {
  readonly version: string;
  readonly cwd: string;
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
    fields: Pick<
      ArborRuntime,
      "version" | "cwd" | "registry" | "model" | "store" | "storeDescription" | "persistent" | "harness"
    >,
    session: HarnessSession,
    private readonly options: CreateRuntimeOptions,
    private readonly release: () => Promise<void>,
  ) {
    this.version = fields.version;
    this.cwd = fields.cwd;
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

  async newSession(): Promise<HarnessSession> {
    const previous = this.current;
    await previous.close();
    try {
      this.current = await this.harness.newSession({ cwd: this.cwd });
    } catch (error) {
      this.current = await this.harness.openSession(previous.id);
      throw error;
    }
    this.changed();
    return this.current;
  }

  async openSession(reference: string): Promise<HarnessSession> {
    const sessionId = await resolveForResume(this.store, reference, this.cwd);
    if (sessionId === this.current.id) return this.current;
    const previous = this.current;
    await previous.close();
    try {
      this.current = await this.harness.openSession(sessionId);
    } catch (error) {
      this.current = await this.harness.openSession(previous.id);
      throw error;
    }
    this.changed();
    return this.current;
  }

  async switchTo(session: HarnessSession): Promise<void> {
    if (session === this.current) return;
    const previous = this.current;
    this.current = session;
    await previous.close();
    this.changed();
  }

  async listSessions(options: { all?: boolean; limit?: number } = {}): Promise<SessionSummary[]> {
    const page = await this.store.listSessions({
      ...(options.all === true ? {} : { cwd: this.cwd }),
      ...(options.limit === undefined ? {} : { limit: options.limit }),
    });
    return page.sessions;
  }

  async exportSession(format: "html" | "md" | "jsonl", file?: string): Promise<string> {
    const session = this.current.session;
    let text: string;
    if (format === "html") {
      const { exportHtml } = await import("./export/html.js");
      text = exportHtml(session, { location: this.sessionFile });
    } else if (format === "md") {
      const { exportMarkdown } = await import("./export/markdown.js");
      text = exportMarkdown(session, { leafId: session.leafId });
    } else {
      const { exportJsonl } = await import("./export/jsonl.js");
      text = (await exportJsonl(this.store, session.id)).text;
    }
    const path = resolve(this.cwd, file ?? `${session.id}.${EXPORT_EXTENSIONS[format]}`);
    // Sessions can hold secrets: the export is private, like the session file.
    writeFileSync(path, text, { mode: 0o600 });
    return path;
  }

  async loadModel(reference: string): Promise<Model> {
    const slash = reference.indexOf("/");
    const providerId = slash > 0 ? reference.slice(0, slash) : undefined;
    const known = providerId !== undefined && this.registry.providers.some((item) => item.id === providerId);
    if (providerId !== undefined && !known && this.options.loadProvider !== undefined) {
      this.registry.register(await this.options.loadProvider(providerId));
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
          await this.release();
        }
      }
    })();
    return this.disposed;
  }
}

async function codingTools(cwd: string, tools: CreateRuntimeOptions["tools"]): Promise<AgentTool[]> {
  if (tools === false) return [];
  const { createCodingTools, CODING_TOOL_NAMES } = await import("@arbor/coding-tools");
  const wanted =
    tools === undefined ? CODING_TOOL_NAMES : CODING_TOOL_NAMES.filter((name) => tools.includes(name));
  return wanted.length === 0 ? [] : createCodingTools({ cwd, tools: wanted });
}

/**
 * Wires a runtime (see the module comment).
 *
 * Contract: throws for a store URL it cannot open, a session reference that does not resolve (with a message
 * for the user), and the harness's option errors; whatever it opened before failing is closed again. The
 * caller disposes the runtime.
 */
export async function createRuntime(options: CreateRuntimeOptions): Promise<ArborRuntime> {
  const warn = options.onWarning ?? (() => undefined);
  const home = defaultStoreHome(options.env);
  const store: SessionStore = options.persistent
    ? await openStore(options.storeUrl, { env: options.env, cwd: options.cwd })
    : new MemorySessionStore();
  let sourceStore: SessionStore = store;
  const release = async () => {
    if (sourceStore !== store) await sourceStore.close?.();
  };
  let harness: AgentHarness | undefined;
  try {
    if (!options.persistent && options.session?.kind === "fork") {
      sourceStore = await openStore(options.storeUrl, { env: options.env, cwd: options.cwd, readOnly: true });
    }
    const registry = createProviderRegistry([options.provider]);
    const tools = await codingTools(options.cwd, options.tools);
    harness = createHarness({
      registry,
      model: options.model,
      store,
      tools,
      recallTool:
        options.tools === undefined || (options.tools !== false && options.tools.includes("recall")),
      cwd: options.cwd,
      resources: createResourceLoader({ home }),
      settings: {
        ...(options.thinkingLevel === undefined ? {} : { thinkingLevel: options.thinkingLevel }),
        ...(options.compaction === undefined ? {} : { compaction: options.compaction }),
      },
      systemPrompt: createSystemPromptBuilder({
        ...(options.systemPrompt === undefined ? {} : { customPrompt: options.systemPrompt }),
        ...(options.appendSystemPrompt === undefined ? {} : { appendPrompt: options.appendSystemPrompt }),
      }),
      onError: (error) => warn(error instanceof Error ? error.message : String(error)),
      ...options.harnessOptions,
    });
    const choice = options.session ?? { kind: "new" };
    const session = await startSession(
      { harness, store, sourceStore, cwd: options.cwd, notice: warn },
      choice,
    );
    if (choice.kind !== "new") {
      // The model the session's entries record (the harness may have fallen back to the default).
      const recorded = session.session.buildContext().model;
      const differs = recorded?.provider !== options.model.provider || recorded?.modelId !== options.model.id;
      if (options.modelExplicit === true && differs) {
        await session.setModel(options.model);
      }
      if (options.thinkingExplicit === true && options.thinkingLevel !== undefined) {
        if (session.state.thinkingLevel !== options.thinkingLevel)
          await session.setThinkingLevel(options.thinkingLevel);
      }
    }
    for (const warning of session.warnings) warn(warning);
    const storeDescription = options.persistent
      ? describeStoreLocation(parseStoreUrl(options.storeUrl, { env: options.env, cwd: options.cwd }))
      : undefined;
    return new Runtime(
      {
        version: options.version,
        cwd: options.cwd,
        registry,
        model: options.model,
        store,
        storeDescription,
        persistent: options.persistent,
        harness,
      },
      session,
      options,
      release,
    );
  } catch (error) {
    await harness?.close();
    await release();
    await store.close?.();
    throw error;
  }
}
