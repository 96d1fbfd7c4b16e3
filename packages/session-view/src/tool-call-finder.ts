/**
 * The call a tool result answers, found in the session: the nearest assistant message above the result
 * that holds a tool call with the result's id. Used to build a file change's diff from the call's
 * arguments when its result recorded none (an imported session).
 */
import type { Session } from "@arbor/session-store";
import type { EntryViewOptions } from "./entry-view.js";
import type { ToolDiffCall } from "./tool-diff.js";

/** How many entries above a result are searched for its call. */
const MAX_STEPS = 64;

/**
 * The `toolCall` option of `viewEntry` for an entry whose parent is `parentId`.
 *
 * Contract: reads only; each lookup walks at most {@link MAX_STEPS} ancestors; never throws.
 */
export function toolCallFinder(session: Session, parentId: string | null): EntryViewOptions {
  return {
    toolCall: (toolCallId) => {
      let id = parentId;
      for (let step = 0; id !== null && step < MAX_STEPS; step++) {
        const entry = session.getEntry(id);
        if (entry === undefined) return undefined;
        const call = callIn(entry.type === "message" ? entry.message : undefined, toolCallId);
        if (call !== undefined) return call;
        id = entry.parentId;
      }
      return undefined;
    },
  };
}

function callIn(message: unknown, toolCallId: string): ToolDiffCall | undefined {
  const content = (message as { role?: unknown; content?: unknown } | undefined)?.content;
  if ((message as { role?: unknown } | undefined)?.role !== "assistant" || !Array.isArray(content)) {
    return undefined;
  }
  for (const block of content) {
    const record = block as { type?: unknown; id?: unknown; name?: unknown; arguments?: unknown };
    if (record?.type === "toolCall" && record.id === toolCallId && typeof record.name === "string") {
      return { name: record.name, args: record.arguments };
    }
  }
  return undefined;
}
