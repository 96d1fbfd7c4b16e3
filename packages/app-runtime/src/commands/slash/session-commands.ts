/**
 * The slash commands that move around sessions and their trees: /tree, /fork, /resume, /new, and those that
 * describe or mark the session: /session, /export, /label, /name.
 */
import type { SessionEntry, SessionSummary } from "@arbor/session-store";
import {
  contentText,
  errorText,
  formatCost,
  formatTokens,
  treeRows,
  withoutRetriedFailures,
} from "@arbor/session-view";
import { type CommandHost, CommandUsageError, type SlashCommandSpec } from "./command-types.js";

function shortId(id: string): string {
  return id.slice(0, 8);
}

/**
 * Moves the session to an entry, after asking whether to summarize the branch being left — "no" first, so
 * Enter moves without a model call; a summary only when chosen. `editText` goes into the editor once moved
 * (a prompt chosen in /tree, to edit and send again from its parent).
 */
function chooseSummary(host: CommandHost, entryId: string | null, editText?: string): void {
  const where = entryId === null ? "the start" : shortId(entryId);
  host.openPicker({
    title: `Move to ${where}: summarize the branch you leave?`,
    items: [
      { key: "plain", label: "No: move without a summary" },
      {
        key: "summarize",
        label: "Yes: summarize the branch being left (a model call; a branch_summary entry)",
      },
    ],
    onSelect: (key) => {
      void navigate(host, entryId, key === "summarize", editText);
    },
  });
}

async function navigate(
  host: CommandHost,
  entryId: string | null,
  summarize: boolean,
  editText: string | undefined,
): Promise<void> {
  const session = host.session();
  const where = entryId === null ? "the start" : shortId(entryId);
  try {
    const operation = host.runtime.navigate(entryId, { summarize });
    host.store.expectMove();
    host.store.refresh();
    const result = await operation;
    if (result.kind === "moved") {
      host.store.showMove(session, `moved to ${where}${result.summaryEntryId ? " (branch summarized)" : ""}`);
      if (editText !== undefined) {
        host.setEditorText(editText);
        host.store.notice(
          "info",
          "the prompt is back in the editor: edit it and press Enter to send it again",
        );
      }
    } else {
      host.store.cancelMove();
      host.store.notice("warning", result.kind === "aborted" ? "move aborted" : "move cancelled by a hook");
    }
  } catch (error) {
    host.store.cancelMove();
    host.store.notice("error", `cannot move: ${errorText(error)}`);
  } finally {
    host.store.refresh();
  }
}

async function fork(host: CommandHost, entryId: string): Promise<void> {
  const forked = await host.runtime.fork({ entryId, position: "at" });
  const from = forked.parentSession;
  host.showSession(`forked at ${shortId(entryId)} into session ${shortId(forked.sessionId)}`);
  host.store.notice(
    "success",
    `forked session ${shortId(from)} into ${shortId(forked.sessionId)} at entry ${shortId(entryId)}; you are in the fork now (/resume ${shortId(from)} goes back)`,
  );
}

/** The text of a user message entry, or undefined for any other entry. */
function userPromptOf(entry: SessionEntry | undefined): string | undefined {
  if (entry?.type !== "message") return undefined;
  const message = entry.message as { role?: string; content?: unknown };
  return message.role === "user" ? contentText(message.content) : undefined;
}

/** Opens the tree picker; retried failures are hidden unless `showAll` (the `h` key toggles). */
function openTree(host: CommandHost, showAll: boolean): void {
  const session = host.session();
  const tree = session.session.getTree();
  const pruned = showAll ? undefined : withoutRetriedFailures(tree);
  const { items, leafIndex } = treeRows(session.session, pruned?.roots ?? tree);
  if (items.length === 0) {
    host.store.notice("info", "the session has no entries yet");
    return;
  }
  const hidden = pruned?.hiddenFailures ?? 0;
  const toggle = showAll
    ? " · h hide retried failures"
    : hidden > 0
      ? ` · h show ${hidden} retried failure${hidden === 1 ? "" : "s"}`
      : "";
  host.openPicker({
    title: "Session tree — choose the entry to continue from (a prompt: edit and resend it)",
    items,
    initialIndex: leafIndex,
    hint: `↑↓ move · PgUp/PgDn · Enter choose · Esc cancel · • current leaf${toggle}`,
    keys: { h: () => openTree(host, !showAll) },
    onSelect: (entryId) => {
      if (entryId === session.state.leafId) {
        host.store.notice("info", "already there: that entry is the current leaf");
        return;
      }
      const entry = session.session.getEntry(entryId);
      const prompt = userPromptOf(entry);
      if (prompt === undefined) chooseSummary(host, entryId);
      else chooseSummary(host, entry?.parentId ?? null, prompt);
    },
  });
}

/**
 * `/tree`: pick any entry of the session tree, then move there (summarizing the branch left or not); a
 * prompt moves to its parent and comes back into the editor, so the next prompt replaces it.
 */
export const treeCommand: SlashCommandSpec = {
  name: "tree",
  description: "pick an entry of the session tree and continue from there (a prompt: edit and resend it)",
  needsIdle: true,
  run(_argumentText, host) {
    openTree(host, false);
  },
};

/** `/fork [entry]`: a new session holding the path up to an entry (picked, or the given id). */
export const forkCommand: SlashCommandSpec = {
  name: "fork",
  arguments: "[entry id]",
  description: "copy the path up to an entry into a new session and switch to it",
  needsIdle: true,
  async run(argumentText, host) {
    if (argumentText !== "") {
      await fork(host, argumentText);
      return;
    }
    const { items, leafIndex } = treeRows(host.session().session);
    if (items.length === 0) {
      host.store.notice("info", "the session has no entries to fork yet");
      return;
    }
    host.openPicker({
      title: "Fork — choose the last entry of the new session",
      items,
      initialIndex: leafIndex,
      onSelect: (entryId) => {
        fork(host, entryId).catch((error: unknown) =>
          host.store.notice("error", `cannot fork: ${errorText(error)}`),
        );
      },
    });
  },
};

/**
 * A session's row in the /resume picker: id, time, name (or first prompt), messages; a fork says whose
 * (`(fork of 1a2b3c4d "name")`), so it can be told from the session it was copied from.
 */
function sessionLabel(
  summary: SessionSummary,
  currentId: string,
  byId: ReadonlyMap<string, SessionSummary>,
): string {
  const name = summary.name ?? summary.firstMessage?.replace(/\s+/g, " ").trim() ?? "(no prompt yet)";
  const when = summary.updatedAt.replace("T", " ").slice(0, 16);
  const parent = summary.parentSession;
  const parentName = parent === undefined ? undefined : byId.get(parent)?.name;
  const fork =
    parent === undefined
      ? ""
      : `(fork of ${shortId(parent)}${parentName === undefined ? "" : ` "${parentName}"`}) `;
  return `${shortId(summary.id)}  ${when}  ${fork}${name}  · ${summary.messageCount} messages${summary.id === currentId ? " (current)" : ""}`;
}

async function open(host: CommandHost, reference: string): Promise<void> {
  const session = await host.runtime.openSession(reference);
  const title = `${shortId(session.id)}${session.state.name ? ` "${session.state.name}"` : ""}`;
  host.showSession(`resumed session ${title}`);
  host.store.notice(
    "success",
    `resumed session ${title}: ${session.session.entryCount} entries, ${session.state.messages.length} messages in context`,
  );
}

/** `/resume [id]`: continue another session of this directory (picked, or by id, prefix or path). */
export const resumeCommand: SlashCommandSpec = {
  name: "resume",
  arguments: "[id|path]",
  description: "continue another session (a picker of this directory's sessions without an argument)",
  needsIdle: true,
  async run(argumentText, host) {
    if (argumentText !== "") {
      await open(host, argumentText);
      return;
    }
    const currentId = host.session().id;
    // A session without a message (started and left without a prompt) has nothing to resume.
    const sessions = (await host.runtime.listSessions({ limit: 100 })).filter(
      (summary) => summary.messageCount > 0 || summary.id === currentId,
    );
    const byId = new Map(sessions.map((summary) => [summary.id, summary]));
    host.openPicker({
      title: "Resume a session",
      items: sessions.map((summary) => ({
        key: summary.id,
        label: sessionLabel(summary, currentId, byId),
        current: summary.id === currentId,
      })),
      filterable: true,
      emptyText: "no sessions in this directory",
      onSelect: (id) => {
        if (id === currentId) return;
        open(host, id).catch((error: unknown) =>
          host.store.notice("error", `cannot resume: ${errorText(error)}`),
        );
      },
    });
  },
};

/** `/new`: start a new session. */
export const newCommand: SlashCommandSpec = {
  name: "new",
  description: "start a new session (also /clear)",
  needsIdle: true,
  async run(_argumentText, host) {
    const session = await host.runtime.newSession();
    host.showSession(`new session ${shortId(session.id)}`);
    host.store.notice("success", `new session ${shortId(session.id)}`);
  },
};

/** `/session`: what the session is and holds. */
export const sessionCommand: SlashCommandSpec = {
  name: "session",
  description: "show the session's id, file, entries, tokens and context usage",
  needsIdle: false,
  run(_argumentText, host) {
    const session = host.session();
    const { runtime } = host;
    const footer = host.store.footer;
    const store = runtime.store as { pathOf?: (id: string) => string | undefined };
    const file = runtime.persistent
      ? (store.pathOf?.(session.id) ?? runtime.storeDescription ?? "(in the store)")
      : "not saved (--no-session)";
    const context = footer.context;
    const lines = [
      `session  ${session.id}${session.state.name ? `  "${session.state.name}"` : ""}`,
      `file     ${file}`,
      `entries  ${session.session.entryCount} (${session.state.messages.length} messages in context, leaf ${session.state.leafId ?? "none"})`,
      `tokens   ↑${formatTokens(footer.totals.input)} ↓${formatTokens(footer.totals.output)} (cache read ${formatTokens(footer.totals.cacheRead)})  ${formatCost(footer.totals.cost)}`,
      context === undefined
        ? "context  unknown"
        : `context  ${formatTokens(context.tokens)} of ${formatTokens(context.contextWindow)} tokens (${context.percent.toFixed(0)}%), compacts above ${formatTokens(context.compactionThreshold)}`,
      `model    ${footer.model}  thinking ${footer.thinkingLevel}`,
    ];
    host.store.notice("info", lines.join("\n"));
  },
};

const EXPORT_FORMATS = ["html", "md", "jsonl"] as const;
type ExportFormat = (typeof EXPORT_FORMATS)[number];

/**
 * Reads `/export` arguments: `[html|md|jsonl] [file]`; without a format, the file's extension (`.html`,
 * `.htm`, `.md`, `.markdown`, `.jsonl`) chooses it.
 *
 * Contract: throws a {@link CommandUsageError} listing the formats when the format is neither given nor
 * known from the file's extension (`/export pdf`, `/export notes.txt`): nothing is written then.
 */
export function exportArguments(argumentText: string): { format: ExportFormat; file: string | undefined } {
  const words = argumentText.split(/\s+/).filter((word) => word !== "");
  let format: ExportFormat | undefined;
  if (words[0] !== undefined && (EXPORT_FORMATS as readonly string[]).includes(words[0].toLowerCase())) {
    format = words.shift()!.toLowerCase() as ExportFormat;
  }
  const file = words.length > 0 ? words.join(" ") : undefined;
  if (format === undefined && file !== undefined) {
    const extension = /\.(html?|md|markdown|jsonl)$/i.exec(file)?.[1]?.toLowerCase();
    if (extension === undefined) {
      throw new CommandUsageError(
        `unknown export format "${file}": choose ${EXPORT_FORMATS.join(", ")} (e.g. /export md notes.md), or a file ending in .html, .md or .jsonl`,
      );
    }
    format = extension === "md" || extension === "markdown" ? "md" : extension === "jsonl" ? "jsonl" : "html";
  }
  return { format: format ?? "html", file };
}

/** `/export [html|md|jsonl] [file]`. */
export const exportCommand: SlashCommandSpec = {
  name: "export",
  arguments: "[html|md|jsonl] [file]",
  description: "write the session as a self-contained HTML page, Markdown or JSONL (default html)",
  needsIdle: false,
  async run(argumentText, host) {
    const { format, file } = exportArguments(argumentText);
    const path = await host.runtime.exportSession(format, file);
    host.store.notice("info", `exported the session (${format}) to ${path}`);
  },
};

/** `/label [text]`: labels the current leaf (no text: removes its label). */
export const labelCommand: SlashCommandSpec = {
  name: "label",
  arguments: "<text>",
  description: "label the current entry (shown in /tree); without text, remove its label",
  needsIdle: false,
  async run(argumentText, host) {
    const session = host.session();
    const leafId = session.state.leafId;
    if (leafId === null) {
      host.store.notice("warning", "nothing to label yet: the session has no entries");
      return;
    }
    await host.runtime.label(leafId, argumentText === "" ? null : argumentText);
    host.store.notice(
      "info",
      argumentText === ""
        ? `removed the label of ${shortId(leafId)}`
        : `labelled ${shortId(leafId)} "${argumentText}"`,
    );
  },
};

/** `/name <text>`: names the session. */
export const nameCommand: SlashCommandSpec = {
  name: "name",
  arguments: "<text>",
  description: "name the session (shown in the footer, /resume and arbor sessions list)",
  needsIdle: false,
  async run(argumentText, host) {
    if (argumentText === "") {
      const name = host.session().state.name;
      host.store.notice(
        "info",
        name === undefined ? "usage: /name <text>" : `the session is named "${name}"`,
      );
      return;
    }
    await host.session().setName(argumentText);
    host.store.refresh();
    host.store.notice("info", `named the session "${argumentText}"`);
  },
};
