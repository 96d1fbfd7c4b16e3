import type { AgentTool } from "@arbor/agent-core";
import { type Model, THINKING_LEVELS, type ThinkingLevel } from "@arbor/ai-providers";
import type { Session } from "@arbor/session-store";
import type { HarnessRuntime } from "./harness-options.js";
import { modelReference, tryResolveModel } from "./models.js";
import type { PendingWrite } from "./pending-writes.js";
import { createRecallTool, RECALL_TOOL_NAME } from "./recall-tool.js";
import { emptyHarnessResources, type HarnessResources } from "./session-resources.js";

/** What a harness session starts with. Internal. */
export interface SessionStartState {
  resources: HarnessResources;
  model: Model;
  thinkingLevel: ThinkingLevel;
  /** Every tool the session may activate (the harness's, plus `recall`). */
  tools: AgentTool[];
  activeToolNames: string[];
  /** Entries a new session starts with (its model and thinking level), so that a reopen restores them. */
  initialWrites: PendingWrite[];
  /** What could not be restored (an unknown model or tool recorded in the session). */
  warnings: string[];
}

/**
 * Loads the resources of the session's working directory (with the harness's `resources` loader) and works out its model, thinking level and active
 * tools: a new session takes the harness's defaults (and records the model and thinking level); an opened one
 * takes what its entries record on the current path (docs/reference/harness.md, `deriveSessionContextState`) —
 * when a recorded model does not resolve or a recorded tool is unknown, the default is used and a warning
 * says so; `modelOverride` (a model the user chose for this run) replaces the recorded model, unresolved. The `recall` tool it adds bounds each result by `recallMaxBytes` too (the session's tool-output
 * budget in characters) when given.
 */
export async function restoreSessionState(
  runtime: HarnessRuntime,
  session: Session,
  origin: "new" | "open",
  recallMaxBytes?: () => number | undefined,
  modelOverride?: Model,
): Promise<SessionStartState> {
  const resources = (await runtime.resources?.load(session.cwd)) ?? emptyHarnessResources();
  const tools = [...runtime.tools];
  if (runtime.recallTool && !tools.some((tool) => tool.name === RECALL_TOOL_NAME)) {
    tools.push(
      createRecallTool({ getSession: () => session, getMaxBytes: recallMaxBytes }) as unknown as AgentTool,
    );
  }
  const allNames = tools.map((tool) => tool.name);
  const warnings: string[] = [];
  let model = runtime.defaultModel;
  let thinkingLevel = runtime.settings.thinkingLevel;
  let activeToolNames = allNames;
  const initialWrites: PendingWrite[] = [];

  if (origin === "new") {
    initialWrites.push(
      { type: "model_change", provider: model.provider, modelId: model.id },
      { type: "thinking_level_change", thinkingLevel },
    );
    return { resources, model, thinkingLevel, tools, activeToolNames, initialWrites, warnings };
  }

  const context = session.buildContext();
  if (modelOverride !== undefined) model = modelOverride;
  else if (context.model !== undefined) {
    const reference = modelReference({ provider: context.model.provider, id: context.model.modelId });
    const recorded =
      reference === modelReference(model) ? model : tryResolveModel(reference, runtime.modelSources);
    if (recorded !== undefined) model = recorded;
    else
      warnings.push(
        `The session's model "${reference}" is not known here; using "${modelReference(model)}".`,
      );
  }
  if (context.thinkingLevel !== undefined) {
    if ((THINKING_LEVELS as readonly string[]).includes(context.thinkingLevel)) {
      thinkingLevel = context.thinkingLevel as ThinkingLevel;
    } else {
      warnings.push(
        `Unknown thinking level "${context.thinkingLevel}" in the session; using "${thinkingLevel}".`,
      );
    }
  }
  if (context.activeToolNames !== undefined) {
    const unknown = context.activeToolNames.filter((name) => !allNames.includes(name));
    if (unknown.length > 0) {
      warnings.push(`The session names tools this harness does not have: ${unknown.join(", ")}.`);
    }
    activeToolNames = allNames.filter((name) => context.activeToolNames?.includes(name));
  }
  return { resources, model, thinkingLevel, tools, activeToolNames, initialWrites, warnings };
}

/**
 * The settings entries that make a path record the session's current model, thinking level and active tools
 * (after a move of the leaf, the new path may record others): one write per setting that differs.
 */
export function settingsToRecord(
  session: Session,
  current: { model: Model; thinkingLevel: ThinkingLevel; activeToolNames: readonly string[] },
  allToolNames: readonly string[],
): PendingWrite[] {
  const context = session.buildContext();
  const writes: PendingWrite[] = [];
  const { model } = current;
  if (context.model?.provider !== model.provider || context.model?.modelId !== model.id) {
    writes.push({ type: "model_change", provider: model.provider, modelId: model.id });
  }
  if (context.thinkingLevel !== current.thinkingLevel) {
    writes.push({ type: "thinking_level_change", thinkingLevel: current.thinkingLevel });
  }
  const recorded = context.activeToolNames ?? allToolNames;
  if (recorded.join("\n") !== current.activeToolNames.join("\n")) {
    writes.push({ type: "active_tools_change", activeToolNames: [...current.activeToolNames] });
  }
  return writes;
}

/**
 * The system prompt of a session: the harness's `systemPrompt` string as it is, or its builder given the
 * active tools, the resources, the date and the cwd; empty without one.
 */
export function composeSystemPrompt(
  runtime: HarnessRuntime,
  cwd: string,
  resources: HarnessResources,
  activeTools: readonly AgentTool[],
): string {
  const { systemPrompt } = runtime;
  if (typeof systemPrompt !== "function") return systemPrompt ?? "";
  const tools = activeTools.map((tool) => ({ name: tool.name, description: tool.description }));
  return systemPrompt({ cwd, tools, resources, date: runtime.now() });
}
