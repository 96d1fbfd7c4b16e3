import { createHash } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import { dirname } from "node:path";
import { ArborError } from "../errors.js";
import type { AssistantEvent } from "../events.js";
import type { StreamOptions } from "../provider.js";
import type { AssistantMessage, Context, Message, Model } from "../types.js";

/**
 * Cassettes: the file format of record and replay. A cassette is a JSON Lines file; each line is one
 * interaction — a normalized request, the events the provider produced for it (without their `partial`
 * message, which the replay rebuilds) and the final message. Lines are appended as interactions end, so a
 * cassette can be written by several sessions and read while it grows.
 */

/** Version of the cassette line format. */
export const CASSETTE_VERSION = 1;

/**
 * A request as recorded: only what decides the model's answer, in a stable form. Message timestamps,
 * usage and costs, tool-result `details`, signals, API keys, HTTP headers and hooks are left out, so the
 * same conversation asked again (in another run, at another time) has the same key.
 */
export interface RecordedRequest {
  /** `provider/modelId`. */
  model: string;
  api: string;
  systemPrompt?: string;
  messages: unknown[];
  tools?: { name: string; description: string; parameters: unknown }[];
  /** The options that change the answer: `reasoning`, `maxTokens`, `temperature`, `cacheRetention`. */
  options: Record<string, unknown>;
}

/** An event without its `partial` message. */
export type RecordedEvent =
  | { type: "start" }
  | {
      type: "text_start" | "text_end" | "thinking_start" | "thinking_end" | "toolcall_start" | "toolcall_end";
      contentIndex: number;
    }
  | { type: "text_delta" | "thinking_delta" | "toolcall_delta"; contentIndex: number; delta: string }
  | { type: "done"; reason: "stop" | "length" | "toolUse" }
  | { type: "error"; reason: "error" | "aborted" };

/** One line of a cassette. */
export interface CassetteEntry {
  version: number;
  /** SHA-256 (hex) of the request's stable JSON: see {@link requestKey}. */
  key: string;
  /** ISO time the interaction ended. */
  recordedAt: string;
  request: RecordedRequest;
  /** The model as given to the provider (sensitive headers removed). */
  model: Model;
  events: RecordedEvent[];
  /** The final message (`result()` of the stream). */
  message: AssistantMessage;
}

/** A cassette could not be read: missing, unreadable, or not a cassette. */
export class CassetteError extends ArborError {
  constructor(
    readonly file: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("cassette_invalid", `Cassette ${file}: ${message}`, options);
    this.name = "CassetteError";
  }
}

/** JSON with object keys sorted at every level (arrays keep their order); `undefined` fields dropped. */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sortKeys(item)));
  if (typeof value !== "object" || value === null) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const item = (value as Record<string, unknown>)[key];
    if (item !== undefined && typeof item !== "function") sorted[key] = sortKeys(item);
  }
  return sorted;
}

/** A JSON copy: drops `undefined`, functions and symbol keys (TypeBox's markers). */
function plain<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}

/** The part of a message the model sees. */
function normalizeMessage(message: Message): unknown {
  switch (message.role) {
    case "user":
      return { role: "user", content: plain(message.content) };
    case "assistant":
      return {
        role: "assistant",
        provider: message.provider,
        api: message.api,
        model: message.model,
        content: plain(message.content),
        stopReason: message.stopReason,
      };
    case "toolResult":
      return {
        role: "toolResult",
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        content: plain(message.content),
        isError: message.isError,
      };
  }
}

const KEYED_OPTIONS = ["reasoning", "maxTokens", "temperature", "cacheRetention"] as const;

/**
 * Normalizes a request for recording and matching: the model reference, the system prompt, the
 * messages as the model sees them, the tools (name, description, JSON schema) and the options that change
 * the answer. Never includes API keys, headers, signals, hooks or timestamps.
 */
export function normalizeRequest(model: Model, context: Context, options?: StreamOptions): RecordedRequest {
  const request: RecordedRequest = {
    model: `${model.provider}/${model.id}`,
    api: model.api,
    messages: context.messages.map(normalizeMessage),
    options: {},
  };
  if (context.systemPrompt !== undefined) request.systemPrompt = context.systemPrompt;
  if (context.tools !== undefined) {
    request.tools = context.tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: plain(tool.parameters),
    }));
  }
  for (const name of KEYED_OPTIONS) {
    const value = options?.[name];
    if (value !== undefined) request.options[name] = value;
  }
  return request;
}

/** The key of a request: SHA-256 (hex) of its {@link stableStringify} form. */
export function requestKey(request: RecordedRequest): string {
  return createHash("sha256").update(stableStringify(request)).digest("hex");
}

/** Header names that may carry credentials. */
const SENSITIVE_HEADER = /auth|key|token|secret|cookie|session|password/i;

/** The model without headers that may carry credentials. */
export function sanitizeModel(model: Model): Model {
  const copy = plain(model);
  if (copy.headers !== undefined) {
    const headers = Object.fromEntries(
      Object.entries(copy.headers).filter(([name]) => !SENSITIVE_HEADER.test(name)),
    );
    if (Object.keys(headers).length > 0) copy.headers = headers;
    else delete copy.headers;
  }
  return copy;
}

/** An event without its partial message. */
export function compactEvent(event: AssistantEvent): RecordedEvent {
  switch (event.type) {
    case "start":
      return { type: "start" };
    case "text_delta":
    case "thinking_delta":
    case "toolcall_delta":
      return { type: event.type, contentIndex: event.contentIndex, delta: event.delta };
    case "done":
      return { type: "done", reason: event.reason };
    case "error":
      return { type: "error", reason: event.reason };
    default:
      return { type: event.type, contentIndex: event.contentIndex };
  }
}

/**
 * Appends one entry as a line (stable key order). Creates the file (mode 0600: conversations may be
 * private) and its directory when missing.
 *
 * @throws the file system's error when the line cannot be written.
 */
export function appendCassetteEntry(file: string, entry: CassetteEntry): void {
  mkdirSync(dirname(file), { recursive: true });
  appendFileSync(file, `${stableStringify(entry)}\n`, { mode: 0o600 });
}

function isEntry(value: unknown): value is CassetteEntry {
  if (typeof value !== "object" || value === null) return false;
  const entry = value as Partial<CassetteEntry>;
  return (
    typeof entry.key === "string" &&
    typeof entry.request === "object" &&
    entry.request !== null &&
    Array.isArray(entry.request.messages) &&
    typeof entry.model === "object" &&
    entry.model !== null &&
    Array.isArray(entry.events) &&
    typeof entry.message === "object" &&
    entry.message !== null &&
    Array.isArray(entry.message.content)
  );
}

/**
 * Reads every entry of a cassette, in recorded order. A last line cut short (a crash mid-write) is
 * ignored; any other line that is not an entry of this version is an error.
 *
 * @throws {CassetteError} when the file is missing or unreadable, or a line is not a valid entry
 *   (naming the line).
 */
export function readCassette(file: string): CassetteEntry[] {
  if (!existsSync(file)) throw new CassetteError(file, "no such file (record one first).");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CassetteError(file, `cannot be read: ${(error as Error).message}`, { cause: error });
  }
  const lines = text.split("\n");
  const entries: CassetteEntry[] = [];
  for (const [index, line] of lines.entries()) {
    if (line.trim() === "") continue;
    const isLast = index === lines.length - 1; // no newline after it: possibly torn
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (isLast) break;
      throw new CassetteError(file, `line ${index + 1} is not JSON: ${(error as Error).message}`);
    }
    if (!isEntry(value)) throw new CassetteError(file, `line ${index + 1} is not a cassette entry.`);
    if (value.version !== CASSETTE_VERSION) {
      throw new CassetteError(
        file,
        `line ${index + 1} has format version ${String(value.version)}; this version reads ${CASSETTE_VERSION}.`,
      );
    }
    entries.push(value);
  }
  return entries;
}
