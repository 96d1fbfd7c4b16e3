/**
 * What an extension registers while it loads: the {@link ExtensionApi} object its default export receives,
 * which checks each registration and stages it ({@link Staged}); the host commits the staging area only
 * when the default export finished. Hook handlers are wrapped here: each call is guarded
 * (`guarded-call.ts`) with its time limit and the operation's abort signal.
 */
import { type AgentTool, checkToolSchema } from "@arbor/agent-core";
import type { Model, Provider } from "@arbor/ai-providers";
import {
  type HarnessHookHandler,
  type HarnessHookName,
  type HarnessSession,
  isHookName,
} from "@arbor/harness";
import type {
  CustomProjector,
  ExtensionApi,
  ExtensionCommand,
  ExtensionEventHandler,
  ExtensionEventName,
  ExtensionNoticeLevel,
} from "./extension-api.js";
import { type ExtensionTimeouts, hookTimeout } from "./extension-timeouts.js";
import type { FailureWording } from "./guard-failure.js";
import { type GuardedOutcome, guardedCall } from "./guarded-call.js";

/** What one extension registered while loading, not yet committed. */
export interface Staged {
  hooks: { name: HarnessHookName; handler: HarnessHookHandler<HarnessHookName> }[];
  events: { name: ExtensionEventName; handler: ExtensionEventHandler<ExtensionEventName> }[];
  tools: AgentTool[];
  commands: { name: string; command: ExtensionCommand }[];
  providers: Provider[];
  projectors: { customType: string; projector: CustomProjector }[];
}

/** An empty staging area. */
export function emptyStaged(): Staged {
  return { hooks: [], events: [], tools: [], commands: [], providers: [], projectors: [] };
}

/** What the API object needs from the host. */
export interface ExtensionApiHost {
  readonly cwd: string;
  readonly home: string;
  /** Whether a tool name is taken outside the extension being loaded (built-in, MCP, earlier extensions). */
  toolTaken(name: string): boolean;
  /** Whether an earlier extension registered `/name`. */
  commandTaken(name: string): boolean;
  /**
   * The runtime's current session.
   *
   * Contract: throws (naming `action`) while there is none (the extensions are loading).
   */
  session(action: string): HarnessSession;
  /** Resolves `"provider/id"` (loading the provider when needed). */
  loadModel(reference: string): Promise<Model>;
  /** Shows a notice from the extension at `path`. */
  notify(path: string, message: string, level?: ExtensionNoticeLevel): void;
  /**
   * Reports a guarded call that failed (once); returns its message, `undefined` when it did not fail.
   *
   * Contract: must not throw.
   */
  report(
    path: string,
    hook: string,
    outcome: GuardedOutcome<unknown>,
    wording: FailureWording,
  ): string | undefined;
}

const COMMAND_NAME = /^[A-Za-z0-9][A-Za-z0-9_:-]*$/;

/**
 * A provider under another name: its models re-labelled so that `"<name>/<id>"` resolves to it; its
 * `credentials` kept (the tools' environment leaves out their key variable).
 */
function renamed(name: string, provider: Provider): Provider {
  if (provider.id === name) return provider;
  const relabel = (model: Model): Model => ({ ...model, provider: name });
  const resolveModel = provider.resolveModel?.bind(provider);
  return {
    id: name,
    models: provider.models.map(relabel),
    stream: (model, context, options) => provider.stream(model, context, options),
    ...(provider.credentials === undefined ? {} : { credentials: provider.credentials }),
    ...(resolveModel === undefined
      ? {}
      : {
          resolveModel: (modelId: string) => {
            const model = resolveModel(modelId);
            return model === undefined ? undefined : relabel(model);
          },
        }),
  };
}

/**
 * The API object of the extension at `path`: registrations are checked (a bad one throws, which fails the
 * load) and staged in `staged`; the session-bound members act on the host's current session.
 */
export function createExtensionApi(
  host: ExtensionApiHost,
  path: string,
  staged: Staged,
  timeouts: ExtensionTimeouts,
): ExtensionApi {
  const taken = (name: string) => host.toolTaken(name) || staged.tools.some((tool) => tool.name === name);
  const on = (name: string, handler: unknown) => {
    if (typeof handler !== "function") throw new Error(`on("${name}"): the handler must be a function.`);
    if (isHookName(name)) {
      const hook = handler as HarnessHookHandler<HarnessHookName>;
      const limit = hookTimeout(timeouts, name);
      const wrapped: HarnessHookHandler<HarnessHookName> = async (event, context) => {
        const outcome = await guardedCall(() => hook(event as never, context), {
          timeoutMs: limit.ms,
          signal: context.signal,
          label: `extension ${path}, ${name}`,
        });
        host.report(path, name, outcome, { consequence: "counted as no result", setting: limit.setting });
        return outcome.kind === "returned" ? outcome.value : undefined;
      };
      staged.hooks.push({ name, handler: wrapped });
      return;
    }
    staged.events.push({
      name: name as ExtensionEventName,
      handler: handler as ExtensionEventHandler<ExtensionEventName>,
    });
  };
  return {
    file: path,
    cwd: host.cwd,
    home: host.home,
    on: on as ExtensionApi["on"],
    registerTool: (tool) => {
      if (
        typeof tool?.name !== "string" ||
        typeof tool.execute !== "function" ||
        tool.parameters === undefined
      ) {
        throw new Error(
          "registerTool: a tool needs a name, parameters (TypeBox, JSON Schema or Standard Schema) and execute().",
        );
      }
      checkToolSchema(tool);
      if (taken(tool.name)) throw new Error(`registerTool: a tool named "${tool.name}" exists already.`);
      if (tool.name.startsWith("mcp__")) {
        throw new Error(
          `registerTool: "${tool.name}": names starting with mcp__ are the MCP servers' tools.`,
        );
      }
      staged.tools.push(tool);
    },
    registerCommand: (name, command) => {
      if (!COMMAND_NAME.test(name))
        throw new Error(`registerCommand: "${name}" is not a command name (letters, digits, -, _, :).`);
      if (typeof command?.run !== "function")
        throw new Error(`registerCommand("${name}"): run() is missing.`);
      if (host.commandTaken(name) || staged.commands.some((item) => item.name === name)) {
        throw new Error(`registerCommand: /${name} is registered already.`);
      }
      staged.commands.push({ name, command });
    },
    registerProvider: (name, provider) => {
      if (typeof provider?.stream !== "function" || !Array.isArray(provider.models)) {
        throw new Error(`registerProvider("${name}"): a Provider needs models and stream().`);
      }
      staged.providers.push(renamed(name, provider));
    },
    projectCustom: (customType, projector) => {
      if (typeof projector !== "function")
        throw new Error(`projectCustom("${customType}"): the projector must be a function.`);
      staged.projectors.push({ customType, projector });
    },
    appendCustom: (customType, data) => host.session("appendCustom").appendCustom(customType, data),
    appendCustomMessage: (input) => host.session("appendCustomMessage").appendCustomMessage(input),
    setLabel: (entryId, label) => host.session("setLabel").label(entryId, label),
    setModel: async (model) => {
      const session = host.session("setModel");
      const resolved = typeof model === "string" ? await host.loadModel(model) : model;
      await session.setModel(resolved);
    },
    sendUserMessage: async (text, options = {}) => {
      const session = host.session("sendUserMessage");
      const deliverAs = options.deliverAs ?? (session.isBusy ? "steer" : undefined);
      if (deliverAs === "steer") session.steer(text);
      else if (deliverAs === "followUp") session.followUp(text);
      else if (deliverAs === "nextTurn") session.nextTurn(text);
      else await session.prompt(text);
    },
    ui: { notify: (message, level) => host.notify(path, message, level) },
  };
}
