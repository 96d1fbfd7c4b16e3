import type { Session } from "@arbor/session-store";
import type { RecallToolArguments, RecallToolDetails } from "./recall-parameters.js";
import { errorResult, type RecallResult } from "./recall-query.js";
import { cutWithin } from "./recall-window.js";
import { readToolOutputRecord, TOOL_OUTPUT_ENTRY } from "./tool-output-budget.js";

/**
 * `recall` with `toolCallId`: the whole output of one tool call on the current branch, paged by `offset` — from
 * its {@link TOOL_OUTPUT_ENTRY} entry when the result the model saw was cut to fit the context, otherwise from
 * the tool result message itself. Works whether or not the result is still in the context.
 */

/** Bytes kept for the header and the closing note of a page. */
const FRAME_BYTES = 400;

/** The whole output of a tool call, found on the current branch. */
interface FoundOutput {
  entryId: string;
  toolName: string;
  text: string;
  /** Images of the output, named but not included. */
  images: { mimeType: string; bytes: number }[];
}

/**
 * One page of a tool call's whole output.
 *
 * Contract: never throws for a readable session (the tool catches the rest); reads the tree fields of the
 * current branch and parses its messages from the newest back to the call's result, and the `custom` entries
 * right after that result — O(branch) at most.
 */
export function recallToolOutput(
  session: Session,
  args: RecallToolArguments,
  maxBytes: number,
): RecallResult {
  const { toolCallId, offset = 0 } = args;
  const details: RecallToolDetails = {
    mode: "output",
    entryIds: [],
    unknownIds: [],
    refusedIds: [],
    totalChars: 0,
  };
  if (
    args.entryIds !== undefined ||
    args.query !== undefined ||
    args.compactionId !== undefined ||
    args.limit !== undefined
  ) {
    return errorResult(
      "Give toolCallId alone (with offset to read on), without entryIds, query, compactionId or limit.",
      details,
    );
  }
  if (typeof toolCallId !== "string" || toolCallId === "") {
    return errorResult("toolCallId must be the id of a tool call.", details);
  }
  if (!Number.isInteger(offset) || offset < 0)
    return errorResult("offset must be a whole number ≥ 0.", details);
  details.toolCallId = toolCallId;
  const found = findOutput(session, toolCallId);
  if (found === undefined) {
    return errorResult(
      `No result of a tool call "${toolCallId}" on the current branch (the id is the one a cut result's note names).`,
      details,
    );
  }
  const { text } = found;
  const total = text.length;
  details.entryIds = [found.entryId];
  details.totalChars = total;
  details.offset = offset;
  if (offset > 0 && offset >= total) {
    return errorResult(`offset ${offset} is past the end of the output (${total} characters).`, details);
  }
  const end = cutWithin(text, offset, Math.max(200, maxBytes - FRAME_BYTES));
  const header = `Output of ${found.toolName} (call ${toolCallId}), characters ${offset}–${end} of ${total}:`;
  const parts = [header, text.slice(offset, end)];
  const notes: string[] = [];
  if (end < total) {
    details.nextOffset = end;
    const call = JSON.stringify({ toolCallId, offset: end });
    notes.push(`[Output cut at character ${end} of ${total}: call recall with ${call} for the rest.]`);
  }
  if (found.images.length > 0) {
    const named = found.images.map((image) => `${image.mimeType}, ${image.bytes} bytes`).join("; ");
    notes.push(`[Images of this output not included (recall returns text only): ${named}.]`);
  }
  if (notes.length > 0) parts.push(`\n\n${notes.join("\n")}`);
  return { content: [{ type: "text", text: `${parts[0]}\n${parts.slice(1).join("")}` }], details };
}

/** The newest result of the call on the current branch, with the whole output its entry keeps. */
function findOutput(session: Session, toolCallId: string): FoundOutput | undefined {
  const path = session.getPath();
  for (let index = path.length - 1; index >= 0; index--) {
    if (path[index]!.type !== "message") continue;
    const entry = path[index]!.entry();
    if (entry?.type !== "message") continue;
    const message = entry.message as {
      role?: unknown;
      toolCallId?: unknown;
      toolName?: unknown;
      content?: unknown;
    };
    if (message.role !== "toolResult" || message.toolCallId !== toolCallId) continue;
    const toolName = typeof message.toolName === "string" ? message.toolName : "a tool";
    // The entry that keeps the whole output follows its result, before the next message.
    for (let next = index + 1; next < path.length && path[next]!.type !== "message"; next++) {
      if (path[next]!.type !== "custom") continue;
      const custom = path[next]!.entry();
      if (custom?.type !== "custom" || custom.customType !== TOOL_OUTPUT_ENTRY) continue;
      const record = readToolOutputRecord(custom.data);
      if (record === undefined || record.toolCallId !== toolCallId) continue;
      return { entryId: entry.id, toolName, text: record.text, images: describeImages(record.images ?? []) };
    }
    const blocks = Array.isArray(message.content)
      ? (message.content as { type?: unknown; text?: unknown }[])
      : [];
    const texts = blocks.filter((block) => block.type === "text").map((block) => String(block.text ?? ""));
    const images = blocks.filter((block) => block.type === "image") as unknown[];
    return { entryId: entry.id, toolName, text: texts.join("\n"), images: describeImages(images) };
  }
  return undefined;
}

function describeImages(images: readonly unknown[]): FoundOutput["images"] {
  return images.map((image) => {
    const { mimeType, data } = image as { mimeType?: unknown; data?: unknown };
    return {
      mimeType: typeof mimeType === "string" ? mimeType : "image",
      bytes: typeof data === "string" ? Math.floor((data.length * 3) / 4) : 0,
    };
  });
}
