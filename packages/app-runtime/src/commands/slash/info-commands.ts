/**
 * The slash commands that only describe: /context (what fills the model's context), /cost (what the
 * session's model calls used) and /hotkeys (the keys of the interactive mode).
 */
import { formatCost, formatTokens, sessionContextBreakdown } from "@arbor/session-view";
import type { SlashCommandSpec } from "./command-types.js";

/** The keys of the interactive mode, for /help and /hotkeys. */
export const KEY_HELP: readonly string[] = [
  "Enter          send (while the agent runs: steer it — injected before its next model call)",
  "Alt+Enter      queue a follow-up (sent when the agent would stop)",
  "Esc / Ctrl-C   stop the run; Ctrl-C twice while idle quits (with text in the editor, Ctrl-C clears it)",
  "↑ / ↓          history (on the first / last line); Ctrl-J or \\ then Enter: new line",
  "Tab            complete a slash command or an @file mention",
  "Ctrl-O         show the last cut tool output (or diff) whole",
  "/ at the start open the command menu",
  "!cmd / !!cmd   run a shell command (its output added to the context / not added)",
  "@path          attach a file to the prompt (images as images)",
];

/** `/hotkeys`: the keys. */
export const hotkeysCommand: SlashCommandSpec = {
  name: "hotkeys",
  description: "list the keys of the editor and the run",
  needsIdle: false,
  run(_argumentText, host) {
    host.store.notice("info", ["Keys:", ...KEY_HELP.map((line) => `  ${line}`)].join("\n"));
  },
};

/** `/cost`: tokens and cost of every model call of the session (every branch), in total and per model. */
export const costCommand: SlashCommandSpec = {
  name: "cost",
  description: "show the tokens and cost of the session's model calls, in total and per model",
  needsIdle: false,
  run(_argumentText, host) {
    const usage = host.session().usage();
    const line = (total: typeof usage | (typeof usage.byModel)[string]) =>
      `↑${formatTokens(total.input)} ↓${formatTokens(total.output)} cache read ${formatTokens(total.cacheRead)} write ${formatTokens(total.cacheWrite)}  ${formatCost(total.cost.total)}  (${total.calls} call${total.calls === 1 ? "" : "s"})`;
    const lines = [`cost     ${line(usage)}`];
    for (const [model, total] of Object.entries(usage.byModel)) lines.push(`  ${model}  ${line(total)}`);
    host.store.notice("info", lines.join("\n"));
  },
};

/**
 * `/context`: what fills the context of the next model call, by category (system prompt, tools, each
 * compaction summary, branch summaries, messages, tool results), against the window and the compaction
 * threshold — the figures of the web demo's meter.
 */
export const contextCommand: SlashCommandSpec = {
  name: "context",
  description: "show what fills the context window, by category, and the compaction threshold",
  needsIdle: false,
  run(_argumentText, host) {
    const breakdown = sessionContextBreakdown(host.session());
    const width = Math.max(14, ...breakdown.categories.map((category) => category.label.length));
    const share = (tokens: number) => `${((tokens / breakdown.contextWindow) * 100).toFixed(1)}%`;
    const lines = [
      `context  ${formatTokens(breakdown.total)} of ${formatTokens(breakdown.contextWindow)} tokens (${breakdown.percent.toFixed(1)}%); compaction above ${formatTokens(breakdown.compactionThreshold)}`,
    ];
    for (const category of breakdown.categories) {
      lines.push(
        `  ${category.label.padEnd(width)}  ${formatTokens(category.tokens).padStart(7)}  ${share(category.tokens).padStart(6)}`,
      );
    }
    if (breakdown.total !== breakdown.estimated) {
      lines.push(
        `  (categories are estimates, ${formatTokens(breakdown.estimated)} in all; the total is the provider's last reported usage plus what came after)`,
      );
    }
    host.store.notice("info", lines.join("\n"));
  },
};
