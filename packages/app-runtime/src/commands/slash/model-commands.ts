/**
 * The slash commands that change how the model runs: /model, /thinking, /tools, /compact.
 */
import { type Model, THINKING_LEVELS, type ThinkingLevel } from "@arbor/ai-providers";
import { errorText, formatTokens } from "@arbor/session-view";
import { type CommandHost, CommandUsageError, type SlashCommandSpec } from "./command-types.js";

function referenceOf(model: Model): string {
  return `${model.provider}/${model.id}`;
}

async function setModel(host: CommandHost, reference: string): Promise<void> {
  // loadModel: another provider is loaded on demand, and any id of a provider is accepted.
  await host.session().setModel(await host.runtime.loadModel(reference));
  host.store.refresh();
  const model = host.session().state.model;
  host.store.notice("info", `model: ${referenceOf(model)} (${formatTokens(model.contextWindow)} context)`);
}

/** `/model [provider/id]`: switch the model (a picker of every provider's models without an argument). */
export const modelCommand: SlashCommandSpec = {
  name: "model",
  arguments: "[provider/id]",
  description: "switch the model (a picker of the available models without an argument)",
  needsIdle: false,
  async run(argumentText, host) {
    if (argumentText !== "") {
      await setModel(host, argumentText);
      return;
    }
    const current = referenceOf(host.session().state.model);
    const models = host.runtime.registry.listModels();
    const items = models.map((model) => {
      const reference = referenceOf(model);
      const facts = [model.name, `${formatTokens(model.contextWindow)} context`];
      if (model.reasoning) facts.push("reasoning");
      return { key: reference, label: reference, detail: facts.join(" · "), current: reference === current };
    });
    host.openPicker({
      title: "Choose a model",
      items,
      initialIndex: Math.max(
        0,
        items.findIndex((item) => item.current),
      ),
      filterable: true,
      emptyText: "no models: no provider is set up",
      onSelect: (reference) => {
        setModel(host, reference).catch((error: unknown) =>
          host.store.notice("error", `cannot switch the model: ${errorText(error)}`),
        );
      },
    });
  },
};

async function setThinking(host: CommandHost, level: ThinkingLevel): Promise<void> {
  await host.session().setThinkingLevel(level);
  host.store.refresh();
  const model = host.session().state.model;
  const note =
    model.reasoning || level === "off"
      ? ""
      : ` (${referenceOf(model)} does not reason; it applies to reasoning models)`;
  host.store.notice("info", `thinking: ${level}${note}`);
}

/** `/thinking [level]`: set the thinking level (a picker without an argument). */
export const thinkingCommand: SlashCommandSpec = {
  name: "thinking",
  arguments: `[${THINKING_LEVELS.join("|")}]`,
  description: "set the reasoning effort (a picker without an argument)",
  needsIdle: false,
  async run(argumentText, host) {
    if (argumentText !== "") {
      const level = argumentText.toLowerCase();
      if (!(THINKING_LEVELS as readonly string[]).includes(level)) {
        host.store.notice(
          "error",
          `unknown thinking level "${argumentText}"; choose one of ${THINKING_LEVELS.join(", ")}`,
        );
        return;
      }
      await setThinking(host, level as ThinkingLevel);
      return;
    }
    const current = host.session().state.thinkingLevel;
    host.openPicker({
      title: "Thinking level",
      items: THINKING_LEVELS.map((level) => ({ key: level, label: level, current: level === current })),
      initialIndex: Math.max(0, THINKING_LEVELS.indexOf(current)),
      onSelect: (level) => {
        setThinking(host, level as ThinkingLevel).catch((error: unknown) =>
          host.store.notice("error", `cannot set the thinking level: ${errorText(error)}`),
        );
      },
    });
  },
};

/** `/compact [instructions]`: compact the context now, optionally focusing the summary. */
export const compactCommand: SlashCommandSpec = {
  name: "compact",
  arguments: "[instructions]",
  description: "summarize older history now to free context (optionally: what the summary should keep)",
  needsIdle: true,
  run(argumentText, host) {
    const operation = host.runtime.compact(argumentText === "" ? undefined : argumentText);
    host.store.refresh();
    // The outcome is shown from the compaction_end event, which comes before the session reloads its
    // context: the footer's context figure is read again once the operation is done.
    operation.then(
      () => host.store.refresh(),
      (error: unknown) => host.store.notice("error", `cannot compact: ${errorText(error)}`),
    );
  },
};

/**
 * `/tools [names…]`: without names, the session's tools, the active ones marked; with names (built-in
 * tools, `mcp__<server>__<tool>`, `mcp__<server>` for all of a server's, or `all`), the tools the model may
 * call from the next model call on — the allow list of `--tools`.
 */
export const toolsCommand: SlashCommandSpec = {
  name: "tools",
  arguments: "[names…|all]",
  description: "list the tools (active ones marked *), or choose the ones the model may call",
  needsIdle: false,
  async run(argumentText, host) {
    const session = host.session();
    const available = session.toolNames;
    const words = argumentText.split(/[\s,]+/).filter((word) => word !== "");
    if (words.length === 0) {
      const active = new Set(session.state.activeToolNames);
      const lines = available.map((name) => `  ${active.has(name) ? "*" : " "} ${name}`);
      host.store.notice(
        "info",
        [`tools (${active.size} of ${available.length} active):`, ...lines].join("\n"),
      );
      return;
    }
    const chosen = words.includes("all")
      ? [...available]
      : available.filter((name) =>
          words.some((word) => name === word || (word.startsWith("mcp__") && name.startsWith(`${word}__`))),
        );
    const unknown = words.filter(
      (word) => word !== "all" && !available.some((name) => name === word || name.startsWith(`${word}__`)),
    );
    if (unknown.length > 0) {
      throw new CommandUsageError(
        `unknown tool${unknown.length === 1 ? "" : "s"} ${unknown.join(", ")}; the tools are ${available.join(", ")}`,
      );
    }
    await session.setActiveTools(chosen);
    host.store.notice("success", `active tools: ${chosen.length === 0 ? "(none)" : chosen.join(", ")}`);
  },
};
