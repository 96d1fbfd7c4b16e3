/**
 * The commands the demo page sends besides the RPC command set of `@arbor/app-runtime` (prompt, abort,
 * compact, navigate, fork, get_state, …): the tree as a graph, one entry, a summary's details, the
 * context breakdown, label, edit and re-run, diff, merge, and the session list, new, open and import.
 * One TypeBox schema per command, validated at the edge like the RPC commands; ids are checked before
 * anything uses them.
 */
import { type Static, type TSchema, Type } from "@arbor/ai-providers";
import { Value } from "@sinclair/typebox/value";

const SessionId = Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$", description: "a session id" });
const EntryId = Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$", description: "an entry id" });

function command<T extends string, P extends Record<string, TSchema>>(type: T, properties: P) {
  return Type.Object({ type: Type.Literal(type), ...properties });
}

/** The schema of each demo command, by `type`. */
export const DEMO_COMMAND_SCHEMAS = {
  /** The current session's tree as graph nodes (`expanded`: runs to show entry by entry). */
  get_graph: command("get_graph", {
    expanded: Type.Optional(Type.Array(EntryId, { maxItems: 1000, description: "entry ids" })),
  }),
  /** One entry of the current session as a view (kind, label, facts, parts). */
  get_entry: command("get_entry", { entryId: EntryId }),
  /** A compaction's or branch summary's text, tokens, files and the entries it covers. */
  get_summary: command("get_summary", { entryId: EntryId }),
  /**
   * The context meter: tokens, window, threshold and what fills it; `notice` when the context is over the
   * threshold and the last compaction freed nothing.
   */
  get_context: command("get_context", {}),
  /** The transcript of the current path (for the chat). */
  get_transcript: command("get_transcript", {}),
  /** Labels an entry (`label` empty or null: removes it). */
  label: command("label", {
    entryId: EntryId,
    label: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], { description: "a label or null" }),
  }),
  /** Edits a user message and runs again: moves to its parent (no summary), then prompts with `text`. */
  edit: command("edit", {
    entryId: EntryId,
    text: Type.String({ minLength: 1, description: "the new text" }),
  }),
  /** Where two branches of the session diverge and what each holds after. */
  diff: command("diff", { a: EntryId, b: EntryId }),
  /** Merges the branch ending at `sourceLeafId` into the branch of `into` (default the current leaf). */
  merge: command("merge", {
    sourceLeafId: EntryId,
    into: Type.Optional(EntryId),
    summarize: Type.Optional(Type.Boolean({ description: "true or false" })),
    message: Type.Optional(Type.String({ maxLength: 2000 })),
  }),
  /** A page of the store's sessions (newest activity first). */
  list_sessions: command("list_sessions", {
    cursor: Type.Optional(Type.String({ maxLength: 2000 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    all: Type.Optional(Type.Boolean({ description: "every working directory's sessions" })),
  }),
  /** Starts a new session and makes it current. */
  new_session: command("new_session", {}),
  /** Opens a session of the store by id and makes it current. */
  open_session: command("open_session", { sessionId: SessionId }),
  /** Imports a session file's text (the pi agent's or Arbor's JSONL) into the store and opens it. */
  import_session: command("import_session", {
    text: Type.String({ minLength: 1, maxLength: 200_000_000, description: "the file's text" }),
  }),
} as const;

/** The names of the demo commands. */
export type DemoCommandType = keyof typeof DEMO_COMMAND_SCHEMAS;

/** A validated demo command of one `type`. */
export type DemoCommandOf<K extends DemoCommandType> = Static<(typeof DEMO_COMMAND_SCHEMAS)[K]>;

/** Any validated demo command. */
export type DemoCommand = { [K in DemoCommandType]: DemoCommandOf<K> }[DemoCommandType];

/** True when `type` names a demo command. */
export function isDemoCommandType(type: unknown): type is DemoCommandType {
  return typeof type === "string" && Object.hasOwn(DEMO_COMMAND_SCHEMAS, type);
}

/**
 * Validates a decoded demo command.
 *
 * Contract: never throws; the error names the command and the first field that is wrong.
 */
export function parseDemoCommand(
  value: Record<string, unknown>,
): { ok: true; command: DemoCommand } | { ok: false; error: string } {
  const type = value.type;
  if (!isDemoCommandType(type)) return { ok: false, error: `Unknown command ${JSON.stringify(type)}.` };
  const schema = DEMO_COMMAND_SCHEMAS[type];
  if (Value.Check(schema, value)) return { ok: true, command: value as DemoCommand };
  const [first] = Value.Errors(schema, value);
  const field = first?.path.replace(/^\//, "") || "the command";
  return { ok: false, error: `"${type}": ${field} ${first?.message ?? "is invalid"}.` };
}
