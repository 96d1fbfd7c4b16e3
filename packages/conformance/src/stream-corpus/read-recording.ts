/**
 * The independent reading of recorded vendor streams (the corpus in `fixtures/streams/`): what each
 * recorded response says — text, thinking, tool calls with their arguments, stop reason, usage, the model
 * that served it, an error — read straight from the vendors' wire formats as their API references
 * describe them, without any of Arbor's provider code. `scripts/read-stream-corpus.ts` writes these
 * readings into the corpus (where a person reviews them) and {@link describeStreamCorpus} checks a
 * provider against them.
 */

/** What one recorded response says. */
export interface StreamReading {
  /** The text blocks, concatenated. */
  text: string;
  /** The thinking blocks, concatenated (a reasoning item's summary parts joined by a blank line). */
  thinking: string;
  /** Tool calls the client is asked to run, in order. */
  toolCalls: { id: string; name: string; arguments: unknown }[];
  stopReason: "stop" | "length" | "toolUse" | "error";
  usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** The model that served the response, when the stream names another than was asked. */
  servedBy?: string;
  /**
   * With stopReason `error`: the words of the vendor's own error (or refusal) message that the user must
   * see; absent when the stream carried none (it broke off, or broke its protocol).
   */
  error?: string;
  /** Parts the reading skips: server-side tools and metadata, by their wire type. */
  skipped?: string[];
}

/** What a reading records for a second `message_start` that is not a repeat of the first. */
const PROTOCOL_BREAK = "protocol";

/** The Anthropic content blocks a reading reads (any other is skipped, its deltas with it). */
const READ_BLOCKS: ReadonlySet<string> = new Set(["text", "thinking", "redacted_thinking", "tool_use"]);

/** A JSON object. */
export type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);

/** The JSON payloads of a recording: one per line, or `data:` lines of raw SSE; `[DONE]` left out. */
export function recordingPayloads(text: string): Json[] {
  const payloads: Json[] = [];
  for (const raw of text.split("\n")) {
    let line = raw.trim();
    if (line === "" || line.startsWith("event:") || line.startsWith(":")) continue;
    if (line.startsWith("data:")) line = line.slice(5).trim();
    if (line === "[DONE]") continue;
    payloads.push(JSON.parse(line) as Json);
  }
  return payloads;
}

/**
 * Splits a recording into the responses it holds (some recordings are several HTTP responses one after
 * another): each ends with an event whose `type` is one of `ends`.
 */
export function splitResponses(events: readonly Json[], ends: readonly string[]): Json[][] {
  const responses: Json[][] = [];
  let current: Json[] = [];
  for (const event of events) {
    current.push(event);
    if (ends.includes(String(event.type))) {
      responses.push(current);
      current = [];
    }
  }
  if (current.length > 0) responses.push(current);
  return responses;
}

/** The event types that end one response, by corpus folder (Chat recordings hold one response each). */
export const RESPONSE_ENDS = {
  anthropic: ["message_stop"],
  "openai-chat": [],
  "openai-responses": ["response.completed", "response.incomplete", "response.failed"],
} as const;

function parseArguments(json: string, fallback: unknown): unknown {
  if (json.trim() === "") return fallback ?? {};
  return JSON.parse(json);
}

function skip(reading: StreamReading, type: string): void {
  reading.skipped ??= [];
  if (!reading.skipped.includes(type)) reading.skipped.push(type);
}

function emptyReading(): StreamReading {
  return {
    text: "",
    thinking: "",
    toolCalls: [],
    stopReason: "stop",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
}

/**
 * The Anthropic Messages stream: `message_start` (whose message may already hold content, a stop
 * reason and usage), `content_block_start|delta|stop`, `message_delta` (stop reason, usage: fields
 * present replace earlier ones), `message_stop`. A second `message_start` is the same message again
 * only when it has the same id and nothing was read yet; otherwise the stream broke its protocol.
 */
export function readAnthropic(events: readonly Json[]): StreamReading {
  const reading = emptyReading();
  const blocks = new Map<
    number,
    { type: string; text: string; json: string; id: string; name: string; input: unknown }
  >();
  const order: { type: string; text: string; json: string; id: string; name: string; input: unknown }[] = [];
  let stop: unknown;
  let stopDetails: unknown;
  let messageId: string | undefined;
  let stopped = false;
  let broken: string | undefined;
  const usage = (value: unknown) => {
    if (!isRecord(value)) return;
    const set = (key: keyof StreamReading["usage"], field: string) => {
      const n = num(value[field]);
      if (n !== undefined) reading.usage[key] = n;
    };
    set("input", "input_tokens");
    set("output", "output_tokens");
    set("cacheRead", "cache_read_input_tokens");
    set("cacheWrite", "cache_creation_input_tokens");
  };
  const addBlock = (index: number | undefined, block: Json) => {
    const type = String(block.type);
    const entry = {
      type,
      text: "",
      json: "",
      id: String(block.id ?? ""),
      name: String(block.name ?? ""),
      input: block.input,
    };
    if (type === "text") entry.text = String(block.text ?? "");
    else if (type === "thinking") entry.text = String(block.thinking ?? "");
    else if (type === "fallback") {
      const to = isRecord(block.to) ? block.to.model : undefined;
      if (typeof to === "string") reading.servedBy = to;
    } else if (type !== "tool_use" && type !== "redacted_thinking") skip(reading, type);
    if (index !== undefined) blocks.set(index, entry);
    order.push(entry);
  };
  for (const event of events) {
    if (broken !== undefined) break;
    switch (event.type) {
      case "message_start": {
        const message = isRecord(event.message) ? event.message : {};
        if (messageId !== undefined) {
          if (message.id === messageId && order.length === 0) break;
          broken = PROTOCOL_BREAK;
          break;
        }
        messageId = String(message.id ?? "");
        usage(message.usage);
        if (message.stop_reason) stop = message.stop_reason;
        if (Array.isArray(message.content))
          for (const block of message.content) if (isRecord(block)) addBlock(undefined, block);
        break;
      }
      case "content_block_start":
        if (isRecord(event.content_block)) addBlock(num(event.index), event.content_block);
        break;
      case "content_block_delta": {
        const block = blocks.get(num(event.index) ?? -1);
        const delta = isRecord(event.delta) ? event.delta : {};
        if (block === undefined) break;
        if (delta.type === "text_delta") block.text += String(delta.text ?? "");
        else if (delta.type === "thinking_delta") block.text += String(delta.thinking ?? "");
        else if (delta.type === "input_json_delta") block.json += String(delta.partial_json ?? "");
        else if (delta.type !== "signature_delta" && READ_BLOCKS.has(block.type)) {
          // A delta inside a skipped block is skipped with it.
          skip(reading, String(delta.type));
        }
        break;
      }
      case "message_delta": {
        const delta = isRecord(event.delta) ? event.delta : {};
        if (delta.stop_reason) stop = delta.stop_reason;
        if (delta.stop_details) stopDetails = delta.stop_details;
        usage(event.usage);
        break;
      }
      case "message_stop":
        stopped = true;
        break;
      case "error": {
        const error = isRecord(event.error) ? event.error : {};
        broken = String(error.message ?? error.type ?? "");
        break;
      }
    }
  }
  for (const block of order) {
    if (block.type === "text") reading.text += block.text;
    else if (block.type === "thinking") reading.thinking += block.text;
    else if (block.type === "tool_use" && broken === undefined) {
      reading.toolCalls.push({
        id: block.id,
        name: block.name,
        arguments: parseArguments(block.json, block.input),
      });
    }
  }
  if (broken !== undefined)
    return {
      ...reading,
      stopReason: "error",
      ...(broken === PROTOCOL_BREAK || broken === "" ? {} : { error: broken }),
    };
  if (!stopped) return { ...reading, stopReason: "error" };
  if (stop === "refusal") {
    const details = isRecord(stopDetails) ? stopDetails : {};
    return {
      ...reading,
      stopReason: "error",
      ...(details.explanation ? { error: String(details.explanation) } : {}),
    };
  }
  reading.stopReason =
    stop === "tool_use" || (reading.toolCalls.length > 0 && stop !== "max_tokens")
      ? "toolUse"
      : stop === "max_tokens" || stop === "model_context_window_exceeded"
        ? "length"
        : "stop";
  return reading;
}

/**
 * Chat Completions chunks: `choices[0].delta` with `content` (a string, or an array of parts: `text`,
 * and `thinking` holding text parts), `reasoning_content` / `reasoning` (thinking), `tool_calls` by
 * `index`; the last `finish_reason`; the last `usage` (or Groq's `x_groq.usage`). `input` excludes
 * cached prompt tokens; `output` counts every generated token (`total_tokens - prompt_tokens` where a
 * vendor leaves reasoning tokens out of `completion_tokens`).
 */
export function readChat(chunks: readonly Json[]): StreamReading {
  const reading = emptyReading();
  const calls = new Map<number, { id: string; name: string; json: string }>();
  let finish: unknown;
  let lastUsage: Json | undefined;
  let error: string | undefined;
  for (const chunk of chunks) {
    if (isRecord(chunk.error)) error = String(chunk.error.message ?? "error");
    if (isRecord(chunk.usage)) lastUsage = chunk.usage;
    else if (isRecord(chunk.x_groq) && isRecord(chunk.x_groq.usage)) lastUsage = chunk.x_groq.usage;
    const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
    for (const choice of choices) {
      if (!isRecord(choice) || (choice.index ?? 0) !== 0) continue;
      if (choice.finish_reason) finish = choice.finish_reason;
      const delta = isRecord(choice.delta) ? choice.delta : {};
      for (const field of ["reasoning_content", "reasoning"]) {
        if (typeof delta[field] === "string") reading.thinking += delta[field];
      }
      if (typeof delta.content === "string") reading.text += delta.content;
      else if (Array.isArray(delta.content)) {
        for (const part of delta.content) {
          if (!isRecord(part)) continue;
          if (part.type === "text") reading.text += String(part.text ?? "");
          else if (part.type === "thinking" && Array.isArray(part.thinking)) {
            for (const inner of part.thinking)
              if (isRecord(inner)) reading.thinking += String(inner.text ?? "");
          } else skip(reading, `content part ${String(part.type)}`);
        }
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const piece of delta.tool_calls) {
          if (!isRecord(piece)) continue;
          const index = num(piece.index) ?? 0;
          const call = calls.get(index) ?? { id: "", name: "", json: "" };
          calls.set(index, call);
          if (typeof piece.id === "string" && piece.id !== "") call.id = piece.id;
          const fn = isRecord(piece.function) ? piece.function : {};
          if (typeof fn.name === "string" && fn.name !== "") call.name = fn.name;
          if (typeof fn.arguments === "string") call.json += fn.arguments;
        }
      }
    }
  }
  for (const index of [...calls.keys()].sort((a, b) => a - b)) {
    const call = calls.get(index) as { id: string; name: string; json: string };
    reading.toolCalls.push({ id: call.id, name: call.name, arguments: parseArguments(call.json, {}) });
  }
  if (lastUsage !== undefined) {
    const prompt = num(lastUsage.prompt_tokens) ?? 0;
    const details = isRecord(lastUsage.prompt_tokens_details) ? lastUsage.prompt_tokens_details : {};
    const cached = num(details.cached_tokens) ?? num(lastUsage.prompt_cache_hit_tokens) ?? 0;
    const completion = num(lastUsage.completion_tokens) ?? 0;
    const total = num(lastUsage.total_tokens);
    reading.usage = {
      input: prompt - cached,
      output: total !== undefined && total > prompt + completion ? total - prompt : completion,
      cacheRead: cached,
      cacheWrite: 0,
    };
  }
  if (error !== undefined) return { ...reading, stopReason: "error", error };
  if (finish === "content_filter") return { ...reading, stopReason: "error" };
  reading.stopReason =
    finish === "length"
      ? "length"
      : reading.toolCalls.length > 0 || finish === "tool_calls"
        ? "toolUse"
        : "stop";
  return reading;
}

/**
 * Responses API events, correlated by `output_index` (ids may change from event to event): `message`
 * items → text (the `output_text` / `refusal` deltas, or the item's content when nothing streamed),
 * `reasoning` → thinking (summary parts joined by a blank line, or `reasoning_text`), `function_call` →
 * a tool call (`call_id`, name, arguments); the end from `response.completed | incomplete | failed` or an
 * `error` event, usage from the final response (`input` excludes cached tokens).
 */
export function readResponses(events: readonly Json[]): StreamReading {
  const reading = emptyReading();
  interface Item {
    type: string;
    /** The text of each part (summary part, content part), by `summary_index` / `content_index`. */
    parts: Map<string, string>;
    streamed: boolean;
    item: Json;
    json: string;
  }
  const items = new Map<number, Item>();
  let end:
    | { kind: "completed" | "incomplete" | "failed" | "error"; response: Json; message?: string }
    | undefined;
  const itemAt = (index: number, item?: Json): Item => {
    let entry = items.get(index);
    if (entry === undefined) {
      entry = {
        type: String(item?.type ?? ""),
        parts: new Map(),
        streamed: false,
        item: item ?? {},
        json: "",
      };
      items.set(index, entry);
    }
    return entry;
  };
  const partKey = (event: Json) => String(num(event.summary_index) ?? num(event.content_index) ?? 0);
  for (const event of events) {
    const index = num(event.output_index) ?? -1;
    switch (event.type) {
      case "response.output_item.added":
        if (isRecord(event.item)) itemAt(index, event.item);
        break;
      case "response.output_item.done":
        if (isRecord(event.item)) {
          const entry = itemAt(index, event.item);
          entry.item = event.item;
          entry.type = String(event.item.type ?? entry.type);
        }
        break;
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
      case "response.output_text.delta":
      case "response.refusal.delta": {
        const entry = itemAt(index);
        const key = partKey(event);
        entry.parts.set(key, (entry.parts.get(key) ?? "") + String(event.delta ?? ""));
        entry.streamed = true;
        break;
      }
      case "response.reasoning_summary_text.done":
      case "response.reasoning_text.done":
      case "response.output_text.done":
      case "response.refusal.done": {
        // A part's final text; the deltas before it are its beginning (a source that shortened the deltas
        // by hand is read as the deltas say when they are not).
        const entry = itemAt(index);
        const key = partKey(event);
        const final = event.text ?? event.refusal;
        const streamed = entry.parts.get(key) ?? "";
        if (typeof final === "string" && final.startsWith(streamed)) entry.parts.set(key, final);
        entry.streamed = true;
        break;
      }
      case "response.function_call_arguments.delta": {
        const entry = itemAt(index);
        entry.json += String(event.delta ?? "");
        entry.streamed = true;
        break;
      }
      case "response.completed":
      case "response.incomplete":
      case "response.failed":
        end = {
          kind: event.type.slice(9) as "completed",
          response: isRecord(event.response) ? event.response : {},
        };
        break;
      case "error":
        end = {
          kind: "error",
          response: {},
          message: String(event.message ?? (isRecord(event.error) ? event.error.message : undefined) ?? ""),
        };
        break;
    }
    if (end?.kind === "error") break;
  }
  for (const index of [...items.keys()].sort((a, b) => a - b)) {
    const entry = items.get(index) as Item;
    const item = entry.item;
    const parts = [...entry.parts.values()];
    if (entry.type === "message") {
      if (entry.streamed) reading.text += parts.join("");
      else if (Array.isArray(item.content)) {
        for (const part of item.content)
          if (isRecord(part)) reading.text += String(part.text ?? part.refusal ?? "");
      }
    } else if (entry.type === "reasoning") {
      const summary = entry.streamed
        ? parts
        : (Array.isArray(item.summary) ? item.summary : []).map((part) =>
            isRecord(part) ? String(part.text ?? "") : "",
          );
      reading.thinking += summary.filter((text) => text !== "").join("\n\n");
    } else if (entry.type === "function_call") {
      const json = typeof item.arguments === "string" && item.arguments !== "" ? item.arguments : entry.json;
      reading.toolCalls.push({
        id: String(item.call_id ?? ""),
        name: String(item.name ?? ""),
        arguments: parseArguments(json, {}),
      });
    } else if (entry.type !== "") skip(reading, describeItem(entry.type, item));
  }
  const usage = end !== undefined && isRecord(end.response.usage) ? end.response.usage : undefined;
  if (usage !== undefined) {
    const details = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
    const cached = num(details.cached_tokens) ?? 0;
    reading.usage = {
      input: (num(usage.input_tokens) ?? 0) - cached,
      output: num(usage.output_tokens) ?? 0,
      cacheRead: cached,
      cacheWrite: 0,
    };
  }
  if (end === undefined) return { ...reading, stopReason: "error" };
  if (end.kind === "error")
    return { ...reading, stopReason: "error", ...(end.message ? { error: end.message } : {}) };
  if (end.kind === "failed") {
    const error = isRecord(end.response.error) ? end.response.error : {};
    return { ...reading, stopReason: "error", error: String(error.message ?? "failed") };
  }
  if (end.kind === "incomplete") {
    const details = isRecord(end.response.incomplete_details) ? end.response.incomplete_details : {};
    if (details.reason === "content_filter") return { ...reading, stopReason: "error" };
    reading.stopReason = "length";
    return reading;
  }
  reading.stopReason = reading.toolCalls.length > 0 ? "toolUse" : "stop";
  return reading;
}

/**
 * A skipped Responses item by its type, with where it runs when the type alone does not say: a shell
 * call outside a hosted container runs on the client (`shell_call (client)`), as does a tool search
 * without `execution: "server"`.
 */
function describeItem(type: string, item: Json): string {
  if (type === "shell_call") {
    const environment = isRecord(item.environment) ? String(item.environment.type ?? "") : "";
    return environment.startsWith("container") ? type : `${type} (client)`;
  }
  if (type === "tool_search_call") return item.execution === "server" ? type : `${type} (client)`;
  return type;
}

/** The folders of the corpus and how each is read. */
export const CORPUS_FOLDERS = {
  anthropic: (text: string) =>
    splitResponses(recordingPayloads(text), RESPONSE_ENDS.anthropic).map(readAnthropic),
  "openai-chat": (text: string) => [readChat(recordingPayloads(text))],
  "openai-responses": (text: string) =>
    splitResponses(recordingPayloads(text), RESPONSE_ENDS["openai-responses"]).map(readResponses),
} as const;
