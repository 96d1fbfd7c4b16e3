/**
 * A session as one self-contained HTML page (`arbor sessions export --format html`): the whole tree as a
 * collapsible outline (branches in `<details>`, long plain spans folded), and every entry as an article;
 * the current branch is shown, and a click on any entry shows the branch from the root to it (a small
 * inline script). Labels, compactions, branch summaries and the leaf are marked.
 *
 * Safe by construction: every piece of session text goes through {@link escapeHtml}; no session data is put
 * into the script or the style sheet; images are inlined only as `data:` URLs of raster types with base64
 * bodies; a Content-Security-Policy forbids every network request. The page loads nothing.
 */
import type { Session, SessionTreeNode } from "@arbor/session-store";
import { diffCounts, diffRows } from "./diff-rows.js";
import { type EntryPart, type EntryView, previewView, viewEntry } from "./entry-view.js";
import { countOf, fieldText, formatCount } from "./format.js";
import { HTML_SCRIPT, HTML_SCRIPT_HASH, HTML_STYLE } from "./html-assets.js";
import { escapeHtml, markdownHtml } from "./markdown-html.js";
import { toolCallFinder } from "./tool-call-finder.js";
import { safeJson } from "./tool-call-line.js";
import type { ToolDiff } from "./tool-diff.js";
import { type FoldOptions, runItems, treeRuns } from "./tree-walk.js";

/** Options of {@link exportHtml}. */
export interface HtmlExportOptions {
  /** Where the session lives (shown in the facts). */
  location?: string;
}

/**
 * No network, no plug-ins: the inline style sheet, only the page's own script (by its hash, so no other
 * inline script or event handler can run), images only from `data:` URLs.
 */
const CONTENT_SECURITY_POLICY = `default-src 'none'; style-src 'unsafe-inline'; script-src '${HTML_SCRIPT_HASH}'; img-src data:; base-uri 'none'; form-action 'none'`;

/** Image types inlined as `<img>` (never SVG, which can hold script). */
const INLINE_IMAGE_TYPES = /^image\/(png|jpeg|gif|webp|bmp)$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function partHtml(part: EntryPart, markdown: boolean): string {
  switch (part.kind) {
    case "text":
      return markdown
        ? `<div class="markdown">${markdownHtml(part.text)}</div>`
        : `<div class="text">${escapeHtml(part.text)}</div>`;
    case "thinking":
      return part.redacted
        ? `<div class="note">Thinking (redacted)</div>`
        : `<details class="thinking"><summary>Thinking</summary><div class="text">${escapeHtml(part.text)}</div></details>`;
    case "toolCall":
      return `<div class="tool-call"><div class="tool-name">→ ${escapeHtml(part.name)}</div><pre>${escapeHtml(
        safeJson(part.arguments, 2),
      )}</pre></div>`;
    case "image":
      if (INLINE_IMAGE_TYPES.test(part.mimeType) && BASE64.test(part.data)) {
        return `<img alt="${escapeHtml(part.mimeType)} image" src="data:${part.mimeType};base64,${part.data}">`;
      }
      return `<div class="note">[image: ${escapeHtml(part.mimeType)}]</div>`;
    case "output":
      return `<pre class="output${part.isError ? " error" : ""}">${escapeHtml(part.text === "" ? "(no output)" : part.text)}</pre>`;
    case "summary":
      return `<div class="text summary">${escapeHtml(part.text)}</div>`;
    case "diff":
      return diffHtml(part.diff);
    case "data":
      return `<pre class="data">${escapeHtml(safeJson(part.value, 2))}</pre>`;
  }
}

/**
 * A file change as a table: old and new line numbers, then the line, added lines green, removed ones red
 * (`tr.add`, `tr.remove`, `tr.context`, `tr.gap` between hunks).
 */
function diffHtml(diff: ToolDiff): string {
  const { rows, more } = diffRows(diff);
  const body = rows
    .map((row) => {
      if (row.kind === "gap") return '<tr class="gap"><td></td><td></td><td>…</td></tr>';
      const oldNumber = row.kind === "add" ? "" : String(row.number ?? "");
      const newNumber = row.kind === "remove" ? "" : String(row.number ?? "");
      return `<tr class="${row.kind}"><td class="ln">${row.kind === "context" ? "" : oldNumber}</td><td class="ln">${newNumber}</td><td><span class="sign">${row.sign}</span>${escapeHtml(row.text)}</td></tr>`;
    })
    .join("");
  const cut = more > 0 ? `<div class="note">… ${countOf(more, "more line")}</div>` : "";
  return `<div class="diff-block"><div class="diff-head">${escapeHtml(diff.path)} <span class="diff-counts">${escapeHtml(
    diffCounts(diff),
  )}</span></div><table class="diff">${body}</table>${cut}</div>`;
}

/** The id link every entry reference uses (the script shows that entry's branch on click). */
function idLink(id: string): string {
  return `<a class="id" href="#e-${escapeHtml(id)}" data-id="${escapeHtml(id)}">${escapeHtml(id)}</a>`;
}

function marks(label: string | undefined, leaf: boolean): string {
  const badge = label === undefined ? "" : `<span class="badge">${escapeHtml(label)}</span>`;
  return leaf ? `${badge}<span class="leaf-mark">← leaf</span>` : badge;
}

/** One entry as an `<article>` (hidden unless on the shown branch). */
function articleHtml(view: EntryView, label: string | undefined, leaf: boolean, visible: boolean): string {
  const parent = view.parentId === null ? "" : ` data-parent="${escapeHtml(view.parentId)}"`;
  const classes = `entry kind-${view.kind}${view.parts.length === 0 ? " line" : ""}${leaf ? " selected" : ""}`;
  const facts = view.meta.map((fact) => ` · ${escapeHtml(fact)}`).join("");
  const time = view.timestamp === undefined ? "" : ` · <time>${escapeHtml(view.timestamp)}</time>`;
  const header = `<header><span class="who">${escapeHtml(view.label)}</span> ${idLink(view.id)}${facts}${marks(label, leaf)}${time}</header>`;
  // Replies are Markdown; what people and tools wrote is shown as written.
  const markdown = view.kind === "assistant";
  const parts = view.parts.map((part) => partHtml(part, markdown)).join("");
  const body = view.parts.length === 0 ? "" : `<div class="body">${parts}</div>`;
  return `<article class="${classes}" id="e-${escapeHtml(view.id)}"${parent}${visible ? "" : " hidden"}>${header}${body}</article>`;
}

/** One line of the tree outline. */
function treeLink(node: SessionTreeNode, view: EntryView, leafId: string | null, onPath: boolean): string {
  const state = node.id === leafId ? " current" : onPath ? " on-path" : "";
  const mark =
    node.type === "compaction"
      ? "◆ "
      : node.type === "branch_summary"
        ? "◇ "
        : node.type === "prune"
          ? "✂ "
          : "";
  return `<a class="kind-${view.kind}${state}" href="#e-${escapeHtml(node.id)}" data-id="${escapeHtml(node.id)}"><span class="id">${escapeHtml(
    node.id,
  )}</span> <span class="who">${mark}${escapeHtml(previewView(view, 90))}</span>${marks(node.label, node.id === leafId)}</a>`;
}

/** The facts at the top of the page. */
function factsHtml(
  session: Session,
  counts: { entries: number; messages: number; leaves: number },
  location?: string,
): string {
  const rows: [string, string][] = [
    ["Session", fieldText(session.id)],
    ["Directory", fieldText(session.cwd)],
    ["Created", fieldText(session.header.timestamp)],
  ];
  if (session.header.parentSession !== undefined)
    rows.push(["Forked from", fieldText(session.header.parentSession)]);
  if (location !== undefined) rows.push(["File", location]);
  rows.push([
    "Entries",
    `${formatCount(counts.entries)} (${countOf(counts.messages, "message")}), ${formatCount(counts.leaves)} branch tips, leaf ${session.leafId ?? "(none)"}`,
  ]);
  for (const warning of session.warnings) rows.push(["Warning", warning]);
  return `<dl class="facts">${rows.map(([key, value]) => `<dt>${key}</dt><dd>${escapeHtml(value)}</dd>`).join("")}</dl>`;
}

/**
 * The page: facts, the tree outline, and every entry (the current branch visible).
 *
 * Contract: O(entries) time; parses every entry once (each is shown); never recurses (a 60k-entry chain is
 * fine); the result references no URL but `data:` images and its own `#e-<id>` anchors.
 */
export function exportHtml(session: Session, options: HtmlExportOptions = {}): string {
  const roots = session.getTree();
  const leafId = session.leafId;
  const onPath = new Set(session.getPath().map((ref) => ref.id));
  const views = new Map<string, EntryView>();
  const viewOf = (node: SessionTreeNode): EntryView => {
    let view = views.get(node.id);
    if (view === undefined) {
      view = viewEntry(node.entry(), node, toolCallFinder(session, node.parentId));
      views.set(node.id, view);
    }
    return view;
  };
  const fold: FoldOptions = {
    head: 6,
    tail: 6,
    minimum: 4,
    // The current branch may be folded too (a long chain would otherwise list every entry); the script
    // opens the folded part that holds the entry it shows.
    keep: (node) =>
      node.label !== undefined ||
      node.type === "compaction" ||
      node.type === "branch_summary" ||
      node.type === "prune" ||
      node.id === leafId,
  };

  const counts = { entries: 0, messages: 0, leaves: 0 };
  const tree: string[] = ['<ul class="run">'];
  const articles: string[] = [];
  let openDepth = 0;
  for (const run of treeRuns(roots)) {
    if (run.branch) {
      for (; openDepth >= run.depth; openDepth--) tree.push("</ul></details></li>");
    }
    run.nodes.forEach((node, index) => {
      counts.entries++;
      if (node.type === "message") counts.messages++;
      if (node.children.length === 0) counts.leaves++;
      const view = viewOf(node);
      articles.push(articleHtml(view, node.label, node.id === leafId, onPath.has(node.id)));
      if (index === 0 && run.branch) {
        tree.push(
          `<li class="branch"><details open><summary>${treeLink(node, view, leafId, onPath.has(node.id))}</summary><ul class="run">`,
        );
      }
    });
    if (run.branch) openDepth = run.depth;
    for (const item of runItems(run, fold)) {
      if (item.kind === "entry") {
        if (item.index === 0 && run.branch) continue; // Drawn as the branch's summary line.
        tree.push(`<li>${treeLink(item.node, viewOf(item.node), leafId, onPath.has(item.node.id))}</li>`);
        continue;
      }
      const folded = item.nodes
        .map((node) => `<li>${treeLink(node, viewOf(node), leafId, onPath.has(node.id))}</li>`)
        .join("");
      tree.push(
        `<li class="folded"><details><summary>… ${countOf(item.nodes.length, "entry", "entries")} (${countOf(item.messages, "message")})</summary><ul class="run">${folded}</ul></details></li>`,
      );
    }
  }
  for (; openDepth > 0; openDepth--) tree.push("</ul></details></li>");
  tree.push("</ul>");

  const title = session.name ?? `Session ${fieldText(session.id)}`;
  const branchTitle =
    leafId === null
      ? "No entries"
      : `Current branch: ${countOf(onPath.size, "entry", "entries")} to the leaf ${leafId}`;
  return [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="generator" content="arbor sessions export">',
    `<title>${escapeHtml(title)} · Arbor session</title>`,
    `<style>${HTML_STYLE}</style>`,
    "</head>",
    "<body>",
    `<header class="page"><h1>${escapeHtml(title)}</h1>${factsHtml(session, counts, options.location)}`,
    '<p class="hint">The tree is on the left (◆ compaction, ◇ branch summary); click an entry to show the branch that leads to it.</p></header>',
    '<div class="layout">',
    `<nav class="tree" aria-label="Session tree">${tree.join("")}</nav>`,
    `<main><h2 id="branch-title">${escapeHtml(branchTitle)}</h2>${articles.join("\n")}</main>`,
    "</div>",
    `<script>${HTML_SCRIPT}</script>`,
    "</body>",
    "</html>",
    "",
  ].join("\n");
}
