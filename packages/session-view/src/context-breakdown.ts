/**
 * What fills a model's context, by category: the system prompt, the tool definitions, each compaction
 * summary, branch summaries, the conversation's messages, and tool results (bash executions count as tool
 * results). Every figure is the `chars / 4` estimate of `@arbor/compaction` (`estimateTokens`), the same
 * one the harness adds to the last reported usage; the `total` beside it is the harness's own figure when
 * it rests on a reported usage.
 * The CLI's `/context` and the web demo's meter show these numbers.
 */
import { estimateTokens, tokensOfChars } from "@arbor/compaction";
import type { SessionMessage } from "@arbor/session-store";

/** A category of {@link ContextBreakdown}. */
export type ContextCategoryKind =
  | "systemPrompt"
  | "tools"
  | "compactionSummary"
  | "branchSummary"
  | "messages"
  | "toolResults";

/** One row of {@link ContextBreakdown}. */
export interface ContextCategory {
  readonly kind: ContextCategoryKind;
  /** For people: `system prompt`, `tools (7)`, `compaction summary`, `messages (12)`, … */
  readonly label: string;
  /** Estimated tokens. */
  readonly tokens: number;
  /** The entry it comes from (a compaction or branch summary), when it is one. */
  readonly entryId?: string;
}

/** The input of {@link contextBreakdown}. */
export interface ContextBreakdownInput {
  readonly systemPrompt: string;
  /** The tool definitions sent with every call. */
  readonly tools: readonly { name: string; description: string; parameters: unknown }[];
  /** The messages of the context (a session's `buildContext().messages`). */
  readonly messages: readonly SessionMessage[];
  /** The entry of each message (same index), e.g. `buildContext().entryIds`. */
  readonly entryIds?: readonly string[];
  /**
   * The harness's estimate (`contextUsage()`): when `anchored` (it rests on the usage a provider reported,
   * which counts the system prompt and the tools) its `tokens` is the total; otherwise it counts the
   * messages only, and the total adds the system prompt and tools rows ({@link shownContextTokens}).
   * Default: the sum of the rows.
   */
  readonly usage?: { readonly tokens: number; readonly anchored: boolean };
  readonly contextWindow: number;
  /** Compaction runs above this many tokens. */
  readonly compactionThreshold: number;
}

/** {@link contextBreakdown}'s result. */
export interface ContextBreakdown {
  /** Non-empty categories, in the order the model reads them. */
  readonly categories: ContextCategory[];
  /** The sum of the categories' estimates. */
  readonly estimated: number;
  /** The context size: {@link shownContextTokens} of `usage` (without `usage`: `estimated`). */
  readonly total: number;
  readonly contextWindow: number;
  readonly compactionThreshold: number;
  /** `total / contextWindow` in percent. */
  readonly percent: number;
}

/**
 * The context's size as every front end shows it (the footer's meter, `/context`, the demo's meter): the
 * harness's usage when `anchored` (a provider's reported usage counts the system prompt and the tools), else
 * its estimate of the messages plus `fixedTokens`, the estimate of the system prompt and tool definitions
 * that every call sends — so the figure does not drop by the fixed part after a compaction.
 *
 * Contract: pure.
 */
export function shownContextTokens(
  usage: { readonly tokens: number; readonly anchored: boolean },
  fixedTokens: number,
): number {
  return usage.anchored ? usage.tokens : usage.tokens + fixedTokens;
}

/**
 * The estimated tokens of what every call sends besides the messages: the system prompt and the tool
 * definitions (as {@link contextBreakdown} counts them).
 *
 * Contract: pure.
 */
export function fixedContextTokens(
  systemPrompt: string,
  tools: readonly { name: string; description: string; parameters: unknown }[],
): { systemPrompt: number; tools: number } {
  const schemas = tools.map(({ name, description, parameters }) => ({ name, description, parameters }));
  return {
    systemPrompt: tokensOfChars(systemPrompt.length),
    tools: tools.length === 0 ? 0 : tokensOfChars(JSON.stringify(schemas).length),
  };
}

function plural(count: number, word: string): string {
  return `${word} (${count.toLocaleString("en-US")})`;
}

/**
 * The breakdown of a context (see the module comment).
 *
 * Contract: pure; O(messages); never throws for well-formed messages.
 */
export function contextBreakdown(input: ContextBreakdownInput): ContextBreakdown {
  const categories: ContextCategory[] = [];
  const push = (category: ContextCategory) => {
    if (category.tokens > 0) categories.push(category);
  };
  const fixed = fixedContextTokens(input.systemPrompt, input.tools);
  push({ kind: "systemPrompt", label: "system prompt", tokens: fixed.systemPrompt });
  push({ kind: "tools", label: plural(input.tools.length, "tools"), tokens: fixed.tools });
  let messages = 0;
  let messageCount = 0;
  let results = 0;
  let resultCount = 0;
  let branch = 0;
  let branchCount = 0;
  input.messages.forEach((message, index) => {
    const tokens = estimateTokens(message);
    switch (message.role) {
      case "compactionSummary": {
        const entryId = input.entryIds?.[index];
        push({
          kind: "compactionSummary",
          label: "compaction summary",
          tokens,
          ...(entryId === undefined ? {} : { entryId }),
        });
        return;
      }
      case "branchSummary":
        branch += tokens;
        branchCount++;
        return;
      case "toolResult":
      case "bashExecution":
        results += tokens;
        resultCount++;
        return;
      default:
        messages += tokens;
        messageCount++;
    }
  });
  push({ kind: "branchSummary", label: plural(branchCount, "branch summaries"), tokens: branch });
  push({ kind: "messages", label: plural(messageCount, "messages"), tokens: messages });
  push({ kind: "toolResults", label: plural(resultCount, "tool results"), tokens: results });
  const estimated = categories.reduce((sum, category) => sum + category.tokens, 0);
  const total =
    input.usage === undefined ? estimated : shownContextTokens(input.usage, fixed.systemPrompt + fixed.tools);
  return {
    categories,
    estimated,
    total,
    contextWindow: input.contextWindow,
    compactionThreshold: input.compactionThreshold,
    percent: input.contextWindow > 0 ? (total / input.contextWindow) * 100 : 0,
  };
}
