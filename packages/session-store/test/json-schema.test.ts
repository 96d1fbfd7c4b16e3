import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KNOWN_ENTRY_TYPES } from "../src/index.js";
import {
  checkSchema,
  ENTRY_SCHEMAS,
  SessionHeaderSchema,
  sessionFormatJsonSchema,
  UnknownSessionEntrySchema,
} from "../src/schema.js";
import { PI_FIXTURES } from "./helpers.js";
import { SCHEMA_PATH } from "./write-json-schema.js";

const DEFINITION_OF: Record<string, string> = {
  session: "SessionHeader",
  message: "MessageEntry",
  compaction: "CompactionEntry",
  branch_summary: "BranchSummaryEntry",
  leaf: "LeafEntry",
  thinking_level_change: "ThinkingLevelChangeEntry",
  model_change: "ModelChangeEntry",
  active_tools_change: "ActiveToolsChangeEntry",
  custom: "CustomEntry",
  custom_message: "CustomMessageEntry",
  label: "LabelEntry",
  session_info: "SessionInfoEntry",
  prune: "PruneEntry",
};

describe("docs/session-format.schema.json", () => {
  it("is up to date with the TypeBox schemas", () => {
    const committed = JSON.parse(readFileSync(SCHEMA_PATH, "utf8")) as unknown;
    expect(
      committed,
      "docs/session-format.schema.json is stale: run `pnpm exec tsx --conditions=@arbor/source packages/session-store/test/write-json-schema.ts`",
    ).toEqual(sessionFormatJsonSchema());
  });

  it("defines the header and every entry type, with no nested $id", () => {
    const schema = sessionFormatJsonSchema();
    const definitions = schema.$defs as Record<string, unknown>;
    expect(Object.keys(definitions)).toEqual([...new Set([...Object.values(DEFINITION_OF), "UnknownEntry"])]);
    expect(Object.keys(DEFINITION_OF).slice(1)).toEqual([...KNOWN_ENTRY_TYPES]);
    expect(JSON.stringify(schema)).not.toContain('"$id"');
  });

  it("validates every line of the pi fixtures by its definition", () => {
    // Each definition is the JSON form of a TypeBox schema; the values are checked with that schema
    // (checkSchema needs TypeBox's kinds, which the JSON form has lost).
    const definitions = sessionFormatJsonSchema().$defs as Record<string, unknown>;
    const typeBoxOf = (type: string) =>
      type === "session"
        ? SessionHeaderSchema
        : (ENTRY_SCHEMAS[type as keyof typeof ENTRY_SCHEMAS] ?? UnknownSessionEntrySchema);
    for (const name of ["01-plain-chat.anthropic.jsonl", "08-branch-with-branch-summary.anthropic.jsonl"]) {
      for (const line of readFileSync(join(PI_FIXTURES, name), "utf8").split("\n").filter(Boolean)) {
        const value = JSON.parse(line) as { type: string };
        const schema = typeBoxOf(value.type);
        expect(definitions[DEFINITION_OF[value.type] ?? "UnknownEntry"]).toEqual(
          JSON.parse(JSON.stringify(schema)),
        );
        expect(checkSchema(schema, value)).toEqual([]);
      }
    }
    const unknown = { type: "x-future", id: "a", parentId: null, timestamp: "t" };
    expect(checkSchema(UnknownSessionEntrySchema, unknown)).toEqual([]);
    expect(checkSchema(UnknownSessionEntrySchema, { ...unknown, type: "message" })).toEqual([
      {
        path: "/type",
        message: `expected a string other than ${KNOWN_ENTRY_TYPES.map((type) => JSON.stringify(type)).join(", ")}, received string "message"`,
      },
    ]);
    expect(() => checkSchema(definitions.UnknownEntry, unknown)).toThrow(/Not a TypeBox schema/);
  });
});
