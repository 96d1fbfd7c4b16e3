/**
 * The JSON Schema of the protocol's commands, generated from their TypeBox schemas
 * (`RPC_COMMAND_SCHEMAS`): `docs/protocol.schema.json` is written from it by
 * `scripts/write-protocol-schema.ts`, and a test fails while the committed file differs.
 */
import { RPC_COMMAND_SCHEMAS } from "./rpc-commands.js";

/** `get_graph` → `GetGraphCommand`. */
function definitionName(type: string): string {
  return `${type
    .split("_")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("")}Command`;
}

/**
 * The schema: one definition per command (`$defs`, e.g. `PromptCommand`), the root a `oneOf` of them.
 *
 * Contract: pure; plain JSON (TypeBox's symbols are dropped), definitions in the command set's order.
 */
export function protocolJsonSchema(): Record<string, unknown> {
  const definitions: Record<string, unknown> = {};
  for (const [type, schema] of Object.entries(RPC_COMMAND_SCHEMAS)) {
    definitions[definitionName(type)] = JSON.parse(JSON.stringify(schema)) as unknown;
  }
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Arbor protocol commands",
    description:
      "The commands of `arbor --mode rpc` and the demo server (one JSON object per line or request). " +
      "Each gets one response: {type:'response', id, command, success:true, data} or {…, success:false, error, code?}. " +
      "See docs/protocol.md for each command's result.",
    oneOf: Object.keys(definitions).map((name) => ({ $ref: `#/$defs/${name}` })),
    $defs: definitions,
  };
}
