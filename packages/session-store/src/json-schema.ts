import type { TSchema } from "@arbor/ai-providers";
import {
  ActiveToolsChangeEntrySchema,
  BranchSummaryEntrySchema,
  CompactionEntrySchema,
  CustomEntrySchema,
  CustomMessageEntrySchema,
  LabelEntrySchema,
  LeafEntrySchema,
  MessageEntrySchema,
  ModelChangeEntrySchema,
  PruneEntrySchema,
  SessionHeaderSchema,
  SessionInfoEntrySchema,
  ThinkingLevelChangeEntrySchema,
  UnknownSessionEntrySchema,
} from "./entries.js";

/** The definitions of the session format's JSON Schema, by name, in document order. */
const DEFINITIONS: ReadonlyArray<readonly [string, TSchema]> = [
  ["SessionHeader", SessionHeaderSchema],
  ["MessageEntry", MessageEntrySchema],
  ["CompactionEntry", CompactionEntrySchema],
  ["BranchSummaryEntry", BranchSummaryEntrySchema],
  ["LeafEntry", LeafEntrySchema],
  ["ThinkingLevelChangeEntry", ThinkingLevelChangeEntrySchema],
  ["ModelChangeEntry", ModelChangeEntrySchema],
  ["ActiveToolsChangeEntry", ActiveToolsChangeEntrySchema],
  ["CustomEntry", CustomEntrySchema],
  ["CustomMessageEntry", CustomMessageEntrySchema],
  ["LabelEntry", LabelEntrySchema],
  ["SessionInfoEntry", SessionInfoEntrySchema],
  ["PruneEntry", PruneEntrySchema],
  ["UnknownEntry", UnknownSessionEntrySchema],
];

/** A schema as plain JSON: TypeBox's symbol-keyed annotations dropped. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

/**
 * The JSON Schema (draft 2020-12) of one line of a session file, generated from the TypeBox schemas:
 * `$defs` holds the header and every entry type; the root accepts any of them. Entries of unknown types
 * (`UnknownEntry`) and fields no definition names are valid, as the format requires.
 *
 * `docs/session-format.schema.json` is this value, written by
 * `packages/session-store/test/write-json-schema.ts`; a test fails when the file is stale.
 */
export function sessionFormatJsonSchema(): Record<string, unknown> {
  const definitions: Record<string, unknown> = {};
  for (const [name, schema] of DEFINITIONS) definitions[name] = plain(schema);
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Arbor session file line (format version 3)",
    description:
      "One line of an Arbor / pi-agent session file (JSONL): line 1 is a SessionHeader, every other line an entry. " +
      "Generated from the TypeBox schemas of @arbor/session-store; see docs/session-format.md.",
    anyOf: DEFINITIONS.map(([name]) => ({ $ref: `#/$defs/${name}` })),
    $defs: definitions,
  };
}
