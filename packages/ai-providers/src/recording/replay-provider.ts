import type { AssistantStream } from "../assistant-stream.js";
import type { Provider, StreamOptions } from "../provider.js";
import { type AssistantStreamWriter, abortMessage, createProviderStream } from "../stream-writer.js";
import type { AssistantMessage, Context, Model } from "../types.js";
import { type CassetteEntry, normalizeRequest, readCassette, requestKey } from "./cassette.js";
import { describeNearest } from "./request-diff.js";

/** Options of {@link createReplayProvider}. */
export interface ReplayProviderOptions {
  /**
   * Provider id. Default: the provider id of the recorded models when they share one, else `replay`.
   * The replay answers any model whose request it recorded, whatever its provider id.
   */
  id?: string;
}

/** A provider that answers from a cassette. */
export interface ReplayProvider extends Provider {
  /** Recorded interactions not replayed yet. */
  readonly remaining: number;
}

/** Yields to the event loop, so a consumer can react (and abort) between replayed events. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Copies the fields a block's events do not carry (signatures, the redacted flag) from the recording. */
function copyBlockExtras(writer: AssistantStreamWriter, recorded: AssistantMessage, index: number): void {
  const live = writer.message.content[index];
  const source = recorded.content[index];
  if (live === undefined || source === undefined || live.type !== source.type) return;
  if (live.type === "text" && source.type === "text" && source.textSignature !== undefined) {
    live.textSignature = source.textSignature;
  } else if (live.type === "thinking" && source.type === "thinking") {
    if (source.thinkingSignature !== undefined) live.thinkingSignature = source.thinkingSignature;
    if (source.redacted) live.redacted = true;
  }
}

/** Streams one recorded interaction through the writer, yielding between events. */
async function replay(writer: AssistantStreamWriter, entry: CassetteEntry, signal: AbortSignal | undefined) {
  const recorded = entry.message;
  writer.message.timestamp = recorded.timestamp;
  if (recorded.responseId !== undefined) writer.responseId(recorded.responseId);
  const restoreUsage = () => Object.assign(writer.message.usage, structuredClone(recorded.usage));
  for (const event of entry.events) {
    await nextTurn();
    if (signal?.aborted) {
      writer.fail("aborted", abortMessage(signal));
      return;
    }
    switch (event.type) {
      case "start":
        writer.start();
        break;
      case "text_start":
        writer.startText();
        break;
      case "thinking_start": {
        const block = recorded.content[event.contentIndex];
        writer.startThinking(block?.type === "thinking" && block.redacted ? { redacted: true } : {});
        break;
      }
      case "toolcall_start": {
        const block = recorded.content[event.contentIndex];
        if (block?.type !== "toolCall")
          throw new Error(`recorded tool call #${event.contentIndex} is missing`);
        writer.startToolCall(
          block.id,
          block.name,
          block.thoughtSignature === undefined ? {} : { thoughtSignature: block.thoughtSignature },
        );
        break;
      }
      case "text_delta":
        writer.text(event.delta);
        break;
      case "thinking_delta":
        writer.thinking(event.delta);
        break;
      case "toolcall_delta":
        writer.toolCallDelta(event.delta);
        break;
      case "text_end":
      case "thinking_end":
      case "toolcall_end":
        copyBlockExtras(writer, recorded, event.contentIndex);
        writer.endBlock();
        break;
      case "done":
        restoreUsage();
        writer.done(event.reason);
        return;
      case "error":
        restoreUsage();
        writer.fail(event.reason, recorded.errorMessage ?? "Recorded failure (no message was recorded).");
        return;
    }
  }
}

/**
 * Creates a provider that replays a cassette written by `createRecordingProvider()`, deterministically
 * and without a network: each request is normalized and keyed exactly as when it was recorded; the
 * recordings of one key are replayed in recorded order (a request asked three times gets the first,
 * second and third recorded answers). Events stream as recorded (yielding between them, honouring
 * abort) and the final message is the recorded one, timestamp, usage and cost included.
 *
 * A request with no recording left ends with an `error` message (never a throw) that names the request
 * and the nearest recorded one with their first difference.
 *
 * @throws {CassetteError} at creation when the cassette is missing, unreadable or not a cassette.
 */
export function createReplayProvider(
  cassetteFile: string,
  options: ReplayProviderOptions = {},
): ReplayProvider {
  const entries = readCassette(cassetteFile);
  const byKey = new Map<string, CassetteEntry[]>();
  for (const entry of entries) {
    const list = byKey.get(entry.key);
    if (list === undefined) byKey.set(entry.key, [entry]);
    else list.push(entry);
  }
  const used = new Map<string, number>();
  let replayed = 0;

  const models: Model[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const reference = `${entry.model.provider}/${entry.model.id}`;
    if (seen.has(reference)) continue;
    seen.add(reference);
    models.push(entry.model);
  }
  const providerIds = new Set(models.map((model) => model.provider));
  const id = options.id ?? (providerIds.size === 1 ? [...providerIds][0]! : "replay");

  const stream = (model: Model, context: Context, streamOptions?: StreamOptions): AssistantStream => {
    // The producer runs at once (up to its first await), so the request is read as it is now.
    return createProviderStream(model, streamOptions, async ({ writer, signal }) => {
      const request = normalizeRequest(model, context, streamOptions);
      const key = requestKey(request);
      const recordings = byKey.get(key) ?? [];
      const count = used.get(key) ?? 0;
      const entry = recordings[count];
      if (entry === undefined) {
        const last = request.messages[request.messages.length - 1];
        const asked = `${request.model}, ${request.messages.length} messages, last ${JSON.stringify(last)?.slice(0, 120) ?? "(none)"}`;
        const why =
          recordings.length > 0
            ? `all ${recordings.length} recorded responses to this request were already replayed.`
            : `no recorded response matches this request (${asked}). ${describeNearest(
                request,
                entries.map((candidate) => candidate.request),
              )}`;
        writer.fail("error", `Replay of ${cassetteFile}: ${why} (request key ${key.slice(0, 12)})`);
        return;
      }
      used.set(key, count + 1);
      replayed++;
      await replay(writer, entry, signal);
    });
  };

  return {
    id,
    models,
    stream,
    resolveModel: (modelId) => models.find((model) => model.id === modelId),
    get remaining() {
      return entries.length - replayed;
    },
  };
}
