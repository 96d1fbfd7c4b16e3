/**
 * The JSON Schema of the protocol, generated from its TypeBox schemas (the commands' `RPC_COMMAND_SCHEMAS`,
 * the event records' `PROTOCOL_EVENT_SCHEMAS` of `@arbor/session-view`): `docs/protocol.schema.json` is written from it by
 * `scripts/write-protocol-schema.ts`, and a test fails while the committed file differs.
 */
import { PROTOCOL_EVENT_SCHEMAS, PROTOCOL_EVENT_VERSION } from "@arbor/session-view";
import { RPC_COMMAND_SCHEMAS } from "./rpc-commands.js";

/** `get_graph`, `Command` → `GetGraphCommand`. */
function definitionName(type: string, kind: "Command" | "Event"): string {
  return `${type
    .split("_")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("")}${kind}`;
}

/** The response every command gets: its `data` when it succeeded, its `error` (and a `code`) when not. */
const RESPONSE_SCHEMA = {
  description:
    "The one response of a command: `data` is the command's result (docs/protocol.md lists each one); a refusal " +
    "has `error`, a message for the user, and usually a `code` (`busy`, `not_found`, `invalid`, …).",
  type: "object",
  required: ["type", "command", "success"],
  properties: {
    type: { const: "response" },
    id: { type: ["string", "number"], description: "the command's `id`, echoed back" },
    command: {
      type: ["string", "null"],
      description: "the command's `type` (null for a line that is no command)",
    },
    success: { type: "boolean" },
    data: { description: "the command's result, when it has one" },
    error: { type: "string" },
    code: { type: "string" },
  },
} as const;

/**
 * The schema: one definition per command (`$defs`, e.g. `PromptCommand`) and per event record (e.g.
 * `TextDeltaEvent`), `Command`, `Event` and `Response` the unions a client sends and receives; the root
 * is any of the three.
 *
 * Contract: pure; plain JSON (TypeBox's symbols are dropped), definitions in the command set's and the event
 * union's order.
 */
export function protocolJsonSchema(): Record<string, unknown> {
  const definitions: Record<string, unknown> = {};
  const commands: string[] = [];
  const events: string[] = [];
  for (const [type, schema] of Object.entries(RPC_COMMAND_SCHEMAS)) {
    const name = definitionName(type, "Command");
    definitions[name] = plain(schema);
    commands.push(name);
  }
  for (const [type, schema] of Object.entries(PROTOCOL_EVENT_SCHEMAS)) {
    const name = definitionName(type, "Event");
    definitions[name] = plain(schema);
    events.push(name);
  }
  const union = (names: string[]) => ({ oneOf: names.map((name) => ({ $ref: `#/$defs/${name}` })) });
  definitions.Command = {
    description:
      "A command a client sends (one JSON object per line in rpc mode, or the body of POST /api/command).",
    ...union(commands),
  };
  definitions.Event = {
    description: `An event record (version ${PROTOCOL_EVENT_VERSION}) the server writes while sessions run.`,
    ...union(events),
  };
  definitions.Response = RESPONSE_SCHEMA;
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "Arbor protocol",
    description:
      "The protocol of `arbor --mode rpc` and the demo server: the commands a client sends, the one response " +
      "each gets, and the event records of the running session (also `--mode json`'s output). " +
      "See docs/protocol.md for each command's result.",
    oneOf: [{ $ref: "#/$defs/Command" }, { $ref: "#/$defs/Event" }, { $ref: "#/$defs/Response" }],
    $defs: definitions,
  };
}

function plain(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema)) as unknown;
}
