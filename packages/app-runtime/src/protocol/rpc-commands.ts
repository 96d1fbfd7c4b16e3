/**
 * The command set of the one protocol: one TypeBox schema per command, {@link RpcCommandSchema} their
 * union. A command is validated once, at the edge ({@link parseRpcCommand}); the dispatcher
 * (`command-handlers.ts`) receives typed commands. `arbor --mode rpc` and the demo server speak it, and
 * `docs/protocol.schema.json` is generated from it. Each command's result type is `CommandResult<K>`
 * (`command-results.ts`).
 */
import { type Static, THINKING_LEVELS, type TSchema, Type } from "@arbor/ai-providers";
import { Value } from "@sinclair/typebox/value";

/** Any string or number a client picks; echoed back in the command's response. */
const CommandId = Type.Optional(Type.Union([Type.String(), Type.Number()]));
const Text = Type.String({ description: "a string" });
const OptionalText = Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "a string" }));

/** Ids of sessions and entries: a letter or digit, then letters, digits, `_` and `-` (never a path). */
const ID_PATTERN = "^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$";
const SessionId = Type.String({ pattern: ID_PATTERN, description: "a session id" });
const EntryId = Type.String({ pattern: ID_PATTERN, description: "an entry id" });
const Flag = Type.Boolean({ description: "true or false" });

function command<T extends string, P extends Record<string, TSchema>>(
  type: T,
  properties: P,
  description: string,
) {
  return Type.Object({ type: Type.Literal(type), id: CommandId, ...properties }, { description });
}

/** The schema of each command, by `type`. */
export const RPC_COMMAND_SCHEMAS = {
  prompt: command(
    "prompt",
    { text: Text },
    "Starts a run (or an extension's command, for `/name …`); the response comes at once, the run's events follow.",
  ),
  steer: command("steer", { text: Text }, "Queues a steering message for the running turn."),
  follow_up: command("follow_up", { text: Text }, "Queues a message for after the run."),
  abort: command("abort", {}, "Aborts the run and waits until the session is idle."),
  permission_reply: command(
    "permission_reply",
    {
      requestId: Type.String({ minLength: 1, description: "the requestId of a permission_request record" }),
      decision: Type.Union([Type.Literal("once"), Type.Literal("session"), Type.Literal("deny")], {
        description: '"once", "session" (allow such calls for the rest of the session) or "deny"',
      }),
    },
    "Answers a permission_request: the tool call runs (once, or such calls for the session) or is refused.",
  ),
  compact: command("compact", { instructions: OptionalText }, "Compacts the session now."),
  navigate: command(
    "navigate",
    {
      entryId: Type.Union([Type.String(), Type.Null()], {
        description: "an entry id, or null for the start of the session",
      }),
      summarize: Type.Optional(Flag),
      instructions: OptionalText,
    },
    "Moves the leaf to an entry (null: the start), summarizing the branch left unless `summarize` is false.",
  ),
  fork: command(
    "fork",
    {
      entryId: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "an entry id" })),
      position: Type.Optional(
        Type.Union([Type.Literal("at"), Type.Literal("before"), Type.Null()], {
          description: '"at" or "before"',
        }),
      ),
    },
    "Forks the session at (or before) an entry (default: the leaf) and makes the fork current.",
  ),
  get_state: command("get_state", {}, "The session's state: ids, model, phase, context usage, queues."),
  get_messages: command("get_messages", {}, "The messages of the session's context."),
  set_model: command(
    "set_model",
    { model: Text },
    "Switches the model (`provider/id`), loading the provider when needed.",
  ),
  get_commands: command("get_commands", {}, "The commands extensions registered."),
  run_command: command(
    "run_command",
    { name: Text, args: Type.Optional(Type.String()) },
    "Runs an extension's command with the text after its name; its notices come as `notice` records.",
  ),
  set_thinking_level: command(
    "set_thinking_level",
    {
      level: Type.Union(
        THINKING_LEVELS.map((level) => Type.Literal(level)),
        { description: `one of ${THINKING_LEVELS.join(", ")}` },
      ),
    },
    "Sets the thinking level.",
  ),
  get_graph: command(
    "get_graph",
    { expanded: Type.Optional(Type.Array(EntryId, { maxItems: 1000, description: "entry ids" })) },
    "The current session's tree as graph nodes (`expanded`: runs to show entry by entry).",
  ),
  get_entry: command(
    "get_entry",
    { entryId: EntryId },
    "One entry of the current session as a view (kind, label, facts, parts).",
  ),
  get_summary: command(
    "get_summary",
    { entryId: EntryId },
    "A compaction's or branch summary's text, tokens, files and the entries it covers.",
  ),
  get_context: command(
    "get_context",
    {},
    "The context meter: tokens, window, threshold and what fills it; `notice` when over the threshold and the last compaction freed nothing.",
  ),
  get_transcript: command(
    "get_transcript",
    {},
    "The transcript of the current path (its latest 400 entries).",
  ),
  label: command(
    "label",
    {
      entryId: EntryId,
      label: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
        description: "a label (at most 200 characters) or null",
      }),
    },
    "Labels an entry (`label` empty or null: removes it).",
  ),
  edit: command(
    "edit",
    { entryId: EntryId, text: Type.String({ minLength: 1, description: "the new text" }) },
    "Edits a user message and runs again: moves to its parent (no summary), then prompts with `text`.",
  ),
  diff: command(
    "diff",
    { a: EntryId, b: EntryId },
    "Where two branches of the current session diverge and what each holds after.",
  ),
  merge: command(
    "merge",
    {
      sourceLeafId: EntryId,
      into: Type.Optional(EntryId),
      summarize: Type.Optional(Flag),
      message: Type.Optional(
        Type.String({ maxLength: 2000, description: "a note of at most 2000 characters" }),
      ),
    },
    "Merges the branch ending at `sourceLeafId` into the branch of `into` (default: the current leaf).",
  ),
  list_sessions: command(
    "list_sessions",
    {
      cursor: Type.Optional(Type.String({ maxLength: 2000, description: "the nextCursor of a page" })),
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 200, description: "an integer from 1 to 200" }),
      ),
      all: Type.Optional(Type.Boolean({ description: "true or false" })),
    },
    "A page of the store's sessions, newest activity first: those of the working directory, or `all`.",
  ),
  new_session: command("new_session", {}, "Starts a new session and makes it current."),
  open_session: command(
    "open_session",
    { sessionId: SessionId },
    "Opens a session of the store by id and makes it current.",
  ),
  delete_sessions: command(
    "delete_sessions",
    {
      sessionIds: Type.Array(SessionId, {
        minItems: 1,
        maxItems: 200,
        description: "1 to 200 session ids",
      }),
    },
    "Deletes sessions of the store; the current one and one another process writes are refused (in `refused`, with the reason), the others deleted.",
  ),
  import_session: command(
    "import_session",
    { text: Type.String({ minLength: 1, maxLength: 200_000_000, description: "the file's text" }) },
    "Imports a session file's text (the pi agent's or Arbor's JSONL) into the store as a new session and opens it; a file whose id the store holds becomes a copy under a new id (`copiedFrom`).",
  ),
} as const;

/** The names of the commands. */
export type RpcCommandType = keyof typeof RPC_COMMAND_SCHEMAS;

/** The union of every command's schema (for JSON Schema output and client code generation). */
export const RpcCommandSchema = Type.Union(Object.values(RPC_COMMAND_SCHEMAS));

/** A validated command. */
export type RpcCommand = Static<typeof RpcCommandSchema>;

/** The command of one `type`. */
export type RpcCommandOf<K extends RpcCommandType> = Static<(typeof RPC_COMMAND_SCHEMAS)[K]>;

/** Field names older clients send, mapped to the schema's (`message` for `text`, `thinkingLevel` for `level`). */
const ALIASES: Readonly<Record<string, string>> = { message: "text", thinkingLevel: "level" };

/** What {@link parseRpcCommand} makes of a value: a command, or the error to answer with. */
export type ParsedRpcCommand =
  | { ok: true; command: RpcCommand }
  | { ok: false; error: string; id?: string | number; type?: string };

function isCommandType(type: string): type is RpcCommandType {
  return Object.hasOwn(RPC_COMMAND_SCHEMAS, type);
}

/**
 * Validates a decoded command (e.g. one JSON line) against its schema.
 *
 * Contract: never throws; the error names the command, the field and what it must be. Unknown fields are
 * kept and ignored; `message` / `thinkingLevel` are read as `text` / `level`.
 */
export function parseRpcCommand(value: unknown): ParsedRpcCommand {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, error: "A command must be a JSON object." };
  }
  const record: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  const id = typeof record.id === "string" || typeof record.id === "number" ? record.id : undefined;
  const base = id === undefined ? {} : { id };
  if (typeof record.type !== "string")
    return { ok: false, ...base, error: 'A command needs a string "type".' };
  const type = record.type;
  if (record.id !== undefined && id === undefined)
    return { ok: false, error: '"id" must be a string or a number.' };
  if (!isCommandType(type)) {
    const known = Object.keys(RPC_COMMAND_SCHEMAS).join(", ");
    return { ok: false, ...base, type, error: `Unknown command "${type}". Commands: ${known}.` };
  }
  const schema = RPC_COMMAND_SCHEMAS[type];
  for (const [alias, name] of Object.entries(ALIASES)) {
    // Only where the schema has the field and not the alias (`merge` has a `message` of its own).
    if (fieldSchema(schema, name) === undefined || fieldSchema(schema, alias) !== undefined) continue;
    if (record[name] === undefined && record[alias] !== undefined) record[name] = record[alias];
  }
  if (Value.Check(schema, record)) return { ok: true, command: record as RpcCommand };
  const [first] = Value.Errors(schema, record);
  const field = first?.path.split("/")[1] ?? "";
  const expected = fieldSchema(schema, field)?.description ?? "valid";
  const problem =
    record[field] === undefined ? ` needs "${field}": ${expected}` : `: "${field}" must be ${expected}`;
  return { ok: false, ...base, type, error: `"${type}"${problem}.` };
}

function fieldSchema(schema: TSchema, field: string): TSchema | undefined {
  const properties = (schema as { properties?: Record<string, TSchema> }).properties ?? {};
  return Object.hasOwn(properties, field) ? properties[field] : undefined;
}
