import type { AgentTool } from "@arbor/agent-core";
import type { ArborError, Model, ProviderRegistry, StreamFn } from "@arbor/ai-providers";
import type { CompactionStrategy, SummarizerTarget } from "@arbor/compaction";
import type { SessionStore } from "@arbor/session-store";
import type { HookRegistry } from "./hook-registry.js";
import type { HarnessHooks } from "./hooks.js";
import type { ModelSources } from "./models.js";
import type { HarnessResourceLoader, SystemPromptBuilder } from "./session-resources.js";
import type { HarnessSettings, ResolvedHarnessSettings } from "./settings.js";
import type { UnsavedEntriesKeeper } from "./unsaved-entries.js";

/** A separate model for compaction and branch summaries (cheaper, faster, or with a larger window). */
export interface SummarizerOptions {
  /** A model, or `"provider/model"` resolved like any other reference. */
  model: Model | string;
  /** Streams from it; default the harness's stream function. */
  streamFn?: StreamFn;
}

/** Options of `createHarness()`. `store`, `model` and one of `streamFn` / `registry` are required. */
export interface HarnessOptions {
  /** Streams model responses. Give this or `registry`. */
  streamFn?: StreamFn;
  /** A provider registry: its `streamFn`, and its `resolveModel` for `"provider/model"` references. */
  registry?: Pick<ProviderRegistry, "streamFn" | "resolveModel">;
  /** The model of new sessions (a session reopened keeps the model its entries record, when it resolves). */
  model: Model | string;
  /** Models known by value, for `"provider/model"` references and for restoring sessions. */
  models?: readonly Model[];
  /**
   * Resolves a `"provider/model"` reference (before `registry` and `models`).
   *
   * Contract: returns the model or `undefined`; a throw counts as `undefined`.
   */
  resolveModel?: (reference: string) => Model | undefined;
  /** Where sessions live. The harness never imports a concrete store. */
  store: SessionStore;
  /** The tools of every session (all active unless a session's entries say otherwise). */
  tools?: readonly AgentTool[];
  /** Add the `recall` tool (pulls back the entries a compaction summarized). Default `true`. */
  recallTool?: boolean;
  settings?: HarnessSettings;
  /** A separate summarizer (overrides `settings.compaction.model`). */
  summarizer?: SummarizerOptions;
  /** How sessions are compacted. Default `defaultCompactionStrategy` of `@arbor/compaction`. */
  compactionStrategy?: CompactionStrategy;
  /** The working directory of new sessions. Default `process.cwd()`. */
  cwd?: string;
  /**
   * Where each session's resources come from (context files, skills, prompt templates), read once at its
   * start and used to expand `prompt()` input. Default: none (empty resources, input sent as typed).
   * `createResourceLoader({ home })` of `@arbor/harness/resources` reads Arbor's files.
   */
  resources?: HarnessResourceLoader;
  /**
   * The system prompt: a string is used as it is; a builder is given each session's cwd, active tools,
   * resources and date (at start and when the active tools change). Default: none.
   * `createSystemPromptBuilder()` of `@arbor/harness/resources` builds Arbor's coding prompt.
   */
  systemPrompt?: string | SystemPromptBuilder;
  /** Hook handlers of every session (see `HarnessHookMap`). More can be added with `harness.on()`. */
  hooks?: HarnessHooks;
  /**
   * The clock of entry timestamps, prompt messages and the system prompt's date. Default `() => new Date()`.
   * Keep it in step with `Date.now()`: providers stamp responses with the real time, and compaction compares
   * the two.
   */
  now?: () => Date;
  /**
   * Waits between retries. Default `sleep` of `@arbor/ai-providers`.
   *
   * Contract: resolves after `ms` milliseconds; rejects (or resolves early) when `signal` aborts.
   */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /**
   * Receives failures that do not stop anything: hook handlers and listeners that threw, writes the store
   * refused. Default `console.error`. A save point's refusal reaches it after its `save_error` event has
   * reached every listener, with the event's `error` object.
   *
   * Contract: should not throw; a throw is ignored.
   */
  onError?: (error: ArborError | unknown) => void;
  /**
   * Where the entries a store refused are kept when a save point fails after its retries (a recovery file).
   * Default: none — they stay in memory, and the next save point or operation writes them again.
   */
  unsavedEntries?: UnsavedEntriesKeeper;
}

/** What every session of a harness shares. Internal. */
export interface HarnessRuntime {
  readonly streamFn: StreamFn;
  readonly defaultModel: Model;
  readonly modelSources: ModelSources;
  readonly tools: readonly AgentTool[];
  readonly recallTool: boolean;
  readonly settings: ResolvedHarnessSettings;
  readonly summarizer: SummarizerTarget | undefined;
  readonly strategy: CompactionStrategy;
  readonly store: SessionStore;
  readonly cwd: string;
  readonly resources: HarnessResourceLoader | undefined;
  readonly systemPrompt: HarnessOptions["systemPrompt"];
  readonly hooks: HookRegistry;
  readonly now: () => Date;
  readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  readonly onError: (error: unknown) => void;
  readonly unsavedEntries: UnsavedEntriesKeeper | undefined;
}
