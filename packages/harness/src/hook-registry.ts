import type {
  AfterToolCallContext,
  AfterToolCallResult,
  AgentMessage,
  AgentTurnContext,
  AgentTurnUpdate,
  BeforeToolCallContext,
  BeforeToolCallResult,
} from "@arbor/agent-core";
import { ABORTED, untilAborted } from "@arbor/agent-core";
import { InvalidHarnessOptionsError } from "./errors.js";
import type {
  BeforeAgentStartEvent,
  BeforeAgentStartResult,
  HarnessHookHandler,
  HarnessHookMap,
  HarnessHookName,
  HarnessHooks,
  HookContext,
} from "./hooks.js";

const HOOK_NAMES: readonly HarnessHookName[] = [
  "before_agent_start",
  "context",
  "before_provider_request",
  "before_provider_payload",
  "after_provider_response",
  "tool_call",
  "tool_result",
  "session_before_compact",
  "session_before_tree",
  "prepareNextTurn",
  "shouldStopAfterTurn",
];

/** True for the name of a hook. */
export function isHookName(name: string): name is HarnessHookName {
  return (HOOK_NAMES as readonly string[]).includes(name);
}

type AnyHandler = HarnessHookHandler<HarnessHookName>;

/**
 * Handlers by hook, in registration order. The harness holds one and each session one; a session runs the
 * harness's handlers first, then its own.
 */
export class HookRegistry {
  private readonly handlers = new Map<HarnessHookName, readonly AnyHandler[]>();

  /** Registers the handlers of a {@link HarnessHooks} object. Throws for an unknown hook name. */
  addAll(hooks: HarnessHooks | undefined): void {
    if (hooks === undefined) return;
    for (const [name, value] of Object.entries(hooks)) {
      if (value === undefined) continue;
      if (!isHookName(name)) {
        throw new InvalidHarnessOptionsError(`Unknown hook "${name}". Hooks: ${HOOK_NAMES.join(", ")}.`);
      }
      const list = (Array.isArray(value) ? value : [value]) as AnyHandler[];
      for (const handler of list) this.on(name, handler as HarnessHookHandler<typeof name>);
    }
  }

  /**
   * Adds a handler after those already registered for the hook.
   *
   * Contract: returns a function that removes it; a change made while the hook runs applies from its next run.
   */
  on<K extends HarnessHookName>(name: K, handler: HarnessHookHandler<K>): () => void {
    if (!isHookName(name)) {
      throw new InvalidHarnessOptionsError(
        `Unknown hook "${String(name)}". Hooks: ${HOOK_NAMES.join(", ")}.`,
      );
    }
    if (typeof handler !== "function") {
      throw new InvalidHarnessOptionsError(`The handler of hook "${name}" must be a function.`);
    }
    this.handlers.set(name, [...(this.handlers.get(name) ?? []), handler as AnyHandler]);
    return () => {
      this.handlers.set(
        name,
        (this.handlers.get(name) ?? []).filter((candidate) => candidate !== handler),
      );
    };
  }

  /** The handlers of a hook, in registration order (a snapshot). */
  list<K extends HarnessHookName>(name: K): readonly HarnessHookHandler<K>[] {
    return (this.handlers.get(name) ?? []) as readonly HarnessHookHandler<K>[];
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === "object" || typeof value === "function") &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}

/**
 * Runs the handlers of the harness and of one session, catching and reporting failures. The combination
 * rule of each hook (see `HarnessHookMap`) lives in the code that uses it; the shared ones are here. Once
 * the operation is aborted, no handler is waited for: an async handler that ignores the signal counts as
 * having returned nothing, so `abort()` always ends the run.
 */
export class HookRunner {
  constructor(
    private readonly registries: readonly HookRegistry[],
    private readonly hookContext: () => HookContext,
    private readonly report: (hook: HarnessHookName, error: unknown) => void,
  ) {}

  /** True when the hook has at least one handler. */
  has(name: HarnessHookName): boolean {
    return this.registries.some((registry) => registry.list(name).length > 0);
  }

  /** The handlers of a hook, the harness's first. */
  handlers<K extends HarnessHookName>(name: K): HarnessHookHandler<K>[] {
    const all: HarnessHookHandler<K>[] = [];
    for (const registry of this.registries) all.push(...registry.list(name));
    return all;
  }

  /**
   * Calls one handler; a throw or rejection is reported and yields `undefined`, and so does an async handler
   * still pending when (or called after) the operation is aborted — it is not waited for.
   */
  async call<K extends HarnessHookName>(
    name: K,
    handler: HarnessHookHandler<K>,
    event: HarnessHookMap[K]["event"],
  ): Promise<HarnessHookMap[K]["result"] | undefined> {
    try {
      const context = this.hookContext();
      const returned = handler(event, context);
      const result = isThenable(returned) ? await untilAborted(returned, context.signal) : returned;
      if (result === ABORTED || result === null) return undefined;
      return result as HarnessHookMap[K]["result"] | undefined;
    } catch (error) {
      this.report(name, error);
      return undefined;
    }
  }

  /** Calls every handler with the same event; results are ignored (observation hooks). */
  async notify<K extends HarnessHookName>(name: K, event: HarnessHookMap[K]["event"]): Promise<void> {
    for (const handler of this.handlers(name)) await this.call(name, handler, event);
  }

  /** Runs handlers in order until one returns a result that `stops` accepts; returns that result. */
  async first<K extends HarnessHookName>(
    name: K,
    event: HarnessHookMap[K]["event"],
    stops: (result: HarnessHookMap[K]["result"]) => boolean,
  ): Promise<HarnessHookMap[K]["result"] | undefined> {
    for (const handler of this.handlers(name)) {
      const result = await this.call(name, handler, event);
      if (result !== undefined && stops(result)) return result;
    }
    return undefined;
  }

  /** `context`: each handler sees the previous handler's messages. */
  async context(messages: AgentMessage[]): Promise<AgentMessage[]> {
    let current = messages;
    for (const handler of this.handlers("context")) {
      const result = await this.call("context", handler, { messages: current });
      if (Array.isArray(result?.messages)) current = result.messages;
    }
    return current;
  }

  /** `tool_call`: the first handler that blocks wins. */
  toolCall(context: BeforeToolCallContext): Promise<BeforeToolCallResult | undefined> {
    return this.first("tool_call", context, (result) => result.block === true);
  }

  /** `tool_result`: patches merge in order, each handler seeing the result patched so far. */
  async toolResult(context: AfterToolCallContext): Promise<AfterToolCallResult | undefined> {
    let patch: AfterToolCallResult | undefined;
    let result = { ...context.result, isError: context.isError };
    for (const handler of this.handlers("tool_result")) {
      const override = await this.call("tool_result", handler, {
        ...context,
        result,
        isError: result.isError,
      });
      if (override === undefined) continue;
      patch = { ...patch, ...override };
      result = { ...result, ...override, isError: override.isError ?? result.isError };
    }
    return patch;
  }

  /** `before_agent_start`: messages accumulate, the system prompt chains. */
  async beforeAgentStart(event: BeforeAgentStartEvent): Promise<Required<BeforeAgentStartResult>> {
    const messages: AgentMessage[] = [];
    let systemPrompt = event.systemPrompt;
    for (const handler of this.handlers("before_agent_start")) {
      const result = await this.call("before_agent_start", handler, { ...event, systemPrompt });
      if (result === undefined) continue;
      if (Array.isArray(result.messages)) messages.push(...result.messages);
      if (typeof result.systemPrompt === "string") systemPrompt = result.systemPrompt;
    }
    return { messages, systemPrompt };
  }

  /** `prepareNextTurn`: updates merge in order; each handler sees the context the earlier ones set. */
  async prepareNextTurn(turn: AgentTurnContext, initial: AgentTurnUpdate): Promise<AgentTurnUpdate> {
    const update: AgentTurnUpdate = { ...initial };
    for (const handler of this.handlers("prepareNextTurn")) {
      const seen: AgentTurnContext = {
        ...turn,
        context: update.context ?? turn.context,
        model: update.model ?? turn.model,
        thinkingLevel: update.thinkingLevel ?? turn.thinkingLevel,
      };
      const result = await this.call("prepareNextTurn", handler, seen);
      if (result === undefined) continue;
      if (result.context !== undefined) update.context = result.context;
      if (result.model !== undefined) update.model = result.model;
      if (result.thinkingLevel !== undefined) update.thinkingLevel = result.thinkingLevel;
    }
    return update;
  }

  /** `shouldStopAfterTurn`: true when any handler says so (the rest still run, for their side effects). */
  async shouldStopAfterTurn(turn: AgentTurnContext): Promise<boolean> {
    let stop = false;
    for (const handler of this.handlers("shouldStopAfterTurn")) {
      if ((await this.call("shouldStopAfterTurn", handler, turn)) === true) stop = true;
    }
    return stop;
  }
}
