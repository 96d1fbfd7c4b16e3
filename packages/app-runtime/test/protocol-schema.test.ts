import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PROTOCOL_EVENT_SCHEMAS } from "@arbor/session-view";
import { describe, expect, it } from "vitest";
import { protocolJsonSchema } from "../src/protocol/protocol-schema.js";
import { RPC_COMMAND_SCHEMAS } from "../src/protocol/rpc-commands.js";

const SCHEMA_PATH = join(import.meta.dirname, "../../../docs/protocol.schema.json");

describe("docs/protocol.schema.json", () => {
  it("is up to date with the TypeBox command schemas", () => {
    const committed = JSON.parse(readFileSync(SCHEMA_PATH, "utf8")) as unknown;
    expect(
      committed,
      "docs/protocol.schema.json is stale: run `pnpm exec tsx --conditions=@arbor/source scripts/write-protocol-schema.ts`",
    ).toEqual(protocolJsonSchema());
  });

  it("defines every command once, each with its literal type and an optional id", () => {
    const schema = protocolJsonSchema();
    const definitions = schema.$defs as Record<
      string,
      { properties: Record<string, { const?: string }>; required: string[] }
    >;
    const commands = Object.entries(definitions).filter(([name]) => /.Command$/.test(name));
    expect(commands.map(([, definition]) => definition.properties.type!.const)).toEqual(
      Object.keys(RPC_COMMAND_SCHEMAS),
    );
    for (const [, definition] of commands) {
      expect(definition.required).toContain("type");
      expect(definition.required).not.toContain("id");
    }
    expect((definitions.Command as unknown as { oneOf: unknown[] }).oneOf).toHaveLength(
      Object.keys(RPC_COMMAND_SCHEMAS).length,
    );
  });

  it("defines every event record once, with its literal type, and the response", () => {
    const definitions = protocolJsonSchema().$defs as Record<
      string,
      { properties: Record<string, { const?: string }>; oneOf?: unknown[] }
    >;
    const events = Object.entries(definitions).filter(([name]) => /.Event$/.test(name));
    expect(events.map(([, definition]) => definition.properties.type!.const)).toEqual(
      Object.keys(PROTOCOL_EVENT_SCHEMAS),
    );
    expect(definitions.Event!.oneOf).toHaveLength(events.length);
    expect(definitions.Response!.properties.type!.const).toBe("response");
  });

  it("keeps the demo's id patterns and size limits", () => {
    const definitions = protocolJsonSchema().$defs as Record<
      string,
      { properties: Record<string, Record<string, unknown>> }
    >;
    expect(definitions.OpenSessionCommand!.properties.sessionId!.pattern).toBe(
      "^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$",
    );
    expect(definitions.ImportSessionCommand!.properties.text!.maxLength).toBe(200_000_000);
    expect(definitions.ListSessionsCommand!.properties.limit!.maximum).toBe(200);
  });
});
