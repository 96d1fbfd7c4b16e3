import type { StreamFn } from "@arbor/ai-providers";
import { type ScriptedStep, script } from "@arbor/ai-providers/testing";
import fc from "fast-check";
import {
  type CompactionPreparation,
  effectiveCompactionSettings,
  formatFileOperations,
  prepareCompaction,
  resolveCompactionSettings,
  TURN_CONTEXT_HEADING,
} from "../src/index.js";
import { call, newSession, provider } from "./helpers.js";

/**
 * Hard cases for the size of a summary: windows of 4,000 to 1,000,000 tokens (small ones often), random
 * histories (a previous summary or not, split turns) and summarizers whose summaries are of random lengths
 * and behave in different ways; and a check that a summary is made of whole lines only.
 */

/** How the scripted summarizer treats the output limit it is given. */
export type SummarizerBehaviour =
  /** Writes its summary whatever `max_tokens` says (a server that ignores it). */
  | "ignores-max-tokens"
  /** Stops at `max_tokens` mid-text (`stopReason: "length"`), as a real server does. */
  | "stops-at-max-tokens"
  /** Like `stops-at-max-tokens`, but a request naming a length ("at most N tokens") is answered within it. */
  | "follows-length-request"
  /** Writes within `max_tokens`, and within the length a request names ("at most N tokens"). */
  | "well-behaved"
  /** Every call fails. */
  | "fails"
  /** Summarizes, but fails every request that names a length. */
  | "fails-when-shortening";

const generalCase = fc.record({
  window: fc.oneof(
    fc.constantFrom(4000, 4096, 6000, 8000, 8192),
    fc.integer({ min: 4000, max: 16_000 }),
    fc.integer({ min: 4000, max: 1_000_000 }),
  ),
  maxTokens: fc.constantFrom(4096, 16_384, 64_000),
  keepRecentTokens: fc.integer({ min: 0, max: 6000 }),
  /** Characters of a previous compaction's summary (0: none). */
  previousChars: fc.oneof(fc.constant(0), fc.integer({ min: 40, max: 60_000 })),
  turns: fc.array(
    fc.record({
      requestWords: fc.integer({ min: 1, max: 40 }),
      answerWords: fc.integer({ min: 0, max: 200 }),
      reads: fc.array(fc.integer({ min: 0, max: 6000 }), { maxLength: 4 }),
      edit: fc.boolean(),
    }),
    { minLength: 1, maxLength: 12 },
  ),
  /** Characters of the summarizer's successive answers (cycled). */
  summaryChars: fc.array(fc.integer({ min: 20, max: 60_000 }), { minLength: 1, maxLength: 3 }),
  behaviour: fc.constantFrom<SummarizerBehaviour>(
    "ignores-max-tokens",
    "stops-at-max-tokens",
    "follows-length-request",
    "well-behaved",
    "fails",
    "fails-when-shortening",
  ),
  seed: fc.integer({ min: 1, max: 1_000_000 }),
});

/** A case whose history is a few short turns, mostly kept: the summary may take only a few tokens. */
const tinyCase = generalCase.chain((test) =>
  fc
    .record({
      keepRecentTokens: fc.integer({ min: 0, max: 80 }),
      previousChars: fc.constant(0),
      turns: fc.array(
        fc.record({
          requestWords: fc.integer({ min: 1, max: 6 }),
          answerWords: fc.integer({ min: 0, max: 12 }),
          reads: fc.array(fc.integer({ min: 0, max: 120 }), { maxLength: 1 }),
          edit: fc.boolean(),
        }),
        { minLength: 2, maxLength: 3 },
      ),
    })
    .map((tiny) => ({ ...test, ...tiny })),
);

export const caseArbitrary = fc.oneof(
  { weight: 4, arbitrary: generalCase },
  { weight: 1, arbitrary: tinyCase },
);

export type HardCase = typeof generalCase extends fc.Arbitrary<infer T> ? T : never;

const WORDS = [
  "parser",
  "token",
  "window",
  "summary",
  "branch",
  "session",
  "store",
  "retry",
  "cache",
  "schema",
  "login",
  "router",
  "render",
  "budget",
  "stream",
  "config",
];

/** Deterministic words from a seed (a small linear congruential generator). */
function wordSource(seed: number): (count: number) => string {
  let state = seed >>> 0 || 1;
  return (count) => {
    const words: string[] = [];
    for (let index = 0; index < count; index++) {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      words.push(WORDS[state % WORDS.length]!);
    }
    return words.join(" ");
  };
}

/**
 * A summary of about `chars` characters made of whole lines: `## Goal`, bullet lines that each hold a
 * parenthesis (so a cut inside one leaves it unbalanced), and a last line `(end)`.
 */
export function summaryText(chars: number, seed: number): string {
  const words = wordSource(seed);
  const lines = ["## Goal"];
  let used = lines[0]!.length;
  while (used + 6 < chars) {
    const line = `- ${words(4)} (${words(2)}) ${words(4)}`;
    lines.push(line);
    used += line.length + 1;
  }
  lines.push("(end)");
  return lines.join("\n");
}

/** A request for a summary of a given length, as `summaryInstructions` words it. */
const LENGTH_REQUEST = /at most ([\d,]+) tokens/;

/** The scripted summarizer of a case; `written` collects every whole text it meant to write. */
export function caseSummarizer(test: HardCase) {
  const written: string[] = [];
  const scripted = provider([], { contextWindow: test.window, maxTokens: test.maxTokens });
  let index = 0;
  const respond = (request: string, asked: number): ScriptedStep => {
    const length = request.match(LENGTH_REQUEST);
    const chars = test.summaryChars[index % test.summaryChars.length]!;
    const seed = test.seed + index++;
    if (test.behaviour === "fails") return script.error("503 summarizer unavailable");
    if (length !== null && test.behaviour === "fails-when-shortening") return script.error("503 busy");
    const follows = test.behaviour === "follows-length-request" || test.behaviour === "well-behaved";
    if (length !== null && follows) {
      const target = Number(length[1]!.replaceAll(",", ""));
      const text = summaryText(Math.min(chars, Math.floor(target * 4 * 0.9)), seed);
      written.push(text);
      return script.text(text);
    }
    if (test.behaviour === "well-behaved") {
      const text = summaryText(Math.min(chars, Math.floor(asked * 4 * 0.9)), seed);
      written.push(text);
      return script.text(text);
    }
    const text = summaryText(chars, seed);
    written.push(text);
    if (test.behaviour !== "ignores-max-tokens" && text.length > asked * 4) {
      return script.text(text.slice(0, asked * 4), { stopReason: "length" });
    }
    return script.text(text);
  };
  const stream: StreamFn = (model, context, options) => {
    const message = context.messages[0];
    const request =
      message?.role === "user" && typeof message.content !== "string"
        ? message.content.map((block) => (block.type === "text" ? block.text : "")).join("")
        : "";
    scripted.push(respond(request, Number(options?.maxTokens)));
    return scripted.stream(model, context, options);
  };
  return { model: scripted.model, stream, written, calls: () => scripted.calls.length };
}

/** The session of a case, its plan (undefined: nothing to compact) and the texts the digest may quote. */
export async function caseSession(test: HardCase) {
  const { session, user, assistant, result } = await newSession();
  const words = wordSource(test.seed * 7 + 3);
  const quoted: string[] = [];
  let previousSummary: string | undefined;
  if (test.previousChars > 0) {
    session.appendMessage(user("Start"));
    const kept = session.appendMessage(user("Continue the work"));
    session.appendMessage(assistant("Working."));
    previousSummary = summaryText(test.previousChars, test.seed + 99);
    session.appendCompaction({
      summary: previousSummary,
      firstKeptEntryId: kept.id,
      tokensBefore: test.window,
      details: { readFiles: ["src/previous.ts"], modifiedFiles: [] },
    });
    quoted.push(previousSummary, "Start", "Continue the work", "Working.");
  }
  let callId = 0;
  test.turns.forEach((turn, turnIndex) => {
    const request = `Request ${turnIndex + 1}: ${words(turn.requestWords)}`;
    quoted.push(request);
    session.appendMessage(user(request));
    for (const size of turn.reads) {
      const id = `c${++callId}`;
      session.appendMessage(assistant([call(id, "read", { path: `src/${words(1)}-${id}.ts` })]));
      session.appendMessage(result(id, words(Math.ceil(size / 7))));
    }
    if (turn.edit) {
      const id = `c${++callId}`;
      session.appendMessage(assistant([call(id, "edit", { path: `src/edit-${id}.ts` })]));
      session.appendMessage(result(id, "edited", { toolName: "edit" }));
    }
    const answer = turn.answerWords > 0 ? `Answer ${turnIndex + 1}: ${words(turn.answerWords)}` : "Done.";
    quoted.push(answer);
    session.appendMessage(assistant(answer));
  });
  const { settings } = effectiveCompactionSettings(
    resolveCompactionSettings({ keepRecentTokens: test.keepRecentTokens, timeoutMs: 2000 }),
    test.window,
  );
  const plan = prepareCompaction(session.getBranch(), settings, { contextWindow: test.window });
  const preparation: CompactionPreparation | undefined = plan.kind === "ready" ? plan : undefined;
  return { session, settings, preparation, quoted, previousSummary };
}

/** Lines every digest or summary may hold besides quoted ones. */
const STRUCTURAL_LINES: readonly RegExp[] = [
  /^$/,
  /^---$/,
  /^\[Automatic digest: .*\]$/,
  /^\[Condensed without a model.*\]$/,
  /^\(Earlier history left out\.\)$/,
  /^\(No earlier history\.\)$/,
  /^## (Summary so far|User Requests|Original Request|Last Assistant Message)$/,
  /^- \(none\)$/,
  /^- \(\d+ more requests? omitted\)$/,
  /^\(… \d+ lines? left out …\)$/,
  /^\d+ files? read, \d+ modified — see details$/,
  /^\(The \d+ oldest messages of the branch did not fit and were left out\.\)$/,
];

/**
 * Why a summary is not made of whole lines (undefined: it is): a truncation marker, an unbalanced
 * parenthesis or bracket, or a line that is neither a whole line of a text the summarizer wrote or the
 * digest quotes, nor one of the lines the summary's format adds.
 */
export function cutMidText(
  summary: string,
  sources: { written: readonly string[]; quoted: readonly string[]; fileLists: string },
): string | undefined {
  if (summary.includes("characters omitted")) return "a truncation marker";
  let parentheses = 0;
  let brackets = 0;
  for (const char of summary) {
    if (char === "(") parentheses++;
    else if (char === ")") parentheses--;
    else if (char === "[") brackets++;
    else if (char === "]") brackets--;
    if (parentheses < 0 || brackets < 0) return "an unbalanced parenthesis";
  }
  if (parentheses !== 0 || brackets !== 0) return "an unbalanced parenthesis";
  const known = new Set<string>([TURN_CONTEXT_HEADING]);
  for (const text of [...sources.written, ...sources.quoted]) {
    for (const line of text.split("\n")) {
      known.add(line);
      known.add(`- ${line}`);
    }
  }
  for (const line of sources.fileLists.split("\n")) known.add(line);
  for (const line of summary.split("\n")) {
    if (known.has(line) || STRUCTURAL_LINES.some((pattern) => pattern.test(line))) continue;
    return `a cut line: ${JSON.stringify(line.length > 80 ? `${line.slice(0, 40)}…${line.slice(-40)}` : line)}`;
  }
  return undefined;
}

/** The file lists a preparation appends (for {@link cutMidText}). */
export function caseFileLists(preparation: CompactionPreparation): string {
  return formatFileOperations(preparation.fileOperations);
}
