/**
 * The commands of `--mode rpc`. Each takes the parsed command object and resolves to the `data` of its
 * response, or rejects with an error whose message becomes the response's `error`.
 */
import type { ThinkingLevel } from "@arbor/ai-providers";
import type { ArborRuntime } from "../runtime-factory.js";
import { THINKING_LEVEL_NAMES } from "../tool-names.js";

/** A command line as parsed: `type`, an optional `id`, and the command's own fields. */
export type RpcCommand = { type: string; id?: string | number } & Record<string, unknown>;

/** What the commands need besides the runtime. */
export interface RpcContext {
  runtime: ArborRuntime;
  /**
   * Keeps track of work that outlives its command (a prompt's run), so that end of input waits for it; a
   * failure of that work is reported as an `error` line.
   *
   * Contract: must not throw.
   */
  track: (command: RpcCommand, work: Promise<unknown>) => void;
}

/** A command's handler. */
export type RpcHandler = (command: RpcCommand, context: RpcContext) => Promise<unknown>;

/** A problem with a command's fields. */
export class RpcCommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RpcCommandError";
  }
}

function requiredText(command: RpcCommand, ...names: string[]): string {
  for (const name of names) {
    const value = command[name];
    if (typeof value === "string") return value;
  }
  throw new RpcCommandError(`"${command.type}" needs a string field "${names[0]}".`);
}

function optionalText(command: RpcCommand, name: string): string | undefined {
  const value = command[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") throw new RpcCommandError(`"${command.type}": "${name}" must be a string.`);
  return value;
}

/** The session's state, for `get_state` and clients that render a footer. */
export function sessionState(runtime: ArborRuntime): Record<string, unknown> {
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

/** The commands, by `type`. */
export const RPC_COMMANDS: Readonly<Record<string, RpcHandler>> = {
  async prompt(command, { runtime, track }) {
    const text = requiredText(command, "text", "message");
    const session = runtime.session;
    if (session.isBusy) {
      throw new RpcCommandError(
        `The session is busy (${session.phase}): send "steer" or "follow_up", or wait for the run to settle.`,
      );
    }
    track(command, session.prompt(text));
    return { sessionId: session.id };
  },
  async steer(command, { runtime }) {
    runtime.session.steer(requiredText(command, "text", "message"));
    return undefined;
  },
  async follow_up(command, { runtime }) {
    runtime.session.followUp(requiredText(command, "text", "message"));
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
    const outcome = await runtime.session.compact(optionalText(command, "instructions"));
    return outcome;
  },
  async navigate(command, { runtime }) {
    const entryId = command.entryId;
    if (entryId !== null && typeof entryId !== "string") {
      throw new RpcCommandError(
        '"navigate" needs "entryId": an entry id, or null for the start of the session.',
      );
    }
    const summarize = command.summarize;
    if (summarize !== undefined && typeof summarize !== "boolean") {
      throw new RpcCommandError('"navigate": "summarize" must be true or false.');
    }
    const instructions = optionalText(command, "instructions");
    const result = await runtime.session.navigateTree(entryId, {
      ...(summarize === undefined ? {} : { summarize }),
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
    if (typeof entryId !== "string")
      throw new RpcCommandError('"fork" needs "entryId" (the session is empty).');
    const position = command.position ?? "at";
    if (position !== "at" && position !== "before") {
      throw new RpcCommandError('"fork": "position" must be "at" or "before".');
    }
    const source = runtime.session.id;
    const fork = await runtime.session.fork(entryId, position);
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
    const reference = requiredText(command, "model");
    const model = await runtime.loadModel(reference);
    await runtime.session.setModel(model);
    return { model: `${model.provider}/${model.id}`, contextWindow: model.contextWindow };
  },
  async set_thinking_level(command, { runtime }) {
    const level = requiredText(command, "level", "thinkingLevel");
    if (!(THINKING_LEVEL_NAMES as readonly string[]).includes(level)) {
      throw new RpcCommandError(
        `"set_thinking_level": "level" must be one of ${THINKING_LEVEL_NAMES.join(", ")}.`,
      );
    }
    await runtime.session.setThinkingLevel(level as ThinkingLevel);
    return { thinkingLevel: runtime.session.state.thinkingLevel };
  },
};
