import {
  type AssistantMessage,
  addUsage,
  complete,
  createProviderStream,
  emptyUsage,
  type StreamFn,
  type Usage,
} from "@arbor/ai-providers";
import type { SessionEntry, SessionMessage } from "@arbor/session-store";
import { compact } from "../compact.js";
import { effectiveCompactionSettings } from "../effective-settings.js";
import { prepareCompaction } from "../prepare.js";
import { serializeMessage } from "../serialize.js";
import { type CompactionSettings, resolveCompactionSettings } from "../settings.js";
import type { SummarizerTarget } from "../summarizer.js";
import { type ArtifactRetention, extractArtifacts, scoreRetention } from "./artifacts.js";
import { evalModel } from "./extractive-summarizer.js";

/** One session to evaluate: its branch, root first (`session.getBranch()`, or a file's path to its leaf). */
export interface EvalSession {
  name: string;
  entries: readonly SessionEntry[];
}

/** A question with known answers, asked of a model that sees only the compacted context. */
export interface RecallProbe {
  question: string;
  /** Strings the answer must contain (exact, case-sensitive); the score is the share found. */
  answers: string[];
}

/** Options of {@link evaluateCompaction}. */
export interface EvalOptions {
  /** The summarizer; absent: the deterministic fallback only (no model). */
  summarizer?: SummarizerTarget;
  /** Settings (partial; validated). Default: the defaults, `keepRecentTokens` as below. */
  settings?: Partial<CompactionSettings>;
  /** Share of the branch's tokens kept verbatim, when `settings.keepRecentTokens` is not given. Default 0.25. */
  keepRatio?: number;
  /** The session model's window, for the continuation check. Default: the summarizer's, else 200,000. */
  contextWindow?: number;
  /** Opt-in recall probes: asked of `answerer` (usually a real model) with the compacted context only. */
  recall?: {
    answerer: SummarizerTarget;
    probes?: (artifacts: ReturnType<typeof extractArtifacts>) => RecallProbe[];
  };
  signal?: AbortSignal;
}

/** The scores of one session. */
export interface SessionEvalResult {
  name: string;
  /** `compacted`, or why not (`nothing_to_compact: <reason>`, `aborted`). */
  status: string;
  summarizer: string;
  retention?: ArtifactRetention;
  continuation?: { fits: boolean; namesGoal: boolean; namesNextStep: boolean; score: number };
  compression?: {
    tokensBefore: number;
    tokensAfter: number;
    summaryTokens: number;
    /** tokensAfter / tokensBefore. */
    ratio: number;
    summarizerCalls: number;
    summarizerInputTokens: number;
    summarizerOutputTokens: number;
    costUsd: number;
    fallback?: string;
  };
  recall?: { probes: number; score: number; answers: { question: string; found: number; total: number }[] };
}

function createFailingStream(
  model: Parameters<StreamFn>[0],
  options: Parameters<StreamFn>[2],
): ReturnType<StreamFn> {
  return createProviderStream(model, options, ({ writer }) => {
    writer.fail("error", "evaluation of the deterministic fallback (no summarizer)");
  });
}

/** The fallback "summarizer": a model whose every call fails at once, so `compact()` writes the deterministic digest. */
export function fallbackOnlySummarizer(contextWindow = 200_000): SummarizerTarget {
  return {
    model: evalModel("fallback", "Deterministic fallback", contextWindow),
    stream: (model, _context, options) => createFailingStream(model, options),
  };
}

const GOAL = /## Goal\s*\n+\s*-\s*\S|## (User Requests|Original Request)\s*\n+\s*-\s*(?!\(none\))\S/;
const NEXT =
  /## Next Steps\s*\n+\s*(\d+\.|-)\s*\S|## Last Assistant Message\s*\n+\S|## User Requests\s*\n+\s*-\s*(?!\(none\))\S/;

/** The default probes: the exact files modified and read, and the error messages, of the compacted span. */
export function defaultRecallProbes(artifacts: ReturnType<typeof extractArtifacts>): RecallProbe[] {
  const probes: RecallProbe[] = [];
  if (artifacts.modifiedFiles.length > 0)
    probes.push({
      question: "List the exact paths of the files that were modified.",
      answers: artifacts.modifiedFiles,
    });
  if (artifacts.readFiles.length > 0)
    probes.push({
      question: "List the exact paths of the files that were read.",
      answers: artifacts.readFiles,
    });
  if (artifacts.errors.length > 0)
    probes.push({
      question: "Quote the error messages the tools returned, exactly.",
      answers: artifacts.errors,
    });
  return probes;
}

async function askProbes(
  answerer: SummarizerTarget,
  context: string,
  probes: readonly RecallProbe[],
  signal: AbortSignal | undefined,
): Promise<NonNullable<SessionEvalResult["recall"]>> {
  const answers: { question: string; found: number; total: number }[] = [];
  for (const probe of probes) {
    const response: AssistantMessage = await complete(
      answerer.stream,
      answerer.model,
      {
        systemPrompt:
          "Answer the question from the conversation below only. Quote names, paths and messages exactly.",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: `<conversation>\n${context}\n</conversation>\n\n${probe.question}` },
            ],
            timestamp: Date.now(),
          },
        ],
      },
      { maxTokens: 1024, ...(signal === undefined ? {} : { signal }) },
    );
    const text = response.content.map((block) => (block.type === "text" ? block.text : "")).join("\n");
    answers.push({
      question: probe.question,
      found: probe.answers.filter((answer) => text.includes(answer)).length,
      total: probe.answers.length,
    });
  }
  const score =
    answers.length === 0
      ? 1
      : answers.reduce((sum, answer) => sum + answer.found / answer.total, 0) / answers.length;
  return { probes: answers.length, score, answers };
}

/**
 * The window and settings a session is evaluated with: the default settings (or `options.settings`) with
 * `keepRecentTokens` a share (`keepRatio`, default a quarter) of the branch's estimated tokens, limited
 * for the window (`effectiveCompactionSettings`); `branchTokens` is that estimate (chars/4, as the cut
 * point counts it — not the usage a provider reported).
 *
 * Contract: pure; O(branch).
 */
export function evalSettings(
  session: EvalSession,
  summarizer: SummarizerTarget,
  options: Pick<EvalOptions, "settings" | "keepRatio" | "contextWindow">,
): { window: number; settings: CompactionSettings; branchTokens: number } {
  const whole = prepareCompaction(session.entries, { ...resolveCompactionSettings(), keepRecentTokens: 0 });
  const branchTokens =
    whole.kind === "ready" ? whole.summarizedTokens + whole.keptTokens : whole.tokensBefore;
  const window = options.contextWindow ?? summarizer.model.contextWindow ?? 200_000;
  const resolved = resolveCompactionSettings({
    keepRecentTokens: Math.floor(branchTokens * (options.keepRatio ?? 0.25)),
    ...options.settings,
  });
  return { window, settings: effectiveCompactionSettings(resolved, window).settings, branchTokens };
}

/**
 * Compacts one session's branch with the summarizer and scores the result (see docs/compaction-eval.md):
 * artifact retention (deterministic), continuation (the next request fits, names the goal and the next
 * step), compression (tokens before and after, summarizer calls, tokens and cost), and, when
 * `options.recall` is given, recall probes answered from the compacted context only.
 *
 * Contract: never writes; takes entries, not a store; never throws for provider failures (the fallback
 * applies, and `compression.fallback` names it).
 */
export async function evaluateCompaction(
  session: EvalSession,
  options: EvalOptions = {},
): Promise<SessionEvalResult> {
  const summarizer = options.summarizer ?? fallbackOnlySummarizer(options.contextWindow);
  const name = `${summarizer.model.provider}/${summarizer.model.id}`;
  const { window, settings } = evalSettings(session, summarizer, options);
  const plan = prepareCompaction(session.entries, settings, { contextWindow: window });
  if (plan.kind !== "ready")
    return { name: session.name, status: `nothing_to_compact: ${plan.reason}`, summarizer: name };

  const outcome = await compact(plan, {
    stream: summarizer.stream,
    model: summarizer.model,
    summarizer,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  if (outcome.kind !== "compacted") return { name: session.name, status: "aborted", summarizer: name };

  const span: SessionMessage[] = [...plan.messagesToSummarize, ...plan.turnPrefixMessages];
  if (plan.previousSummary !== undefined) {
    span.unshift({ role: "compactionSummary", summary: plan.previousSummary, tokensBefore: 0, timestamp: 0 });
  }
  const artifacts = extractArtifacts(span);
  const retention = scoreRetention(artifacts, outcome.summary);
  const fits = outcome.tokensAfter <= window - settings.reserveTokens;
  const namesGoal = GOAL.test(outcome.summary);
  const namesNextStep = NEXT.test(outcome.summary);
  const usage: Usage = addUsage(emptyUsage(), outcome.usage);
  const result: SessionEvalResult = {
    name: session.name,
    status: "compacted",
    summarizer: name,
    retention,
    continuation: {
      fits,
      namesGoal,
      namesNextStep,
      score: (Number(fits) + Number(namesGoal) + Number(namesNextStep)) / 3,
    },
    compression: {
      tokensBefore: outcome.tokensBefore,
      tokensAfter: outcome.tokensAfter,
      summaryTokens: Math.ceil(outcome.summary.length / 4),
      ratio: outcome.tokensBefore === 0 ? 1 : outcome.tokensAfter / outcome.tokensBefore,
      summarizerCalls: outcome.details.calls,
      summarizerInputTokens: usage.input,
      summarizerOutputTokens: usage.output,
      costUsd: usage.cost.total,
      ...(outcome.details.fallback === undefined ? {} : { fallback: outcome.details.fallback.reason }),
    },
  };
  if (options.recall !== undefined) {
    const kept = plan.keptMessages
      .map((message) => serializeMessage(message, { toolResultMaxChars: settings.toolResultMaxChars }))
      .filter((text): text is string => text !== undefined);
    const context = [`[Summary of earlier conversation]: ${outcome.summary}`, ...kept].join("\n\n");
    const probes = (options.recall.probes ?? defaultRecallProbes)(artifacts);
    result.recall = await askProbes(options.recall.answerer, context, probes, options.signal);
  }
  return result;
}

/** A share as a whole percentage for the tables (`-` when absent). Internal to the eval module. */
export function percent(value: number | undefined): string {
  return value === undefined ? "-" : `${Math.round(value * 100)}%`;
}

/** The results as a Markdown table (one row per session). */
export function formatEvalTable(results: readonly SessionEvalResult[]): string {
  const rows = [
    "| session | summarizer | status | artifacts | files r/m | continuation | tokens before → after | calls | cost $ | recall |",
    "|---|---|---|---|---|---|---|---|---|---|",
  ];
  for (const result of results) {
    const r = result.retention;
    const c = result.compression;
    const files =
      r === undefined
        ? "-"
        : `${r.readFiles.kept}/${r.readFiles.total} · ${r.modifiedFiles.kept}/${r.modifiedFiles.total}`;
    rows.push(
      `| ${result.name} | ${result.summarizer} | ${result.status}${c?.fallback ? ` (fallback: ${c.fallback})` : ""} | ` +
        `${percent(r?.score)} | ${files} | ${percent(result.continuation?.score)} | ` +
        `${c === undefined ? "-" : `${c.tokensBefore} → ${c.tokensAfter}`} | ${c?.summarizerCalls ?? "-"} | ` +
        `${c === undefined ? "-" : c.costUsd.toFixed(4)} | ${percent(result.recall?.score)} |`,
    );
  }
  return rows.join("\n");
}
