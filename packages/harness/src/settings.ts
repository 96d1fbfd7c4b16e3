import type { AgentStreamOptions, QueueMode, ThinkingLevel, ToolExecutionMode } from "@arbor/agent-core";
import { ArborError, type RetryPolicy, resolveRetryPolicy, THINKING_LEVELS } from "@arbor/ai-providers";
import { type CompactionSettings, type ConfiguredBudget, resolveCompactionSettings } from "@arbor/compaction";
import { InvalidHarnessOptionsError } from "./errors.js";
import { type ResolvedSaveRetry, resolveSaveRetry, type SaveRetrySettings } from "./save-retry.js";

/** Retry of transient provider failures: the policy of `@arbor/ai-providers` plus an on/off switch. */
export interface HarnessRetrySettings extends Partial<RetryPolicy> {
  /**
   * Default `true`: failures such as 429, 5xx, `overloaded` or a dropped stream are retried by the harness,
   * after 2, 4 and 8 s (± 20 %), with `retry_*` events. The harness then asks providers not to retry on
   * their own (`maxRetries: 0`), so that every retry is visible and abortable; set `streamOptions.maxRetries`
   * to override.
   */
  enabled?: boolean;
}

/** What a harness does by default; every field is optional. */
export interface HarnessSettings {
  /** Compaction settings (validated by `resolveCompactionSettings`): threshold reserve, kept tail, summarizer model. */
  compaction?: Partial<CompactionSettings>;
  retry?: HarnessRetrySettings;
  /** How long a save point the store refused is retried: 30 s by default, with growing delays. */
  saveRetry?: SaveRetrySettings;
  /** The thinking level of new sessions. Default `off`. */
  thinkingLevel?: ThinkingLevel;
  /** How many steering messages one drain injects. Default `one-at-a-time`. */
  steeringMode?: QueueMode;
  /** How many follow-up messages one drain injects. Default `one-at-a-time`. */
  followUpMode?: QueueMode;
  /** How the tool calls of one response run. Default `parallel`. */
  toolExecution?: ToolExecutionMode;
  /** Options of every model request (API key, max tokens, headers, session id …). */
  streamOptions?: AgentStreamOptions;
}

/** {@link HarnessSettings} with every default filled in. */
export interface ResolvedHarnessSettings {
  compaction: CompactionSettings;
  /**
   * The budget values the user set (`compaction.reserveTokens`, `keepRecentTokens`, `toolOutputTokens`);
   * the others are derived from the model's window (`contextBudget` of `@arbor/compaction`).
   */
  configuredBudget: ConfiguredBudget;
  retry: RetryPolicy;
  retryEnabled: boolean;
  saveRetry: ResolvedSaveRetry;
  thinkingLevel: ThinkingLevel;
  steeringMode: QueueMode;
  followUpMode: QueueMode;
  toolExecution: ToolExecutionMode;
  streamOptions: AgentStreamOptions;
}

const QUEUE_MODES: readonly QueueMode[] = ["one-at-a-time", "all"];
const TOOL_MODES: readonly ToolExecutionMode[] = ["parallel", "sequential"];

/**
 * Completes settings with the defaults and validates them.
 *
 * @throws {InvalidHarnessOptionsError} naming the field and the value given (compaction and retry problems are
 * those of `resolveCompactionSettings` and `resolveRetryPolicy`, kept as the cause).
 */
export function resolveHarnessSettings(settings: HarnessSettings = {}): ResolvedHarnessSettings {
  const { enabled, ...policy } = settings.retry ?? {};
  const compaction = wrap("compaction", () => resolveCompactionSettings(settings.compaction ?? {}));
  return {
    compaction,
    configuredBudget: configuredBudgetOf(settings.compaction ?? {}, compaction),
    retry: wrap("retry", () => resolveRetryPolicy(policy)),
    retryEnabled: enabled ?? true,
    saveRetry: wrap("saveRetry", () => resolveSaveRetry(settings.saveRetry)),
    thinkingLevel: oneOf("thinkingLevel", settings.thinkingLevel, THINKING_LEVELS, "off"),
    steeringMode: oneOf("steeringMode", settings.steeringMode, QUEUE_MODES, "one-at-a-time"),
    followUpMode: oneOf("followUpMode", settings.followUpMode, QUEUE_MODES, "one-at-a-time"),
    toolExecution: oneOf("toolExecution", settings.toolExecution, TOOL_MODES, "parallel"),
    streamOptions: { ...settings.streamOptions },
  };
}

/** The budget values present in the user's compaction settings, as resolved (numeric strings become numbers). */
function configuredBudgetOf(given: object, resolved: CompactionSettings): ConfiguredBudget {
  const configured: ConfiguredBudget = {};
  for (const key of ["reserveTokens", "keepRecentTokens", "toolOutputTokens"] as const) {
    const value = resolved[key];
    if (
      Object.hasOwn(given, key) &&
      (given as Record<string, unknown>)[key] !== undefined &&
      value !== undefined
    ) {
      configured[key] = value;
    }
  }
  return configured;
}

function wrap<T>(field: string, resolve: () => T): T {
  try {
    return resolve();
  } catch (error) {
    const message = ArborError.isInstance(error) ? error.message : String(error);
    throw new InvalidHarnessOptionsError(`settings.${field}: ${message}`, { cause: error });
  }
}

function oneOf<T extends string>(field: string, value: T | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!allowed.includes(value)) {
    throw new InvalidHarnessOptionsError(
      `settings.${field} must be one of ${allowed.map((item) => `"${item}"`).join(", ")}, got ${JSON.stringify(value)}.`,
    );
  }
  return value;
}
