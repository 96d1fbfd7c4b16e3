import { type Static, Type } from "@arbor/agent-core";

/** The arguments and result details of the `recall` tool (see `createRecallTool`). */

/** The tool's parameters (TypeBox). */
export const RecallToolParameters = Type.Object({
  entryIds: Type.Optional(
    Type.Array(Type.String(), {
      minItems: 1,
      maxItems: 100,
      description: "Ids of entries to return (from an earlier recall result).",
    }),
  ),
  query: Type.Optional(
    Type.String({
      description:
        "Words to search for in the replaced entries (case-insensitive; entries with all words and the exact phrase rank first).",
    }),
  ),
  compactionId: Type.Optional(
    Type.String({
      description: "Only entries replaced by this compaction (or branch summary). Alone: all of its entries.",
    }),
  ),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 100, description: "Most entries to return (query default: 10)." }),
  ),
  toolCallId: Type.Optional(
    Type.String({
      minLength: 1,
      description:
        "The whole output of this tool call on the current branch (e.g. one cut to fit the context; its note names the call). Give it alone, with offset to read on.",
    }),
  ),
  offset: Type.Optional(
    Type.Integer({
      minimum: 0,
      description: "Continue a cut result from this character (the cut result names it).",
    }),
  ),
});

/** Arguments of the `recall` tool. */
export type RecallToolArguments = Static<typeof RecallToolParameters>;

/** `details` of a `recall` result (for UIs and hooks; the model sees only the text). */
export interface RecallToolDetails {
  /**
   * `entries`: by id or by compaction; `search`: by query; `list`: the overview (no arguments); `output`: the
   * whole output of a tool call (`toolCallId`).
   */
  mode: "entries" | "search" | "list" | "output";
  /** `output`: the tool call whose output is shown. */
  toolCallId?: string;
  /** The entries shown (whole or in part), in output order. */
  entryIds: string[];
  /** Requested ids the session does not hold. */
  unknownIds: string[];
  /** Requested ids that exist but are not recallable (in the context, another branch, not a message). */
  refusedIds: string[];
  /** Search: how many entries matched. */
  matchCount?: number;
  /** Characters of the whole output; the text shows `offset` up to `nextOffset` (or the end). */
  totalChars: number;
  /** `output`: the first character shown. */
  offset?: number;
  /** Set when the output was cut: the `offset` that continues it. */
  nextOffset?: number;
}
