/**
 * The one dispatcher of the protocol: {@link dispatchRpcCommand} runs a validated command (see
 * `rpc-commands.ts`) on an app runtime and resolves to its result (`CommandResult<K>`). `arbor --mode rpc`
 * (`rpc-server.ts`) and the demo server call it; every handler is a call of an `AppRuntime` operation or
 * of the harness session, so the busy guard, hooks and events are the same in every front end.
 */
import { sessionContextUsage } from "@arbor/session-view";
import type { AppRuntime } from "../app-runtime.js";
import { parseCommandLine } from "../commands/command-line.js";
import { runProtocolSlashCommand } from "../commands/protocol-command-host.js";
import type { ExtensionNotice } from "../extensions/extension-api.js";
import { OperationRefusedError } from "../operations/operation-error.js";
import { assertIdle } from "../operations/operation-host.js";
import { contextOf, entryViewOf, graphOf, summaryOf, transcriptOf } from "../operations/view-queries.js";
import { deleteSessions } from "../sessions/delete-sessions.js";
import type { CommandResult, SessionStateResult } from "./command-results.js";
import type { RpcCommand, RpcCommandOf, RpcCommandType } from "./rpc-commands.js";

/**
 * Why a run that the protocol's `abort` stopped ended (the aborted reply's `errorMessage` ends with it), in
 * the words a user of the demo's Stop button or of an rpc client reads: `aborted: stopped (abort requested)`.
 */
export const ABORT_REQUESTED = "stopped (abort requested)";

/** What the handlers need besides the command. */
export interface RpcContext {
  runtime: AppRuntime;
  /**
   * Keeps track of work that outlives its command (a prompt's or an edit's run), so that a transport can
   * wait for it; a failure of that work is reported as an `error` record.
   *
   * Contract: must not throw.
   */
  track: (command: RpcCommand, work: Promise<unknown>) => void;
  /**
   * Sends a slash command's notice to the client (as a `notice` record); without it, the notices of a slash
   * command typed as a `prompt` are dropped.
   *
   * Contract: must not throw.
   */
  notice?: (notice: ExtensionNotice) => void;
}

type Handlers = {
  [K in RpcCommandType]: (command: RpcCommandOf<K>, context: RpcContext) => Promise<CommandResult<K>>;
};

/** The session's state, for `get_state` and clients that render a footer. Contract: reads only. */
export function sessionState(runtime: AppRuntime): SessionStateResult {
  const session = runtime.session;
  const state = session.state;
  const usage = sessionContextUsage(session);
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
    ...(runtime.permissions.pending.length === 0 ? {} : { permissionRequests: runtime.permissions.pending }),
  };
}

const HANDLERS: Handlers = {
  async prompt(command, { runtime, track, notice }) {
    const session = runtime.session;
    // `/name args`: the terminal's slash commands (and extension commands, templates, skills), the same code.
    if (parseCommandLine(command.text) !== undefined) {
      const outcome = await runProtocolSlashCommand(runtime, command.text, {
        notice: (sent) => notice?.(sent),
        prompt: (text) => track(command, runtime.session.prompt(text)),
      });
      if (outcome !== undefined) return { sessionId: runtime.session.id, command: true, ...outcome };
    }
    if (session.isBusy) {
      throw new OperationRefusedError(
        `The session is busy (${session.phase}): send "steer" or "follow_up", or wait for the run to settle.`,
        "busy",
      );
    }
    // Decided before any await: a prompt must start in this turn (a command arriving next may change the session).
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
    session.abort(ABORT_REQUESTED);
    await session.waitForIdle();
    return { aborted: wasBusy };
  },
  async permission_reply(command, { runtime }) {
    if (runtime.permissions.reply(command.requestId, command.decision)) return { answered: true };
    throw new OperationRefusedError(
      `No permission request "${command.requestId}" waits for an answer (it was answered, or its run stopped).`,
      "not_found",
    );
  },
  async compact(command, { runtime }) {
    return runtime.compact(command.instructions ?? undefined);
  },
  async navigate(command, { runtime }) {
    const instructions = command.instructions ?? undefined;
    return runtime.navigate(command.entryId, {
      ...(command.summarize === undefined ? {} : { summarize: command.summarize }),
      ...(instructions === undefined ? {} : { instructions }),
    });
  },
  async fork(command, { runtime }) {
    return runtime.fork({
      ...(command.entryId == null ? {} : { entryId: command.entryId }),
      ...(command.position == null ? {} : { position: command.position }),
    });
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
      throw new OperationRefusedError(
        `No extension command "${command.name}". Commands: ${known.length > 0 ? known.join(", ") : "(none)"}.`,
        "command_failed",
      );
    }
    const failure = runtime.extensions.failures.slice(failedBefore)[0];
    if (failure !== undefined) {
      throw new OperationRefusedError(`/${command.name} failed: ${failure.message}`, "command_failed");
    }
    return { name: command.name };
  },
  async set_thinking_level(command, { runtime }) {
    await runtime.session.setThinkingLevel(command.level);
    return { thinkingLevel: runtime.session.state.thinkingLevel };
  },
  async get_graph(command, { runtime }) {
    return graphOf(runtime.session, command.expanded);
  },
  async get_entry(command, { runtime }) {
    return entryViewOf(runtime.session, command.entryId);
  },
  async get_summary(command, { runtime }) {
    return summaryOf(runtime.session, command.entryId);
  },
  async get_context(_command, { runtime }) {
    return contextOf(runtime.session, runtime.lastCompaction());
  },
  async get_transcript(_command, { runtime }) {
    return transcriptOf(runtime.session);
  },
  async label(command, { runtime }) {
    return runtime.label(command.entryId, command.label);
  },
  async edit(command, { runtime, track }) {
    const { result, run } = await runtime.edit(command.entryId, command.text);
    track(command, run);
    return result;
  },
  async diff(command, { runtime }) {
    return runtime.diff(command.a, command.b);
  },
  async merge(command, { runtime }) {
    return runtime.merge({
      sourceLeafId: command.sourceLeafId,
      ...(command.into === undefined ? {} : { into: command.into }),
      ...(command.summarize === undefined ? {} : { summarize: command.summarize }),
      ...(command.message === undefined ? {} : { message: command.message }),
    });
  },
  async list_sessions(command, { runtime }) {
    return runtime.listSessionPage({
      ...(command.cursor === undefined ? {} : { cursor: command.cursor }),
      ...(command.limit === undefined ? {} : { limit: command.limit }),
      ...(command.all === undefined ? {} : { all: command.all }),
    });
  },
  async new_session(_command, { runtime }) {
    assertIdle(runtime.session);
    return { sessionId: (await runtime.newSession()).id };
  },
  async open_session(command, { runtime }) {
    assertIdle(runtime.session);
    if (command.sessionId !== runtime.session.id) await runtime.openSession(command.sessionId);
    return { sessionId: runtime.session.id };
  },
  async delete_sessions(command, { runtime }) {
    return deleteSessions(runtime.store, command.sessionIds, { keep: [runtime.session.id] });
  },
  async import_session(command, { runtime }) {
    return runtime.importSession({ text: command.text });
  },
};

/**
 * Runs a validated command; resolves to the `data` of its response.
 *
 * Contract: rejects with an error whose message is the response's `error` — an `OperationRefusedError`
 * (with a `code`) for a refusal the user can act on, or the harness's own errors; work that outlives the
 * command goes to `context.track`. Nothing changes before a refusal.
 */
export function dispatchRpcCommand<K extends RpcCommandType>(
  command: RpcCommandOf<K>,
  context: RpcContext,
): Promise<CommandResult<K>> {
  const handler = HANDLERS[command.type as K] as (
    command: RpcCommandOf<K>,
    context: RpcContext,
  ) => Promise<CommandResult<K>>;
  return handler(command, context);
}
