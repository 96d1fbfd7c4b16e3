import type { AssistantEvent, AssistantMessage } from "@arbor/ai-providers";

/**
 * Checks the invariants of the assistant event protocol over one recorded stream and returns every
 * violation found (an empty list means the stream is correct):
 *
 * - `start` comes first; exactly one terminal event (`done` / `error`) comes last;
 * - blocks do not interleave, every `*_start` has its `*_end` with the same `contentIndex`, indexes
 *   are the block's position in the message;
 * - concatenated deltas equal the final text / thinking, and tool-call deltas parse to the final
 *   arguments;
 * - `result` is the terminal event's message; its `stopReason` matches the event's `reason`;
 *   `errorMessage` is set exactly on failures; usage counters and costs are non-negative numbers.
 */
export function checkStreamProtocol(events: readonly AssistantEvent[], result: AssistantMessage): string[] {
  const problems: string[] = [];
  const fail = (message: string) => problems.push(message);
  if (events.length === 0) return ["the stream emitted no events"];
  if (events[0]?.type !== "start") fail(`the first event is "${events[0]?.type}", not "start"`);
  const terminals = events.filter((event) => event.type === "done" || event.type === "error");
  if (terminals.length !== 1) fail(`expected exactly one terminal event, got ${terminals.length}`);
  const last = events[events.length - 1]!;
  if (last.type !== "done" && last.type !== "error") fail(`the last event is "${last.type}", not done/error`);

  let open: { kind: string; index: number; deltas: string[] } | undefined;
  let nextIndex = 0;
  for (const [position, event] of events.entries()) {
    if (event.partial === undefined) fail(`event #${position} (${event.type}) carries no partial message`);
    const [kind, phase] = splitType(event.type);
    if (phase === undefined) continue;
    const index = (event as { contentIndex: number }).contentIndex;
    if (phase === "start") {
      if (open) fail(`${event.type} at index ${index} while ${open.kind} block ${open.index} is still open`);
      if (index !== nextIndex) fail(`${event.type} has contentIndex ${index}, expected ${nextIndex}`);
      open = { kind, index, deltas: [] };
      nextIndex = index + 1;
      continue;
    }
    if (!open || open.kind !== kind || open.index !== index) {
      fail(`${event.type} at index ${index} without a matching ${kind}_start`);
      continue;
    }
    if (phase === "delta") {
      open.deltas.push((event as { delta: string }).delta);
      continue;
    }
    // end
    const joined = open.deltas.join("");
    const block = result.content[index];
    if (kind === "text") {
      const content = (event as { content: string }).content;
      if (content !== joined)
        fail(`text_end ${index}: deltas join to ${quote(joined)}, content is ${quote(content)}`);
      if (block?.type !== "text" || block.text !== joined)
        fail(`text block ${index} of the result differs from its deltas`);
    } else if (kind === "thinking") {
      const content = (event as { content: string }).content;
      if (content !== joined) fail(`thinking_end ${index}: deltas differ from content`);
      if (block?.type !== "thinking" || block.thinking !== joined) {
        fail(`thinking block ${index} of the result differs from its deltas`);
      }
    } else if (kind === "toolcall") {
      const toolCall = (event as Extract<AssistantEvent, { type: "toolcall_end" }>).toolCall;
      if (block !== toolCall && JSON.stringify(block) !== JSON.stringify(toolCall)) {
        fail(`toolcall_end ${index}: its toolCall is not the result's block ${index}`);
      }
      if (!toolCall.id || !toolCall.name) fail(`tool call ${index} lacks an id or a name`);
      if (joined.trim() !== "") {
        try {
          const parsed = JSON.parse(joined) as unknown;
          if (JSON.stringify(parsed) !== JSON.stringify(toolCall.arguments)) {
            fail(
              `tool call ${index}: deltas parse to ${quote(JSON.stringify(parsed))}, arguments are ${quote(JSON.stringify(toolCall.arguments))}`,
            );
          }
        } catch {
          if (result.stopReason !== "error" && result.stopReason !== "aborted") {
            fail(`tool call ${index}: its argument deltas are not valid JSON: ${quote(joined)}`);
          }
        }
      }
    }
    open = undefined;
  }
  if (open) fail(`${open.kind} block ${open.index} was never ended`);
  if (nextIndex !== result.content.length) {
    fail(`the result has ${result.content.length} blocks but ${nextIndex} were streamed`);
  }

  if (last.type === "done") {
    if (last.message !== result) fail("result() is not the done event's message");
    if (last.reason !== result.stopReason)
      fail(`done.reason ${last.reason} differs from stopReason ${result.stopReason}`);
    if (result.errorMessage !== undefined) fail("a successful message carries an errorMessage");
    const hasToolCall = result.content.some((block) => block.type === "toolCall");
    if (hasToolCall && result.stopReason === "stop")
      fail("a message with tool calls ended with stopReason stop");
  } else if (last.type === "error") {
    if (last.error !== result) fail("result() is not the error event's message");
    if (last.reason !== result.stopReason)
      fail(`error.reason ${last.reason} differs from stopReason ${result.stopReason}`);
    if (!result.errorMessage) fail("a failed message has no errorMessage");
  }

  const usage = result.usage;
  for (const key of ["input", "output", "cacheRead", "cacheWrite", "totalTokens"] as const) {
    const value = usage?.[key];
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
      fail(`usage.${key} is ${String(value)}`);
  }
  for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) {
    const value = usage?.cost?.[key];
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0)
      fail(`usage.cost.${key} is ${String(value)}`);
  }
  if (result.role !== "assistant") fail(`result role is ${String(result.role)}`);
  if (typeof result.timestamp !== "number") fail("result has no numeric timestamp");
  return problems;
}

function splitType(type: AssistantEvent["type"]): [string, "start" | "delta" | "end" | undefined] {
  const match = /^(text|thinking|toolcall)_(start|delta|end)$/.exec(type);
  if (!match) return [type, undefined];
  return [match[1]!, match[2] as "start" | "delta" | "end"];
}

function quote(text: string): string {
  return JSON.stringify(text.length > 120 ? `${text.slice(0, 120)}…` : text);
}
