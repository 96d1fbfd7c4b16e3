import type { AssistantEvent, AssistantMessage, AssistantStream } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import { checkStreamProtocol } from "../stream-protocol.js";
import { startFakeAnthropicServer } from "../wire/anthropic-server.js";
import { chatFrames, responsesFrames, startOpenAIWireServer } from "../wire/openai-server.js";
import type { StreamReading } from "./read-recording.js";
import { type CorpusFolder, loadStreamCorpus, type RecordedResponse } from "./stream-corpus.js";

/** Options of {@link describeStreamCorpus}. */
export interface DescribeStreamCorpusOptions {
  /** The corpus folder whose recordings the provider reads (its wire protocol). */
  folder: CorpusFolder;
  /**
   * Streams one recorded response: the provider pointed at `baseURL` (a local server that sends the
   * recording, whatever the request), any model and context.
   *
   * Contract: returns the provider's stream unread; the suite drains it.
   */
  stream(baseURL: string, response: RecordedResponse): AssistantStream;
  /** Maps a tool call id as the provider keeps it to the vendor's id (default: unchanged). */
  vendorToolCallId?: (id: string) => string;
  /**
   * Parts the provider knowingly does not read, as a reading names them (`web_search_call`; a part that
   * runs on the client is named `<type> (client)`): server-side tools whose outcome the model's text
   * reports, metadata beside the text. Any other part the reading skips must reach the user — as a notice
   * on the message, or in its error, which is how a response with nothing else must end.
   */
  knowinglySkipped?: ReadonlySet<string>;
}

/** The wire type of a part a reading skipped (`shell_call (client)` → `shell_call`). */
function wireType(part: string): string {
  return part.split(" ")[0] ?? part;
}

/** What the provider made of a response, in the terms of a {@link StreamReading}. */
export function readingOfMessage(
  message: AssistantMessage,
  vendorToolCallId: (id: string) => string = (id) => id,
): Omit<StreamReading, "skipped" | "error"> {
  let text = "";
  let thinking = "";
  const toolCalls: StreamReading["toolCalls"] = [];
  for (const block of message.content) {
    if (block.type === "text") text += block.text;
    else if (block.type === "thinking") thinking += block.thinking;
    else if (block.type === "toolCall") {
      toolCalls.push({ id: vendorToolCallId(block.id), name: block.name, arguments: block.arguments });
    }
  }
  const { input, output, cacheRead, cacheWrite } = message.usage;
  return {
    text,
    thinking,
    toolCalls,
    stopReason: message.stopReason === "aborted" ? "error" : message.stopReason,
    usage: { input, output, cacheRead, cacheWrite },
    servedBy: message.model,
  };
}

async function replay(
  response: RecordedResponse,
  stream: DescribeStreamCorpusOptions["stream"],
): Promise<{ events: AssistantEvent[]; result: AssistantMessage }> {
  if (response.folder === "anthropic") {
    const events = response.payloads.map((data) => ({ event: String(data.type), data }));
    const server = await startFakeAnthropicServer([{ kind: "stream", events }]);
    try {
      return await drain(stream(server.url, response));
    } finally {
      await server.close();
    }
  }
  const frames =
    response.rawSse !== undefined
      ? [response.rawSse]
      : response.folder === "openai-chat"
        ? chatFrames(response.payloads)
        : responsesFrames(response.payloads as { type: string }[]);
  const server = await startOpenAIWireServer([{ kind: "sse", frames }]);
  try {
    return await drain(stream(server.url, response));
  } finally {
    await server.close();
  }
}

async function drain(
  stream: AssistantStream,
): Promise<{ events: AssistantEvent[]; result: AssistantMessage }> {
  const events: AssistantEvent[] = [];
  for await (const event of stream) events.push(event);
  return { events, result: await stream.result() };
}

/**
 * Replays every recorded response of a corpus folder (`fixtures/streams/<folder>`: streams recorded from
 * vendors' real APIs, with provenance) through a provider over local HTTP, and checks that the provider
 * reads each as the corpus's independent reading says: text, thinking, tool calls with their arguments,
 * stop reason, usage, the model that served it, the vendor's error words; that its event stream keeps the
 * protocol; and that nothing the reading skips vanishes unless the provider knowingly skips it.
 */
export function describeStreamCorpus(options: DescribeStreamCorpusOptions): void {
  const responses = loadStreamCorpus(options.folder);
  const knowinglySkipped = options.knowinglySkipped ?? new Set<string>();

  describe(`recorded streams: fixtures/streams/${options.folder} (${responses.length} responses)`, () => {
    it.each(
      responses.map((response) => [`${response.file}#${response.index} (${response.vendor})`, response]),
    )("%s", async (_name, response) => {
      const { events, result } = await replay(response, options.stream);
      expect(checkStreamProtocol(events, result)).toEqual([]);
      const { skipped, error, servedBy, ...read } = response.reading;
      const unread = (skipped ?? []).filter((part) => !knowinglySkipped.has(part));
      // Arbor's rule beyond the reading: a response with no answer but parts the provider cannot read is
      // never a silent stop — it ends in an error naming them.
      const answered = read.text !== "" || read.toolCalls.length > 0;
      const expected = !answered && unread.length > 0 ? { ...read, stopReason: "error" as const } : read;
      const actual = readingOfMessage(result, options.vendorToolCallId);
      // A reply that ends in an error runs none of its tool calls (agent-core answers each with "not
      // executed"), so what a broken stream left of a call is kept as partial content, not compared.
      const failed = expected.stopReason === "error";
      expect({
        ...actual,
        servedBy: servedBy === undefined ? undefined : actual.servedBy,
        toolCalls: failed ? [] : actual.toolCalls,
      }).toEqual({ ...expected, servedBy, toolCalls: failed ? [] : expected.toolCalls });
      if (error !== undefined) expect(result.errorMessage ?? "").toContain(error);
      const said = [...(result.notices ?? []), result.errorMessage ?? ""].join("\n");
      for (const part of unread) {
        expect(said, `"${part}" was neither read nor reported`).toContain(wireType(part));
      }
    });
  });
}
