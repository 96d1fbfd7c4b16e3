/**
 * The RPC command set: one TypeBox schema per command, {@link RpcCommandSchema} their union, and one
 * dispatcher, {@link dispatchRpcCommand}. A command is validated once, at the edge ({@link parseRpcCommand});
 * the handlers receive typed commands. `--mode rpc` and any other transport (a web server) speak it.
 */
import { type Static, THINKING_LEVELS, type TSchema, Type } from "@arbor/ai-providers";
import { Value } from "@sinclair/typebox/value";
import type { AppRuntime } from "../app-runtime.js";

/** Any string or number a client picks; echoed back in the command's response. */
const CommandId = Type.Optional(Type.Union([Type.String(), Type.Number()]));
const Text = Type.String({ description: "a string" });
const OptionalText = Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "a string" }));

function command<T extends string, P extends Record<string, TSchema>>(type: T, properties: P) {
  return Type.Object({ type: Type.Literal(type), id: CommandId, ...properties });
}

/** The schema of each command, by `type`. */
export const RPC_COMMAND_SCHEMAS = {
  /** Starts a run; the response comes at once, the run's events follow. */
  prompt: command("prompt", { text: Text }),
  /** Queues a steering message for the running turn. */
  steer: command("steer", { text: Text }),
  /** Queues a message for after the run. */
  follow_up: command("follow_up", { text: Text }),
  /** Aborts the run and waits until the session is idle. */
  abort: command("abort", {}),
  /** Compacts the session now. */
  compact: command("compact", { instructions: OptionalText }),
  /** Moves the leaf to an entry (`null`: the start), optionally summarizing the branch left. */
  navigate: command("navigate", {
    entryId: Type.Union([Type.String(), Type.Null()], {
      description: "an entry id, or null for the start of the session",
    }),
    summarize: Type.Optional(Type.Boolean({ description: "true or false" })),
    instructions: OptionalText,
  }),
  /** Forks the session at (or before) an entry (default: the leaf) and makes the fork current. */
  fork: command("fork", {
    entryId: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "an entry id" })),
    position: Type.Optional(
      Type.Union([Type.Literal("at"), Type.Literal("before"), Type.Null()], {
        description: '"at" or "before"',
      }),
    ),
  }),
  /** The session's state (see {@link sessionState}). */
  get_state: command("get_state", {}),
  /** The messages of the session's context. */
  get_messages: command("get_messages", {}),
  /** Switches the model (`provider/id`), loading the provider when needed. */
  set_model: command("set_model", { model: Text }),
  /** The slash commands extensions registered (name, description, arguments, source file). */
  get_commands: command("get_commands", {}),
  /** Runs an extension's command with the text after its name; notices it sends come as `notice` records. */
  run_command: command("run_command", { name: Text, args: Type.Optional(Type.String()) }),
  /** Sets the thinking level. */
  set_thinking_level: command("set_thinking_level", {
    level: Type.Union(
      THINKING_LEVELS.map((level) => Type.Literal(level)),
      { description: `one of ${THINKING_LEVELS.join(", ")}` },
    ),
  }),
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
  for (const [alias, name] of Object.entries(ALIASES)) {
    if (record[name] === undefined && record[alias] !== undefined) record[name] = record[alias];
  }
  const schema = RPC_COMMAND_SCHEMAS[type];
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

/** What the handlers need besides the runtime. */
export interface RpcContext {
  runtime: AppRuntime;
  /**
   * Keeps track of work that outlives its command (a prompt's run), so that a transport can wait for it; a
   * failure of that work is reported as an `error` record.
   *
   * Contract: must not throw.
   */
  track: (command: RpcCommand, work: Promise<unknown>) => void;
}

/** A failure of a valid command (a busy session, an empty session to fork); its message is the response's `error`. */
export class RpcCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RpcCommandError";
  }
}

type Handlers = {
  [K in RpcCommandType]: (command: RpcCommandOf<K>, context: RpcContext) => Promise<unknown>;
};

/** The session's state, for `get_state` and clients that render a footer. */
export function sessionState(runtime: AppRuntime): Record<string, unknown> {
  const session = runtime.session;
  const state = session.state;
  const usage = session.contextUsage();
  return {
    sessionId: session.id,
    ...(runtime.sessionFile === undefined ? {} : { file: runtime.sessionFile }),
    cwd: runtime.cwd,
    persistent: runtime.persistent,
    model: `${state.model.provider}/${state.model.id}`,
    thinkingLevel: state.thinkingLevel,
    activeTools: state.activeToolNames,
    phase: state.phase,
    isBusy: session.isBusy,
    isStreaming: state.isStreaming,
    leafId: state.leafId,
    ...(state.name === undefined ? {} : { name: state.name }),
    messageCount: state.messages.length,
    entryCount: session.session.entryCount,
    contextUsage: {
      tokens: usage.tokens,
      contextWindow: usage.contextWindow,
      percent: Math.round(usage.percent * 10) / 10,
      compactionThreshold: usage.compactionThreshold,
    },
    queued: {
      steering: state.queued.steering.length,
      followUp: state.queued.followUp.length,
      nextTurn: state.queued.nextTurn.length,
    },
    ...(state.errorMessage === undefined ? {} : { errorMessage: state.errorMessage }),
  };
}

const HANDLERS: Handlers = {
  async prompt(command, { runtime, track }) {
    const session = runtime.session;
    if (session.isBusy) {
      throw new RpcCommandError(
        `The session is busy (${session.phase}): send "steer" or "follow_up", or wait for the run to settle.`,
      );
    }
    // Decided before any await: a prompt must start in this turn (a command arriving next may change the session).
    const line = runtime.extensions.commandLine(command.text);
    if (line !== undefined) {
      await runtime.extensions.runCommand(line.name, line.argumentText);
      return { sessionId: session.id, command: true };
    }
    track(command, session.prompt(command.text));
    return { sessionId: session.id };
  },
  async steer(command, { runtime }) {
    runtime.session.steer(command.text);
    return undefined;
  },
  async follow_up(command, { runtime }) {
    runtime.session.followUp(command.text);
    return undefined;
  },
  async abort(_command, { runtime }) {
    const session = runtime.session;
    const wasBusy = session.isBusy;
    session.abort("aborted by an rpc command");
    await session.waitForIdle();
    return { aborted: wasBusy };
  },
  async compact(command, { runtime }) {
    return runtime.session.compact(command.instructions ?? undefined);
  },
  async navigate(command, { runtime }) {
    const instructions = command.instructions ?? undefined;
    const result = await runtime.session.navigateTree(command.entryId, {
      ...(command.summarize === undefined ? {} : { summarize: command.summarize }),
      ...(instructions === undefined ? {} : { instructions }),
    });
    if (result.kind !== "moved") return result;
    return {
      kind: result.kind,
      leafId: result.leafId,
      fromHook: result.fromHook,
      ...(result.summaryEntryId === undefined ? {} : { summaryEntryId: result.summaryEntryId }),
      ...(result.summary === undefined ? {} : { summary: result.summary }),
    };
  },
  async fork(command, { runtime }) {
    const entryId = command.entryId ?? runtime.session.session.leafId;
    if (entryId === null) throw new RpcCommandError('"fork" needs "entryId" (the session is empty).');
    const source = runtime.session.id;
    const fork = await runtime.session.fork(entryId, command.position ?? "at");
    await runtime.switchTo(fork);
    return {
      sessionId: fork.id,
      parentSession: source,
      ...(runtime.sessionFile === undefined ? {} : { file: runtime.sessionFile }),
      leafId: fork.session.leafId,
    };
  },
  async get_state(_command, { runtime }) {
    return sessionState(runtime);
  },
  async get_messages(_command, { runtime }) {
    return { messages: runtime.session.state.messages };
  },
  async set_model(command, { runtime }) {
    const model = await runtime.loadModel(command.model);
    await runtime.session.setModel(model);
    return { model: `${model.provider}/${model.id}`, contextWindow: model.contextWindow };
  },
  async get_commands(_command, { runtime }) {
    return { commands: runtime.extensions.commandList() };
  },
  async run_command(command, { runtime }) {
    const failedBefore = runtime.extensions.failures.length;
    if (!(await runtime.extensions.runCommand(command.name, command.args ?? ""))) {
      const known = runtime.extensions.commandList().map((item) => item.name);
      throw new RpcCommandError(
        `No extension command "${command.name}". Commands: ${known.length > 0 ? known.join(", ") : "(none)"}.`,
      );
    }
    const failure = runtime.extensions.failures.slice(failedBefore)[0];
    if (failure !== undefined) throw new RpcCommandError(`/${command.name} failed: ${failure.message}`);
    return { name: command.name };
  },
  async set_thinking_level(command, { runtime }) {
    await runtime.session.setThinkingLevel(command.level);
    return { thinkingLevel: runtime.session.state.thinkingLevel };
  },
};

/**
 * Runs a validated command; resolves to the `data` of its response.
 *
 * Contract: rejects with an error whose message is the response's `error` (a busy session, an unknown
 * model, the harness's own refusals); work that outlives the command goes to `context.track`.
 */
export function dispatchRpcCommand(command: RpcCommand, context: RpcContext): Promise<unknown> {
  const handler = HANDLERS[command.type] as (command: RpcCommand, context: RpcContext) => Promise<unknown>;
  return handler(command, context);
}
