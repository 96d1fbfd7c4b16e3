import { type Static, Type, validateToolArguments } from "@arbor/ai-providers";
import { InvalidCompactionSettingsError } from "./errors.js";

/**
 * Compaction settings (docs/reference/compaction.md) as a TypeBox schema: the single source of truth for
 * the configuration file and the static type. Validated when loaded, by {@link resolveCompactionSettings}.
 */
export const CompactionSettingsSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: true,
      description: "Whether automatic compaction runs at all (`shouldCompact` is false when off).",
    }),
    reserveTokens: Type.Integer({
      minimum: 256,
      default: 16_384,
      description:
        "Tokens kept free for the answer and the summary's output: compaction runs when the context passes " +
        "`contextWindow - reserveTokens`. The summary's output is capped at 0.8 × this. Not set: 20% of the " +
        "model's window, at most 16,384 (docs/context-budget.md).",
    }),
    keepRecentTokens: Type.Integer({
      minimum: 0,
      default: 20_000,
      description:
        "Tokens of the most recent history kept verbatim after a compaction. Not set: 15% of the model's " +
        "window, at most 20,000 (docs/context-budget.md).",
    }),
    thresholdPercent: Type.Optional(
      Type.Integer({
        minimum: 10,
        maximum: 95,
        description:
          "Compact when the context passes this percentage of the model's window (e.g. 80), or earlier when " +
          "`reserveTokens` says so: the lower threshold wins. Absent: `contextWindow - reserveTokens` alone.",
      }),
    ),
    model: Type.Optional(
      Type.String({
        pattern: "^[^/\\s]+/\\S+$",
        description:
          'A separate model for summaries, as "provider/model" (e.g. "anthropic/claude-haiku-4-5"); ' +
          "absent: the session's model. The harness resolves it and passes `summarizer` to `compact()`.",
      }),
    ),
    toolResultMaxChars: Type.Integer({
      minimum: 0,
      default: 2000,
      description:
        "Longest tool result (and tool-call argument list) shown to the summarizer, in characters; longer ones are cut with a marker.",
    }),
    toolOutputTokens: Type.Optional(
      Type.Integer({
        minimum: 1,
        description:
          "Most tokens one tool result (built-in, MCP or extension) may take in the model's context; longer " +
          "output is cut to its head and tail with a note, and kept whole in the session for `recall`. " +
          "Absent: 10% of the model's window, at most 25,000 (docs/context-budget.md). An MCP server's own " +
          "`toolOutputTokens` wins for its tools.",
      }),
    ),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 0,
        default: 300_000,
        description:
          "Longest wait for one summarizer call, in milliseconds (default 300,000: five minutes); a call " +
          "that has not answered by then is abandoned and the deterministic fallback summarizes the rest. " +
          "0: no limit.",
      }),
    ),
    maxSummarizerCalls: Type.Optional(
      Type.Integer({
        minimum: 1,
        default: 3,
        description:
          "Most summarizer calls one compaction makes (default 3; a split turn's beginning takes one of " +
          "them, at least one is left for the history). History older than what these calls can carry is " +
          "condensed by the deterministic digest (no model), which the calls then update; the original " +
          "entries stay in the session log and can be recalled.",
      }),
    ),
    prune: Type.Optional(
      Type.Boolean({
        default: true,
        description:
          "Before summarizing, replace old tool results (outside the kept tail) by stubs that say how to " +
          "`recall` them, and summarize only when that is not enough (docs/context-budget.md). False: " +
          "summarize at once.",
      }),
    ),
  },
  { additionalProperties: false, title: "CompactionSettings", description: "How and when to compact." },
);

/** Resolved compaction settings (see {@link CompactionSettingsSchema}). */
export type CompactionSettings = Static<typeof CompactionSettingsSchema>;

/** The default of `maxSummarizerCalls`: a compaction makes at most three summarizer calls. */
export const DEFAULT_MAX_SUMMARIZER_CALLS = 3;

/** The default of `timeoutMs`: a summarizer call may take five minutes. */
export const DEFAULT_SUMMARIZER_TIMEOUT_MS = 300_000;

/**
 * The defaults: enabled, reserve 16,384 tokens, keep the most recent 20,000 tokens, tool results cut at
 * 2,000 characters, a summarizer call abandoned after 300,000 ms (five minutes), at most three summarizer
 * calls per compaction, old tool results pruned before a summary.
 */
export const DEFAULT_COMPACTION_SETTINGS: Readonly<CompactionSettings> = Object.freeze({
  enabled: true,
  reserveTokens: 16_384,
  keepRecentTokens: 20_000,
  toolResultMaxChars: 2000,
  timeoutMs: DEFAULT_SUMMARIZER_TIMEOUT_MS,
  maxSummarizerCalls: DEFAULT_MAX_SUMMARIZER_CALLS,
  prune: true,
});

const SETTINGS_TOOL = {
  name: "compaction settings",
  description: "Compaction settings",
  parameters: CompactionSettingsSchema,
};

/**
 * Completes partial settings (e.g. the `compaction` object of a configuration file) with the defaults and
 * validates them. Numbers given as numeric strings (`"16384"`) are accepted; keys set to `undefined`
 * keep their default; `null` or `undefined` means "all defaults".
 *
 * @throws {InvalidCompactionSettingsError} listing every problem with its key, what was expected and what
 * was found — e.g. `reserveTokens: expected integer >= 256, received number 12` or
 * `keepRecentToken: unknown setting (allowed: enabled, reserveTokens, keepRecentTokens, model, toolResultMaxChars)`.
 */
export function resolveCompactionSettings(partial?: unknown): CompactionSettings {
  const input = partial ?? {};
  const checked = validateToolArguments(SETTINGS_TOOL, input);
  if (checked.ok) return checked.value as CompactionSettings;
  const problems = checked.errors.map((issue) => {
    const key = issue.path === "" ? "(settings)" : issue.path.replace(/^\//, "").replaceAll("/", ".");
    if (issue.message.startsWith("unexpected property")) {
      return `${key}: unknown setting (allowed: ${Object.keys(CompactionSettingsSchema.properties).join(", ")})`;
    }
    return `${key}: ${issue.message}`;
  });
  throw new InvalidCompactionSettingsError(
    `Invalid compaction settings:\n${problems.map((line) => `  - ${line}`).join("\n")}`,
    problems,
  );
}

/**
 * The context size above which a compaction runs: `contextWindow - reserveTokens`, or `thresholdPercent` of
 * the window when that is lower. The one rule behind {@link shouldCompact}, the budget's `threshold` and
 * every meter's "compacts at".
 *
 * Example: a 200,000-token window compacts above 183,616 tokens with the default reserve, above 160,000 with
 * `thresholdPercent: 80`.
 *
 * Contract: pure.
 */
export function compactionThreshold(
  contextWindow: number,
  settings: Pick<CompactionSettings, "reserveTokens" | "thresholdPercent">,
): number {
  const byReserve = contextWindow - settings.reserveTokens;
  if (settings.thresholdPercent === undefined) return byReserve;
  return Math.min(byReserve, Math.floor((contextWindow * settings.thresholdPercent) / 100));
}

/**
 * Whether to compact before the next model call (docs/reference/compaction.md): the settings are enabled and the
 * context is larger than {@link compactionThreshold}.
 *
 * Example: a 200,000-token window with the default reserve compacts above 183,616 tokens.
 */
export function shouldCompact(
  contextTokens: number,
  contextWindow: number,
  settings: Pick<CompactionSettings, "enabled" | "reserveTokens" | "thresholdPercent">,
): boolean {
  if (!settings.enabled) return false;
  return contextTokens > compactionThreshold(contextWindow, settings);
}
