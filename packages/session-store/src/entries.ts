import { type Static, type TSchema, Type } from "@arbor/ai-providers";
import { StoredMessageSchema, UserContentBlockSchema } from "./message-schemas.js";
import { stringOtherThan, timestampString } from "./schema-kinds.js";

/**
 * TypeBox schemas of a session's lines (docs/session-format.md): line 1 is the header, every other line an
 * entry `{type, id, parentId, timestamp, ...}`. Field for field compatible with the pi agent's version-3
 * files. Objects allow fields they do not name, and entries of types this version does not know are
 * valid ({@link UnknownSessionEntrySchema}): both are kept, never dropped.
 */

/** The format version this package writes. */
export const CURRENT_SESSION_VERSION = 3;

/** Line 1 of a session. */
export const SessionHeaderSchema = Type.Object(
  {
    type: Type.Literal("session"),
    version: Type.Number({ description: "Format version: 3. Version 1 files have no `version` field." }),
    id: Type.String({ description: "The session's id (a UUID when Arbor or the pi agent creates it)." }),
    timestamp: timestampString("Creation time, ISO 8601."),
    cwd: Type.String({ description: "The working directory the session belongs to." }),
    parentSession: Type.Optional(
      Type.String({
        description:
          "The session this one was forked from: its id (Arbor) or its file path (the pi agent). Absent for a new session.",
      }),
    ),
    metadata: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), { description: "Application data about the session." }),
    ),
  },
  { title: "SessionHeader", description: "Line 1 of a session file." },
);

/** Line 1 of a session: `{"type":"session","version":3,"id","timestamp","cwd","parentSession?","metadata?"}`. */
export type SessionHeader = Static<typeof SessionHeaderSchema>;

const entryBase = {
  id: Type.String({ description: "Unique within the session; 8 hex characters when Arbor or pi writes it." }),
  parentId: Type.Union([Type.String(), Type.Null()], {
    description: "The entry this one continues; `null` for a root.",
  }),
  timestamp: timestampString("When the entry was written, ISO 8601."),
};

function entrySchema<T extends string, P extends Record<string, TSchema>>(
  type: T,
  properties: P,
  description: string,
) {
  return Type.Object({ type: Type.Literal(type), ...entryBase, ...properties }, { title: type, description });
}

/** A conversation message. */
export const MessageEntrySchema = entrySchema(
  "message",
  { message: StoredMessageSchema },
  "A message of the conversation: user, assistant, toolResult, or an application's own role.",
);

/** A compaction: everything before `firstKeptEntryId` on the path is replaced by `summary`. */
export const CompactionEntrySchema = entrySchema(
  "compaction",
  {
    summary: Type.String({ description: "The summary of the compacted history, sent to the model." }),
    firstKeptEntryId: Type.String({
      description: "The first entry kept verbatim; the entries before it on the path are summarized.",
    }),
    tokensBefore: Type.Number({ description: "The context size in tokens when compaction ran." }),
    details: Type.Optional(
      Type.Unknown({ description: "Data about the compaction, e.g. `{ readFiles, modifiedFiles }`." }),
    ),
    fromHook: Type.Optional(
      Type.Boolean({ description: "True when an extension produced it rather than the built-in compactor." }),
    ),
  },
  "Replaces the history before `firstKeptEntryId` (on this path) by a summary.",
);

/** A summary of a branch the conversation came back from. */
export const BranchSummaryEntrySchema = entrySchema(
  "branch_summary",
  {
    fromId: Type.String({
      description: "The entry the new branch starts from (the summary's parent), or `root`.",
    }),
    summary: Type.String({ description: "The summary of the abandoned branch, sent to the model." }),
    details: Type.Optional(
      Type.Unknown({ description: "Data about the branch, e.g. `{ readFiles, modifiedFiles }`." }),
    ),
    fromHook: Type.Optional(
      Type.Boolean({
        description: "True when an extension produced it rather than the built-in summarizer.",
      }),
    ),
  },
  "Summarizes the branch the conversation came back from; starts the new branch.",
);

/**
 * Old tool results replaced in the context by one-line stubs (docs/session-format.md, "prune"): a cheap step
 * before a summary. The results stay whole in the session; `recall` brings them back.
 */
export const PruneEntrySchema = entrySchema(
  "prune",
  {
    entryIds: Type.Array(Type.String(), {
      description:
        "The `message` entries (tool results) shown as stubs from here on: ancestors of this entry on its path.",
    }),
    tokensBefore: Type.Number({ description: "The estimated context size in tokens before the prune." }),
    tokensAfter: Type.Number({ description: "The estimated context size in tokens after it." }),
    details: Type.Optional(Type.Unknown({ description: "Data about the prune, e.g. why it ran." })),
  },
  "Shows the named tool results (earlier on this path) as one-line stubs in the context from here on.",
);

/** Moves the leaf: the session continues from `targetId`. */
export const LeafEntrySchema = entrySchema(
  "leaf",
  {
    targetId: Type.Union([Type.String(), Type.Null()], {
      description: "The new leaf: the next entry is appended as its child. `null`: before the first entry.",
    }),
  },
  "Moves the current position (the leaf) to `targetId`.",
);

/** The thinking level from here on. */
export const ThinkingLevelChangeEntrySchema = entrySchema(
  "thinking_level_change",
  {
    thinkingLevel: Type.String({
      description: "`off`, `minimal`, `low`, `medium`, `high` or `xhigh` (other values are kept).",
    }),
  },
  "The thinking level from this point of the path on.",
);

/** The model from here on. */
export const ModelChangeEntrySchema = entrySchema(
  "model_change",
  {
    provider: Type.String({ description: "The provider's id." }),
    modelId: Type.String({ description: "The model's id at that provider." }),
  },
  "The model from this point of the path on.",
);

/** The active tools from here on. */
export const ActiveToolsChangeEntrySchema = entrySchema(
  "active_tools_change",
  { activeToolNames: Type.Array(Type.String(), { description: "Names of the tools the model may call." }) },
  "The tools the model may call from this point of the path on.",
);

/** Application state that is not part of the model's context. */
export const CustomEntrySchema = entrySchema(
  "custom",
  {
    customType: Type.String({ description: "Identifies the extension or feature that wrote it." }),
    data: Type.Optional(Type.Unknown({ description: "The application's data." })),
  },
  "Application state; not sent to the model.",
);

/** An application-defined message that takes part in the model's context. */
export const CustomMessageEntrySchema = entrySchema(
  "custom_message",
  {
    customType: Type.String({ description: "Identifies the extension or feature that wrote it." }),
    content: Type.Union([Type.String(), Type.Array(UserContentBlockSchema)], {
      description: "Sent to the model as a user message.",
    }),
    display: Type.Boolean({ description: "Whether a UI shows it (`false`: hidden)." }),
    details: Type.Optional(Type.Unknown({ description: "Application data; never sent to the model." })),
  },
  "An application-defined message; the model sees it as a user message.",
);

/** Sets or clears the label of an entry. */
export const LabelEntrySchema = entrySchema(
  "label",
  {
    targetId: Type.String({ description: "The labelled entry." }),
    label: Type.Optional(Type.String({ description: "The label; absent (or empty) clears it." })),
  },
  "Sets or clears a human-readable label (a bookmark) on an entry.",
);

/** Session metadata such as its display name. */
export const SessionInfoEntrySchema = entrySchema(
  "session_info",
  { name: Type.Optional(Type.String({ description: "The session's display name; the latest one wins." })) },
  "Session metadata: the display name.",
);

/** Entry types this version knows. */
export const KNOWN_ENTRY_TYPES = [
  "message",
  "compaction",
  "branch_summary",
  "leaf",
  "thinking_level_change",
  "model_change",
  "active_tools_change",
  "custom",
  "custom_message",
  "label",
  "session_info",
  "prune",
] as const;

/** The `type` of an entry this version knows. */
export type KnownEntryType = (typeof KNOWN_ENTRY_TYPES)[number];

/** An entry of a type this version does not know: valid, kept and written back unchanged. */
export const UnknownSessionEntrySchema = Type.Object(
  { type: stringOtherThan(KNOWN_ENTRY_TYPES), ...entryBase },
  {
    title: "UnknownEntry",
    description:
      "An entry of a type this version does not know (written by a newer version or an application): kept unchanged; it takes no part in the context.",
  },
);

/** An entry of a type this version does not know (see {@link UnknownSessionEntrySchema}). */
export type UnknownSessionEntry = Static<typeof UnknownSessionEntrySchema> & Record<string, unknown>;

const KnownSessionEntrySchema = Type.Union([
  MessageEntrySchema,
  CompactionEntrySchema,
  BranchSummaryEntrySchema,
  LeafEntrySchema,
  ThinkingLevelChangeEntrySchema,
  ModelChangeEntrySchema,
  ActiveToolsChangeEntrySchema,
  CustomEntrySchema,
  CustomMessageEntrySchema,
  LabelEntrySchema,
  SessionInfoEntrySchema,
  PruneEntrySchema,
]);

/**
 * Any entry line: a known type, or an unknown one (kept). The static type names the known types only,
 * so that `type` narrows; handle unknown types in a default branch.
 */
export const SessionEntrySchema = Type.Unsafe<Static<typeof KnownSessionEntrySchema>>(
  Type.Union([...KnownSessionEntrySchema.anyOf, UnknownSessionEntrySchema], {
    title: "SessionEntry",
    description: "Any line of a session file after the header.",
  }),
);

/**
 * Any entry: `{type, id, parentId, timestamp, ...}`. At run time an entry may also be of a type this
 * version does not know ({@link UnknownSessionEntry}) and any entry may carry fields not named here:
 * both are kept, so switch on `type` with a default branch.
 */
export type SessionEntry = Static<typeof SessionEntrySchema>;

/** A `message` entry. */
export type MessageEntry = Static<typeof MessageEntrySchema>;
/** A `compaction` entry. */
export type CompactionEntry = Static<typeof CompactionEntrySchema>;
/** A `branch_summary` entry. */
export type BranchSummaryEntry = Static<typeof BranchSummaryEntrySchema>;
/** A `leaf` entry. */
export type LeafEntry = Static<typeof LeafEntrySchema>;
/** A `thinking_level_change` entry. */
export type ThinkingLevelChangeEntry = Static<typeof ThinkingLevelChangeEntrySchema>;
/** A `model_change` entry. */
export type ModelChangeEntry = Static<typeof ModelChangeEntrySchema>;
/** An `active_tools_change` entry. */
export type ActiveToolsChangeEntry = Static<typeof ActiveToolsChangeEntrySchema>;
/** A `custom` entry. */
export type CustomEntry = Static<typeof CustomEntrySchema>;
/** A `custom_message` entry. */
export type CustomMessageEntry = Static<typeof CustomMessageEntrySchema>;
/** A `label` entry. */
export type LabelEntry = Static<typeof LabelEntrySchema>;
/** A `session_info` entry. */
export type SessionInfoEntry = Static<typeof SessionInfoEntrySchema>;

/** A `prune` entry. */
export type PruneEntry = Static<typeof PruneEntrySchema>;

/** Schema of each known entry type, by `type`. */
export const ENTRY_SCHEMAS: Readonly<Record<KnownEntryType, TSchema>> = {
  message: MessageEntrySchema,
  compaction: CompactionEntrySchema,
  branch_summary: BranchSummaryEntrySchema,
  leaf: LeafEntrySchema,
  thinking_level_change: ThinkingLevelChangeEntrySchema,
  model_change: ModelChangeEntrySchema,
  active_tools_change: ActiveToolsChangeEntrySchema,
  custom: CustomEntrySchema,
  custom_message: CustomMessageEntrySchema,
  label: LabelEntrySchema,
  session_info: SessionInfoEntrySchema,
  prune: PruneEntrySchema,
};

const KNOWN_ENTRY_TYPE_SET: ReadonlySet<string> = new Set(KNOWN_ENTRY_TYPES);

/** True when this version knows the entry type. */
export function isKnownEntryType(type: string): type is KnownEntryType {
  return KNOWN_ENTRY_TYPE_SET.has(type);
}
