import { checkToolSchema } from "@arbor/agent-core";
import { sleep as defaultSleep, type Model } from "@arbor/ai-providers";
import { defaultCompactionStrategy, type SummarizerTarget } from "@arbor/compaction";
import { type CreateSessionOptions, Session } from "@arbor/session-store";
import { InvalidHarnessOptionsError } from "./errors.js";
import type { HarnessOptions, HarnessRuntime } from "./harness-options.js";
import { HarnessSession, type OpenSessions } from "./harness-session.js";
import { HookRegistry } from "./hook-registry.js";
import type { HarnessHookHandler, HarnessHookName } from "./hooks.js";
import { type ModelSources, resolveModelReference } from "./models.js";
import { resolveHarnessSettings } from "./settings.js";

/** Options of `AgentHarness.openSession()`. */
export interface OpenSessionOptions {
  /** The model to continue with instead of the one the session's entries record. */
  model?: Model;
}

/** Options of `AgentHarness.newSession()`. */
export interface NewSessionOptions {
  /** The working directory (default: the harness's `cwd`). Resources are loaded from it. */
  cwd?: string;
  /** The session id (default: a random UUID). */
  id?: string;
  /** Application data stored in the header. */
  metadata?: Record<string, unknown>;
  /** A display name (a `session_info` entry). */
  name?: string;
  /**
   * Store the session with its first entry (its first prompt, usually) instead of at once, so that a session
   * started and left without a prompt leaves nothing behind (default `false`; the CLI and the demo set it).
   * A taken `id` is then found at that first write.
   */
  createOnFirstFlush?: boolean;
}

/**
 * The composition root of Arbor (docs/reference/harness.md): a stream function, a session store, tools and settings
 * turned into running sessions. It never imports a concrete provider or store.
 */
export class AgentHarness {
  private readonly open: OpenSessions = new Map();

  /** @internal Use {@link createHarness}. */
  constructor(private readonly runtime: HarnessRuntime) {}

  /** The model new sessions start with. */
  get defaultModel(): Model {
    return this.runtime.defaultModel;
  }

  /** The sessions this harness has open, by id. */
  get sessions(): readonly HarnessSession[] {
    return [...this.open.values()];
  }

  /**
   * Creates a session in the store and starts it: resources are loaded from its cwd, the system prompt is
   * built, and its model and thinking level are recorded.
   *
   * Contract: rejects with the store's errors (e.g. `SessionExistsError` for a taken id).
   */
  async newSession(options: NewSessionOptions = {}): Promise<HarnessSession> {
    const create: CreateSessionOptions = { cwd: options.cwd ?? this.runtime.cwd, now: this.runtime.now };
    if (options.id !== undefined) create.id = options.id;
    if (options.metadata !== undefined) create.metadata = options.metadata;
    if (options.createOnFirstFlush === true) create.createOnFirstFlush = true;
    const session = await Session.create(this.runtime.store, create);
    const harnessSession = await this.adopt(session, "new");
    if (options.name !== undefined) await harnessSession.setName(options.name);
    return harnessSession;
  }

  /**
   * Opens a stored session and starts it where it was left: its context rebuilt from the entries (docs/session-format.md), with the model, thinking level and tools they record. A session already open in this harness
   * is returned as it is.
   *
   * `options.model` overrides the model the entries record (the user chose one for this run): the recorded
   * one is then neither resolved nor warned about; the change is not recorded until `setModel`.
   *
   * Contract: rejects with the store's `SessionNotFoundError`, `SessionCorruptError`, and
   * `UnsupportedSessionVersionError` (migrate version 1 and 2 files first).
   */
  async openSession(sessionId: string, options: OpenSessionOptions = {}): Promise<HarnessSession> {
    const existing = this.open.get(sessionId);
    if (existing !== undefined) return existing;
    const session = await Session.open(this.runtime.store, sessionId, { now: this.runtime.now });
    return HarnessSession.start(this.runtime, session, "open", this.open, options.model);
  }

  /**
   * Adds a hook handler for every session of this harness (after those given at creation).
   *
   * Contract: returns a function that removes it; applies from the hook's next run.
   */
  on<K extends HarnessHookName>(hook: K, handler: HarnessHookHandler<K>): () => void {
    return this.runtime.hooks.on(hook, handler);
  }

  /** Closes every open session (each waits for its operation in flight). The store is the caller's to close. */
  async close(): Promise<void> {
    await Promise.all([...this.open.values()].map((session) => session.close()));
  }

  private async adopt(session: Session, origin: "new" | "open"): Promise<HarnessSession> {
    return HarnessSession.start(this.runtime, session, origin, this.open);
  }
}

/**
 * Creates a harness. Give a `store`, a `model` and a `streamFn` (or a `registry`); everything else has a
 * default (see {@link HarnessOptions}).
 *
 * @throws {InvalidHarnessOptionsError} for missing or invalid options (naming the field), e.g. two tools with
 * one name or invalid compaction settings; `InvalidToolSchemaError` (agent-core, code `invalid_tool_schema`)
 * for a tool whose `parameters` is no usable schema; `UnresolvedModelError` when `model` or the summarizer
 * model does not resolve.
 */
export function createHarness(options: HarnessOptions): AgentHarness {
  if (typeof options !== "object" || options === null) {
    throw new InvalidHarnessOptionsError("createHarness: options are required ({ store, model, streamFn }).");
  }
  const streamFn = options.streamFn ?? options.registry?.streamFn;
  if (typeof streamFn !== "function") {
    throw new InvalidHarnessOptionsError(
      "createHarness: give `streamFn` or a `registry` to stream model responses.",
    );
  }
  const store = options.store;
  if (typeof store !== "object" || store === null || typeof store.appendEntries !== "function") {
    throw new InvalidHarnessOptionsError("createHarness: `store` must be a SessionStore.");
  }
  const registry = options.registry;
  const resolve = (reference: string): Model | undefined =>
    options.resolveModel?.(reference) ?? registry?.resolveModel(reference);
  const defaultModelOf = typeof options.model === "object" && options.model !== null ? [options.model] : [];
  const modelSources: ModelSources = { resolve, models: [...defaultModelOf, ...(options.models ?? [])] };
  if (options.model === undefined)
    throw new InvalidHarnessOptionsError("createHarness: `model` is required.");
  const defaultModel = resolveModelReference(options.model, modelSources);
  const settings = resolveHarnessSettings(options.settings);

  const tools = [...(options.tools ?? [])];
  const names = new Set<string>();
  for (const tool of tools) {
    if (typeof tool?.name !== "string" || typeof tool.execute !== "function") {
      throw new InvalidHarnessOptionsError("createHarness: every tool must be an AgentTool (name, execute).");
    }
    if (names.has(tool.name))
      throw new InvalidHarnessOptionsError(`createHarness: two tools are named "${tool.name}".`);
    names.add(tool.name);
    checkToolSchema(tool);
  }

  let summarizer: SummarizerTarget | undefined;
  const summarizerModel = options.summarizer?.model ?? settings.compaction.model;
  if (summarizerModel !== undefined) {
    summarizer = {
      model: resolveModelReference(summarizerModel, modelSources),
      stream: options.summarizer?.streamFn ?? streamFn,
    };
  }

  const hooks = new HookRegistry();
  hooks.addAll(options.hooks);
  const onError =
    options.onError ??
    ((error: unknown) => {
      console.error(error);
    });
  return new AgentHarness({
    streamFn,
    defaultModel,
    modelSources,
    tools,
    recallTool: options.recallTool ?? true,
    settings,
    summarizer,
    strategy: options.compactionStrategy ?? defaultCompactionStrategy,
    store,
    cwd: options.cwd ?? process.cwd(),
    resources: options.resources,
    systemPrompt: options.systemPrompt,
    hooks,
    now: options.now ?? (() => new Date()),
    sleep: options.sleep ?? defaultSleep,
    onError,
    unsavedEntries: options.unsavedEntries,
  });
}
