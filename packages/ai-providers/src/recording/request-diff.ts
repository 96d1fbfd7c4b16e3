import { type RecordedRequest, stableStringify } from "./cassette.js";

/**
 * Explains a replay miss: which recorded request is nearest to the one asked, and where they first
 * differ — so a test author sees at once whether the prompt, a tool result or an option changed.
 */

/** Longest excerpt of a value in a difference. */
const MAX_EXCERPT = 80;

function excerpt(value: unknown): string {
  const text = value === undefined ? "(absent)" : stableStringify(value);
  return text.length > MAX_EXCERPT ? `${text.slice(0, MAX_EXCERPT)}…` : text;
}

/** The first path at which two JSON values differ, with both values there; undefined when equal. */
export function firstDifference(
  recorded: unknown,
  asked: unknown,
  path = "",
): { path: string; recorded: unknown; asked: unknown } | undefined {
  if (recorded === asked) return undefined;
  const bothArrays = Array.isArray(recorded) && Array.isArray(asked);
  const bothObjects =
    !bothArrays &&
    typeof recorded === "object" &&
    recorded !== null &&
    typeof asked === "object" &&
    asked !== null &&
    !Array.isArray(recorded) &&
    !Array.isArray(asked);
  if (bothArrays) {
    const length = Math.max(recorded.length, asked.length);
    for (let index = 0; index < length; index++) {
      const found = firstDifference(recorded[index], asked[index], `${path}[${index}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (bothObjects) {
    const keys = [...new Set([...Object.keys(recorded), ...Object.keys(asked)])].sort();
    for (const key of keys) {
      const found = firstDifference(
        (recorded as Record<string, unknown>)[key],
        (asked as Record<string, unknown>)[key],
        path ? `${path}.${key}` : key,
      );
      if (found) return found;
    }
    return undefined;
  }
  return stableStringify(recorded) === stableStringify(asked) ? undefined : { path, recorded, asked };
}

/** How many leading messages two requests share. */
function sharedPrefix(a: readonly string[], b: readonly string[]): number {
  let count = 0;
  while (count < a.length && count < b.length && a[count] === b[count]) count++;
  return count;
}

/**
 * Picks the recorded request nearest to `asked` — most leading messages in common, then the same model,
 * system prompt, tools and options — and describes the first difference. Runs in time linear in the
 * total size of the recorded requests (only on a miss).
 */
export function describeNearest(asked: RecordedRequest, recorded: readonly RecordedRequest[]): string {
  if (recorded.length === 0) return "The cassette holds no recordings.";
  const askedMessages = asked.messages.map((message) => stableStringify(message));
  let best: { index: number; score: number[] } | undefined;
  for (const [index, candidate] of recorded.entries()) {
    const messages = candidate.messages.map((message) => stableStringify(message));
    const score = [
      sharedPrefix(messages, askedMessages),
      candidate.model === asked.model ? 1 : 0,
      candidate.systemPrompt === asked.systemPrompt ? 1 : 0,
      stableStringify(candidate.tools) === stableStringify(asked.tools) ? 1 : 0,
      stableStringify(candidate.options) === stableStringify(asked.options) ? 1 : 0,
      -Math.abs(messages.length - askedMessages.length),
    ];
    if (best === undefined || compareScores(score, best.score) > 0) best = { index, score };
  }
  const nearest = recorded[best!.index]!;
  const difference = firstDifference(nearest, asked);
  const where = difference
    ? `differs at ${difference.path}: recorded ${excerpt(difference.recorded)}, asked ${excerpt(difference.asked)}`
    : "is identical";
  return `Nearest recorded request (#${best!.index + 1}, model ${nearest.model}, ${nearest.messages.length} messages) ${where}.`;
}

function compareScores(a: readonly number[], b: readonly number[]): number {
  for (let index = 0; index < a.length; index++) {
    const difference = (a[index] ?? 0) - (b[index] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
