import { addUsage, emptyUsage, type Usage } from "@arbor/ai-providers";
import type { FileListsShortened, SummaryShrunk, SummarySizes } from "./details.js";
import type { FallbackDigest } from "./fallback.js";
import { type FileOperations, formatFileOperations } from "./file-operations.js";
import type { SummaryKind } from "./prompts.js";
import {
  conversationBudgetChars,
  type SummarizeInput,
  type SummarizeOutcome,
  summarize,
} from "./summarizer.js";
import { summaryPieces } from "./summary-bounds.js";
import { CHARS_PER_TOKEN, tokensOfChars } from "./token-estimate.js";

/**
 * Fitting a summary to its limit without cutting it: the summary as written when it fits (file lists
 * counted or dropped first), else a shorter summary asked of the summarizer (at most two extra calls),
 * else the deterministic digest — every one of them whole.
 */

/** Most extra summarizer calls spent asking for a shorter summary. */
export const MAX_SHRINK_CALLS = 2;

/** Smallest room, in tokens, worth asking the summarizer for a shorter summary; below it, the digest. */
export const MIN_RESUMMARY_TOKENS = 64;

/**
 * The share of the room each shortening attempt asks for, in order: models count their own length
 * roughly, so they are asked for less than the room (`max_tokens` is the whole room).
 */
const SHRINK_TARGETS: readonly number[] = [0.75, 0.5];

/** Smallest piece of a summary worth a call. */
const MIN_PIECE_CHARS = 800;

/** The line standing for the file lists when they do not fit: `N files read, M modified — see details`. */
export function fileCountLine(operations: FileOperations): string {
  const read = operations.readFiles.length;
  return `${read} file${read === 1 ? "" : "s"} read, ${operations.modifiedFiles.length} modified — see details`;
}

const FILE_COUNT_LINE = /^\d+ files? read, \d+ modified — see details$/;

/**
 * A summary without a trailing {@link fileCountLine} (with the blank line before it), so that an UPDATE
 * does not show it to the summarizer; the text unchanged when it has none.
 *
 * Contract: pure.
 */
export function stripFileCountLine(summary: string): string {
  const trimmed = summary.trimEnd();
  const lineStart = trimmed.lastIndexOf("\n") + 1;
  if (!FILE_COUNT_LINE.test(trimmed.slice(lineStart))) return summary;
  return trimmed.slice(0, lineStart).trimEnd();
}

/** The ways to write the file lists, longest first: in full, as one count line, not at all. */
function fileListForms(operations: FileOperations): { text: string; shortened?: FileListsShortened }[] {
  const full = formatFileOperations(operations);
  if (full === "") return [{ text: "" }];
  return [
    { text: full },
    { text: `\n\n${fileCountLine(operations)}`, shortened: "counted" },
    { text: "", shortened: "dropped" },
  ];
}

/** Input of {@link fitSummary}. */
export interface FitSummaryInput {
  /** The kind of summary: the prompt a shortening call uses. */
  kind: SummaryKind;
  /** The summary as written (without file lists), by the model or, when it failed, the digest. */
  body: string;
  /** True when the server stopped the model's text at `max_tokens`: it is not whole, whatever its length. */
  incomplete?: boolean;
  /** Shorter whole forms of `body`, tried in order before asking for a shorter summary. */
  alternatives?: readonly string[];
  /** A line kept after the body when it fits (it starts with its blank line), left out whole otherwise. */
  note?: string;
  /** The file lists appended (in full, as a count line, or not at all: whatever fits). */
  fileOperations: FileOperations;
  /** The limit of the whole summary — body, note and file lists — in characters. */
  maxChars: number;
  /** How to call the summarizer for a shorter summary. */
  summarizer: Omit<
    SummarizeInput,
    "kind" | "messages" | "initialSummary" | "maxOutputTokens" | "targetTokens" | "maxCalls"
  >;
  /**
   * Set when the summarizer already failed (its message): the shorter summary is not asked for and the
   * digest is used at once.
   */
  modelFailure?: string;
  /** The deterministic digest of what the summary stands for, within `maxChars`, with `reason` in its first line. */
  digest: (maxChars: number, reason: string) => FallbackDigest;
}

/** What {@link fitSummary} resolves to. */
export interface FittedSummary {
  /** True when the caller's signal fired during a shortening call: `text` must not be used. */
  aborted: boolean;
  /** The summary: body, note (when kept) and file lists (as fitted); at most `maxChars`, whole lines only. */
  text: string;
  /** Extra summarizer calls made. */
  calls: number;
  /** Their usage. */
  usage: Usage;
  /** How the body was replaced; absent when it fitted as written. */
  summaryShrunk?: SummaryShrunk;
  /** The sizes, with `summaryShrunk`. */
  summarySizes?: SummarySizes;
  /** How the file lists were shortened; absent when written in full. */
  fileListsShortened?: FileListsShortened;
  /** True when the digest used here left out whole lines or sections (see `FallbackDigest.shortened`). */
  digestShortened: boolean;
}

/**
 * Fits a summary to `maxChars` without ever cutting text:
 *
 * 1. The body as written (or one of its `alternatives`) when it is whole and fits — with the note, and
 *    the file lists in full, as one count line, or left out, the first that fits.
 * 2. Otherwise the file lists get at most half of the limit (the largest form that fits in it), the note
 *    a quarter of what is left, and the body the rest: the summarizer is asked for a summary of the body
 *    of at most 75 % of that room, then 50 % (`summaryLengthRequest`, `max_tokens` = the room; at most
 *    {@link MAX_SHRINK_CALLS} calls in all, through `summarize` over `summaryPieces` of the body). The
 *    first whole answer that fits is kept (`resummarized`).
 * 3. Otherwise — a room under {@link MIN_RESUMMARY_TOKENS}, answers still too long or stopped at
 *    `max_tokens`, a failed call, or `modelFailure` — the digest is used (`digest`), itself whole lines.
 *
 * Contract: never throws for provider failures; resolves with `aborted: true` when the caller's signal
 * fires; otherwise `text` never exceeds `maxChars` (for `maxChars` ≥ 0) and is made of whole lines of
 * the body, the re-summary or the digest, the note and the file lists.
 */
export async function fitSummary(input: FitSummaryInput): Promise<FittedSummary> {
  const max = Math.max(0, Math.floor(input.maxChars));
  const forms = fileListForms(input.fileOperations);
  const note = input.note ?? "";
  const usage = emptyUsage();
  if (input.incomplete !== true) {
    const fitted = assemble([input.body, ...(input.alternatives ?? [])], note, forms, max);
    if (fitted !== undefined) {
      const result: FittedSummary = {
        aborted: false,
        text: fitted.text,
        calls: 0,
        usage,
        digestShortened: false,
      };
      if (fitted.files !== undefined) result.fileListsShortened = fitted.files;
      return result;
    }
  }

  const files = forms.find((form) => form.text.length <= max / 2) ?? { text: "" };
  const noteChars = note !== "" && note.length <= (max - files.text.length) / 4 ? note.length : 0;
  // The room in whole tokens, so that a body within it is within `roomTokens` by the estimate too.
  const roomTokens = Math.floor((max - files.text.length - noteChars) / CHARS_PER_TOKEN);
  const room = roomTokens * CHARS_PER_TOKEN;
  const writtenTokens = tokensOfChars(input.body.length);
  let calls = 0;
  let shorter: string | undefined;
  let digestReason: NonNullable<SummarySizes["digestReason"]>;
  let reason: string;
  if (input.modelFailure !== undefined) {
    digestReason = "summarizer_failed";
    reason = input.modelFailure;
  } else if (roomTokens < MIN_RESUMMARY_TOKENS) {
    digestReason = "limit_too_small";
    reason = `its summary of ${writtenTokens} tokens did not fit the ${roomTokens} tokens left for it`;
  } else {
    digestReason = "still_too_long";
    reason = `its summary of ${writtenTokens} tokens did not fit the ${roomTokens} tokens left for it, even when asked for a shorter one`;
    let source = input.body;
    for (const share of SHRINK_TARGETS) {
      if (calls >= MAX_SHRINK_CALLS) break;
      const targetTokens = Math.max(1, Math.floor(roomTokens * share));
      const outcome = await shorten(input, source, roomTokens, targetTokens, MAX_SHRINK_CALLS - calls);
      calls += outcome.calls;
      addUsage(usage, outcome.usage);
      if (outcome.aborted) return { aborted: true, text: "", calls, usage, digestShortened: false };
      if (outcome.fallback !== undefined) {
        digestReason = "summarizer_failed";
        reason = outcome.fallback.message;
        break;
      }
      if (outcome.incomplete !== true && outcome.text !== "" && outcome.text.length <= room) {
        shorter = outcome.text;
        break;
      }
      if (outcome.incomplete !== true && outcome.text.length < source.length) source = outcome.text;
    }
  }

  let body: string;
  let digestShortened = false;
  const sizes: SummarySizes = { writtenTokens, limitTokens: roomTokens, finalTokens: 0, shrinkCalls: calls };
  if (shorter !== undefined) {
    body = shorter;
  } else {
    const digest = input.digest(room, reason);
    body = digest.text;
    digestShortened = digest.shortened;
    sizes.digestReason = digestReason;
  }
  sizes.finalTokens = tokensOfChars(body.length);
  // The body is at most `room`, so the chosen file-list form and note fit beside it: `assemble` finds them
  // (or larger ones, when the new body left more room).
  const fitted = assemble([body], note, forms, max) ?? { text: body };
  const result: FittedSummary = {
    aborted: false,
    text: fitted.text,
    calls,
    usage,
    summaryShrunk: shorter !== undefined ? "resummarized" : "digest",
    summarySizes: sizes,
    digestShortened,
  };
  if (fitted.files !== undefined) result.fileListsShortened = fitted.files;
  return result;
}

/**
 * The first of body × note × file-list form that fits `max`: the note kept if possible, then the file
 * lists as long as possible, then the first body. A summary with an empty body does not start with the
 * blank line of what follows it.
 */
function assemble(
  bodies: readonly string[],
  note: string,
  forms: readonly { text: string; shortened?: FileListsShortened }[],
  max: number,
): { text: string; files?: FileListsShortened } | undefined {
  for (const kept of note === "" ? [""] : [note, ""]) {
    for (const form of forms) {
      for (const body of bodies) {
        const text = body === "" ? (kept + form.text).trimStart() : body + kept + form.text;
        if (text.length > max) continue;
        return form.shortened === undefined ? { text } : { text, files: form.shortened };
      }
    }
  }
  return undefined;
}

/** One shortening attempt: the text, in pieces, summarized again asking for at most `targetTokens`. */
function shorten(
  input: FitSummaryInput,
  text: string,
  maxOutputTokens: number,
  targetTokens: number,
  maxCalls: number,
): Promise<SummarizeOutcome> {
  const { model } = input.summarizer.target;
  const pieceChars =
    conversationBudgetChars(
      model,
      maxOutputTokens,
      input.kind,
      input.summarizer.customInstructions,
      targetTokens,
    ) - 64;
  return summarize({
    kind: input.kind,
    messages: summaryPieces(text, Math.max(MIN_PIECE_CHARS, pieceChars), Date.now(), maxCalls),
    maxOutputTokens,
    targetTokens,
    maxCalls,
    ...input.summarizer,
  });
}
