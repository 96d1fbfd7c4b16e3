import type { SessionMessage } from "@arbor/session-store";
import { FileOperationTracker } from "../file-operations.js";
import { contentText } from "../serialize.js";

/**
 * The artifacts of a compacted span that a good summary keeps, found deterministically: the exact file
 * paths read and modified, identifiers, error messages, numbers and the user's stated constraints.
 */

/** What {@link extractArtifacts} finds. */
export interface Artifacts {
  readFiles: string[];
  modifiedFiles: string[];
  /** Code identifiers the user or assistant wrote: `backticked` words and camelCase / snake_case names. */
  identifiers: string[];
  /** First line of each failed tool result and failed response. */
  errors: string[];
  /** Numbers of two digits or more in the user's messages. */
  numbers: string[];
  /** The user's sentences with must / never / always / don't / do not / should / only / without. */
  constraints: string[];
}

/** Most artifacts of one kind kept (the first ones). */
const MAX_PER_KIND = 50;

const IDENTIFIER = /`([A-Za-z_$][\w$.]{2,60})`|\b([a-z]+[A-Z][A-Za-z0-9]+|[a-z]+_[a-z0-9_]+)\b/g;
const NUMBER = /\b\d{2,}(?:[.,]\d+)*\b/g;
const CONSTRAINT = /\b(must|never|always|don't|do not|should|only|without)\b/i;

function addUnique(list: string[], value: string): void {
  const text = value.trim();
  if (text !== "" && list.length < MAX_PER_KIND && !list.includes(text)) list.push(text);
}

function assistantText(message: SessionMessage): string {
  if (message.role !== "assistant") return "";
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}

/**
 * The artifacts of messages (the span a compaction summarizes).
 *
 * Contract: pure; deterministic; never throws for messages of known roles.
 */
export function extractArtifacts(messages: readonly SessionMessage[]): Artifacts {
  const failed = new Set<string>();
  for (const message of messages) {
    if (message.role === "toolResult" && message.isError) failed.add(message.toolCallId);
  }
  const files = new FileOperationTracker();
  const artifacts: Artifacts = {
    readFiles: [],
    modifiedFiles: [],
    identifiers: [],
    errors: [],
    numbers: [],
    constraints: [],
  };
  for (const message of messages) {
    files.addMessage(message, failed);
    const userText = message.role === "user" ? contentText(message.content) : "";
    const text = `${userText}\n${assistantText(message)}`;
    for (const match of text.matchAll(IDENTIFIER))
      addUnique(artifacts.identifiers, match[1] ?? match[2] ?? "");
    for (const match of userText.matchAll(NUMBER)) addUnique(artifacts.numbers, match[0]);
    for (const sentence of userText.split(/(?<=[.!?])\s+|\n+/)) {
      if (CONSTRAINT.test(sentence)) addUnique(artifacts.constraints, sentence);
    }
    if (message.role === "toolResult" && message.isError) {
      addUnique(artifacts.errors, (contentText(message.content).split("\n")[0] ?? "").slice(0, 160));
    }
    if (message.role === "assistant" && message.stopReason === "error" && message.errorMessage) {
      addUnique(artifacts.errors, message.errorMessage.split("\n")[0]!.slice(0, 160));
    }
  }
  const operations = files.result();
  artifacts.readFiles = operations.readFiles.slice(0, MAX_PER_KIND);
  artifacts.modifiedFiles = operations.modifiedFiles.slice(0, MAX_PER_KIND);
  return artifacts;
}

/** Kept and total of one kind of artifact. */
export interface RetentionCount {
  kept: number;
  total: number;
}

/** Retention per kind, and the mean over the kinds that have any artifact (1 when none has). */
export interface ArtifactRetention {
  readFiles: RetentionCount;
  modifiedFiles: RetentionCount;
  identifiers: RetentionCount;
  errors: RetentionCount;
  numbers: RetentionCount;
  constraints: RetentionCount;
  score: number;
  /** The artifacts the summary lost, by kind. */
  missing: Partial<Record<keyof Artifacts, string[]>>;
}

/** Words of four letters or more, lower case. */
function contentWords(text: string): string[] {
  return text.toLowerCase().match(/[a-z0-9_]{4,}/g) ?? [];
}

/**
 * How many artifacts survive into `summary`: exact substrings for paths, identifiers, errors and numbers;
 * for a constraint, at least 60 % of its words of four letters or more (a summary rephrases).
 *
 * Contract: pure; deterministic.
 */
export function scoreRetention(artifacts: Artifacts, summary: string): ArtifactRetention {
  const lower = summary.toLowerCase();
  const missing: ArtifactRetention["missing"] = {};
  const count = (kind: keyof Artifacts, kept: (value: string) => boolean): RetentionCount => {
    const values = artifacts[kind];
    const lost = values.filter((value) => !kept(value));
    if (lost.length > 0) missing[kind] = lost;
    return { kept: values.length - lost.length, total: values.length };
  };
  const exact = (value: string) => summary.includes(value);
  const constraint = (value: string) => {
    const words = contentWords(value);
    if (words.length === 0) return lower.includes(value.toLowerCase());
    return words.filter((word) => lower.includes(word)).length >= Math.ceil(words.length * 0.6);
  };
  const result = {
    readFiles: count("readFiles", exact),
    modifiedFiles: count("modifiedFiles", exact),
    identifiers: count("identifiers", exact),
    errors: count("errors", exact),
    numbers: count("numbers", exact),
    constraints: count("constraints", constraint),
  };
  const kinds = Object.values(result).filter((value) => value.total > 0);
  const score =
    kinds.length === 0 ? 1 : kinds.reduce((sum, value) => sum + value.kept / value.total, 0) / kinds.length;
  return { ...result, score, missing };
}
