/**
 * {@link ExtensionHost}: the extensions of one runtime — loaded (each into its own staging area, committed
 * only when its default export finished), attached to the harness (hooks), bound to the runtime's current
 * session (events, the session-bound API), and asked for commands. Every failure — a load, a hook, an event
 * handler, a command — is a {@link ExtensionFailure} naming the file and the hook; none reaches the session.
 * Every call of extension code is guarded (`guarded-call.ts`): loads, hooks and event handlers have a time
 * limit (`extension-timeouts.ts`), after which they count as having returned nothing; an abort of the run
 * stops the wait for them at once.
 */
import type { AgentMessage, AgentTool } from "@arbor/agent-core";
import type { Model, Provider } from "@arbor/ai-providers";
import type {
  AgentHarness,
  HarnessEvent,
  HarnessHookHandler,
  HarnessHookName,
  HarnessSession,
} from "@arbor/harness";
import type { CustomEntry } from "@arbor/session-store";
import { parseCommandLine } from "../commands/command-line.js";
import type {
  CustomProjector,
  ExtensionCommand,
  ExtensionCommandInfo,
  ExtensionContext,
  ExtensionEventHandler,
  ExtensionEventName,
  ExtensionLifecycleEvents,
  ExtensionNotice,
  ExtensionNoticeLevel,
} from "./extension-api.js";
import {
  type CompiledExtension,
  compileExtension,
  type ExtensionOrigin,
  type ExtensionSource,
  evaluateExtension,
  prepareExtensionImports,
} from "./extension-loader.js";
import { createExtensionApi, type ExtensionApiHost, emptyStaged } from "./extension-registration.js";
import { type ExtensionTimeoutSettings, extensionTimeoutsFor, hookTimeout } from "./extension-timeouts.js";
import { describeThrown, type FailureWording, guardFailure } from "./guard-failure.js";
import { type GuardedOutcome, guardedCall, guardedSyncCall } from "./guarded-call.js";

/** An extension that loaded, and what it registered. */
export interface LoadedExtension {
  path: string;
  origin: ExtensionOrigin;
  hooks: string[];
  events: string[];
  tools: string[];
  commands: string[];
  providers: string[];
}

/** A failure of an extension: its file, where it failed (`load`, a hook, an event, `/command`) and why. */
export interface ExtensionFailure {
  path: string;
  /** `load`, the hook or event name, `/name` for a command, `project:<type>` for a projector. */
  hook: string;
  message: string;
}

/** What the host needs from the runtime once the runtime exists. */
export interface ExtensionBinding {
  session(): HarnessSession;
  loadModel(reference: string): Promise<Model>;
}

/** Options of {@link ExtensionHost.load}. */
export interface ExtensionHostOptions {
  cwd: string;
  home: string;
  /** Tool names already taken (the built-in and MCP tools). */
  reservedToolNames?: readonly string[];
  /** `extensionTimeouts` of the settings (default: `DEFAULT_EXTENSION_TIMEOUTS`). */
  timeouts?: ExtensionTimeoutSettings;
  /**
   * Receives each failure as it happens.
   *
   * Contract: must not throw.
   */
  onFailure?: (failure: ExtensionFailure) => void;
  /**
   * Receives notices while no front end listens (`onNotice`).
   *
   * Contract: must not throw.
   */
  onUnhandledNotice?: (notice: ExtensionNotice) => void;
}

/** The extensions of one runtime. */
export class ExtensionHost {
  /** The extensions that loaded, in load order. */
  readonly loaded: LoadedExtension[] = [];
  /** Every failure so far (loads, hooks, events, commands), in order. */
  readonly failures: ExtensionFailure[] = [];
  private readonly hooks: {
    path: string;
    name: HarnessHookName;
    handler: HarnessHookHandler<HarnessHookName>;
  }[] = [];
  private readonly events = new Map<
    string,
    { path: string; eventMs: number; handler: ExtensionEventHandler<ExtensionEventName> }[]
  >();
  private readonly toolList: AgentTool[] = [];
  private readonly commands = new Map<string, { path: string; command: ExtensionCommand }>();
  private readonly providerMap = new Map<string, Provider>();
  private readonly projectors: {
    path: string;
    timeoutMs: number;
    customType: string;
    projector: CustomProjector;
  }[] = [];
  private readonly noticeListeners = new Set<(notice: ExtensionNotice) => void>();
  private binding: ExtensionBinding | undefined;
  private unsubscribe: (() => void) | undefined;
  /** Fires when the followed session is aborted; renewed once its operation has settled. */
  private operationAbort = new AbortController();

  /** What the API objects of the extensions reach of the host. */
  private readonly apiHost: ExtensionApiHost;

  private constructor(private readonly options: ExtensionHostOptions) {
    this.apiHost = {
      cwd: options.cwd,
      home: options.home,
      toolTaken: (name) =>
        (options.reservedToolNames ?? []).includes(name) || this.toolList.some((tool) => tool.name === name),
      commandTaken: (name) => this.commands.has(name),
      session: (action) => this.session(action),
      loadModel: (reference) => {
        if (this.binding === undefined)
          throw new Error(
            "setModel needs a session: call it from a hook, an event or a command, not while loading.",
          );
        return this.binding.loadModel(reference);
      },
      notify: (path, message, level) => this.notify(path, message, level),
      report: (path, hook, outcome, wording) => this.report(path, hook, outcome, wording),
    };
  }

  /** A host with no extensions (`--no-extensions`). */
  static empty(options: ExtensionHostOptions): ExtensionHost {
    return new ExtensionHost(options);
  }

  /**
   * Loads the extensions in order.
   *
   * Contract: never rejects for an extension's fault: a file that fails to import, whose default export is
   * not a function or throws (or rejects), or that registers something invalid is a failure with
   * `hook: "load"`, and nothing it registered is kept.
   */
  static async load(
    sources: readonly ExtensionSource[],
    options: ExtensionHostOptions,
  ): Promise<ExtensionHost> {
    const host = new ExtensionHost(options);
    if (sources.length === 0) return host;
    try {
      await prepareExtensionImports();
    } catch (error) {
      for (const source of sources) host.fail(source.path, "load", error);
      return host;
    }
    for (const source of sources) await host.loadOne(source);
    return host;
  }

  /** The tools the extensions registered. */
  get tools(): readonly AgentTool[] {
    return this.toolList;
  }

  /** The providers the extensions registered, by name. */
  get providers(): ReadonlyMap<string, Provider> {
    return this.providerMap;
  }

  /** The registered commands, in registration order (for `/help` and a front end's command list). */
  commandList(): ExtensionCommandInfo[] {
    return [...this.commands.entries()].map(([name, { path, command }]) => ({
      name,
      description: command.description,
      ...(command.arguments === undefined ? {} : { arguments: command.arguments }),
      source: path,
    }));
  }

  /** True when an extension registered `/name`. */
  hasCommand(name: string): boolean {
    return this.commands.has(name);
  }

  /**
   * Runs a registered command with the text after its name.
   *
   * Contract: resolves `false` for an unknown name; a command's throw is reported (file, `/name`) and
   * resolves `true` — it never rejects. A command has no time limit (it may run whole prompts); Ctrl-C stops
   * a loop of it that never yields. Needs a bound runtime.
   */
  async runCommand(name: string, argumentText: string): Promise<boolean> {
    const entry = this.commands.get(name);
    if (entry === undefined) return false;
    const outcome = await guardedCall(
      () => entry.command.run(argumentText.trim(), this.context(entry.path)),
      { timeoutMs: 0, label: `extension ${entry.path}, /${name}` },
    );
    const message = this.report(entry.path, `/${name}`, outcome, { consequence: "the command was stopped" });
    if (message !== undefined) this.notify(entry.path, `/${name} failed: ${message}`, "error");
    return true;
  }

  /**
   * Runs a line `/name args` when `name` is a registered command.
   *
   * Contract: resolves `false` (and does nothing) when the line is not one; else as {@link runCommand}.
   */
  async runCommandLine(text: string): Promise<boolean> {
    const line = parseCommandLine(text);
    if (line === undefined || !this.commands.has(line.name)) return false;
    return this.runCommand(line.name, line.argumentText);
  }

  /**
   * Receives the notices extensions send (`ui.notify`, failed commands); while at least one listener is
   * registered, notices no longer go to the runtime's warnings.
   *
   * Contract: returns a function that removes it; a throwing listener is ignored.
   */
  onNotice(listener: (notice: ExtensionNotice) => void): () => void {
    this.noticeListeners.add(listener);
    return () => {
      this.noticeListeners.delete(listener);
    };
  }

  /**
   * Sends a notice of the runtime itself (e.g. the files an `@path` attached) the way extensions' notices
   * go: to the `onNotice` listeners, or to the runtime's warnings when none listens.
   *
   * Contract: never throws; `source` names the sender (default `arbor`).
   */
  notice(message: string, level: ExtensionNoticeLevel = "info", source = "arbor"): void {
    this.notify(source, message, level);
  }

  /** Registers the extensions' hooks (and the projectors' `context` hook) on a harness. */
  attach(harness: AgentHarness): void {
    for (const { name, handler } of this.hooks) harness.on(name, handler);
    if (this.projectors.length === 0) return;
    harness.on("context", (event, context) => {
      const session = harness.sessions.find((candidate) => candidate.id === context.sessionId);
      if (session === undefined) return undefined;
      const added = this.project(session);
      return added.length === 0 ? undefined : { messages: [...event.messages, ...added] };
    });
  }

  /** Binds the session-bound API to a runtime and starts delivering events (`session_start`, reason `start`). */
  async bind(binding: ExtensionBinding): Promise<void> {
    this.binding = binding;
    await this.follow(binding.session(), "start");
  }

  /** The runtime's current session changed: events now come from it (`session_start`, reason `switch`). */
  async sessionChanged(session: HarnessSession): Promise<void> {
    await this.follow(session, "switch");
  }

  /** The runtime is shutting down: `session_shutdown`, then no more events. */
  async shutdown(): Promise<void> {
    const session = this.binding?.session();
    if (session !== undefined) await this.emit({ type: "session_shutdown", sessionId: session.id });
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  // ------------------------------------------------------------------------------------------ internals

  private async follow(session: HarnessSession, reason: "start" | "switch"): Promise<void> {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.operationAbort = new AbortController();
    if (this.events.size > 0) {
      const stopEvents = session.subscribe((event) => this.emit(event));
      const stopAborts = session.onAbort(() => this.operationAbort.abort());
      this.unsubscribe = () => {
        stopEvents();
        stopAborts();
      };
    }
    await this.emit({ type: "session_start", sessionId: session.id, reason });
  }

  /**
   * Delivers an event to its handlers in order, each waited for up to its `eventMs` — not at all once the
   * session's operation was aborted (they still run), until that operation has settled.
   */
  private async emit(
    event: HarnessEvent | ExtensionLifecycleEvents[keyof ExtensionLifecycleEvents],
  ): Promise<void> {
    const handlers = this.events.get(event.type);
    const signal = this.operationAbort.signal;
    if (event.type === "settled" && signal.aborted) this.operationAbort = new AbortController();
    if (handlers === undefined || this.binding === undefined) return;
    for (const { path, eventMs, handler } of handlers) {
      const outcome = await guardedCall(() => handler(event as never, this.context(path)), {
        timeoutMs: eventMs,
        signal,
        label: `extension ${path}, ${event.type}`,
      });
      this.report(path, event.type, outcome, {
        consequence: "the run went on without it",
        setting: "eventMs",
      });
    }
  }

  private project(session: HarnessSession): AgentMessage[] {
    const branch = session.session.getBranch();
    const added: AgentMessage[] = [];
    for (const { path, timeoutMs, customType, projector } of this.projectors) {
      const entries = branch.filter(
        (entry): entry is CustomEntry => entry.type === "custom" && entry.customType === customType,
      );
      if (entries.length === 0) continue;
      const outcome = guardedSyncCall(() => projector(entries), timeoutMs);
      const failed = this.report(path, `project:${customType}`, outcome, {
        consequence: "added nothing",
        setting: "hookMs",
      });
      if (failed !== undefined || outcome.kind !== "returned") continue;
      if (Array.isArray(outcome.value)) added.push(...outcome.value);
      else if (outcome.value !== undefined && outcome.value !== null) {
        this.fail(path, `project:${customType}`, new Error("a projector must return an array of messages"));
      }
    }
    return added;
  }

  /** Reports a guarded call that failed (once); returns its message, `undefined` when it did not fail. */
  private report(
    path: string,
    hook: string,
    outcome: GuardedOutcome<unknown>,
    wording: FailureWording,
  ): string | undefined {
    const message = guardFailure(outcome, wording);
    if (message !== undefined) this.record({ path, hook, message });
    return message;
  }

  private fail(path: string, hook: string, error: unknown): void {
    this.record({ path, hook, message: describeThrown(error) });
  }

  private record(failure: ExtensionFailure): void {
    this.failures.push(failure);
    try {
      this.options.onFailure?.(failure);
    } catch {
      // The report must not fail the hook.
    }
  }

  private notify(source: string, message: string, level: ExtensionNoticeLevel = "info"): void {
    const notice: ExtensionNotice = { level, message, source };
    if (this.noticeListeners.size === 0) {
      this.options.onUnhandledNotice?.(notice);
      return;
    }
    for (const listener of this.noticeListeners) {
      try {
        listener(notice);
      } catch {
        // A front end's failure must not reach the extension.
      }
    }
  }

  private session(action: string): HarnessSession {
    if (this.binding === undefined) {
      throw new Error(
        `${action} needs a session: call it from a hook, an event or a command, not while loading.`,
      );
    }
    return this.binding.session();
  }

  private context(path: string): ExtensionContext {
    const host = this;
    return {
      get session() {
        return host.session("context.session");
      },
      cwd: this.options.cwd,
      notify: (message, level) => this.notify(path, message, level),
    };
  }

  /**
   * Imports the file and runs its default export, together within `loadMs` (a loop that never yields is
   * stopped too); a failure of either skips the extension.
   */
  private async loadOne(source: ExtensionSource): Promise<void> {
    const staged = emptyStaged();
    const path = source.path;
    const timeouts = extensionTimeoutsFor(this.options.timeouts, path);
    const wording = { consequence: "the extension is skipped", setting: "loadMs" };
    const label = `extension ${path}, load`;
    let compiled: CompiledExtension;
    try {
      compiled = await compileExtension(path);
    } catch (error) {
      this.fail(path, "load", error);
      return;
    }
    const started = Date.now();
    const imported = await guardedCall(() => evaluateExtension(compiled), {
      timeoutMs: timeouts.loadMs,
      label,
    });
    if (imported.kind !== "returned") {
      this.report(path, "load", imported, wording);
      return;
    }
    const left = timeouts.loadMs === 0 ? 0 : Math.max(1, timeouts.loadMs - (Date.now() - started));
    const api = createExtensionApi(this.apiHost, path, staged, timeouts);
    const ran = await guardedCall(() => imported.value(api), {
      timeoutMs: left,
      label,
    });
    if (ran.kind !== "returned") {
      this.report(
        path,
        "load",
        ran.kind === "timed_out" ? { ...ran, timeoutMs: timeouts.loadMs } : ran,
        wording,
      );
      return;
    }
    for (const hook of staged.hooks) this.hooks.push({ path, ...hook });
    for (const { name, handler } of staged.events) {
      const eventMs = timeouts.eventMs;
      this.events.set(name, [...(this.events.get(name) ?? []), { path, eventMs, handler }]);
    }
    this.toolList.push(...staged.tools);
    for (const { name, command } of staged.commands) this.commands.set(name, { path, command });
    for (const provider of staged.providers) this.providerMap.set(provider.id, provider);
    for (const projector of staged.projectors) {
      this.projectors.push({ path, timeoutMs: hookTimeout(timeouts, "context").ms, ...projector });
    }
    this.loaded.push({
      path,
      origin: source.origin,
      hooks: staged.hooks.map((hook) => hook.name),
      events: staged.events.map((event) => event.name),
      tools: staged.tools.map((tool) => tool.name),
      commands: staged.commands.map((command) => command.name),
      providers: staged.providers.map((provider) => provider.id),
    });
  }
}
