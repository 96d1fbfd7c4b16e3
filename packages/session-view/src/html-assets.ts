/**
 * The inline style sheet and script of the HTML export. Both are constants: no session data is ever put
 * into them, so nothing a session holds can run as code. The script only shows and hides the entries that
 * the page already holds (a click on an entry shows the branch from the root to it).
 */

/** The page's style sheet (light and dark). */
export const HTML_STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #656d76; --border: #d0d7de;
  --panel: #f6f8fa; --user: #0969da; --assistant: #1a7f37; --tool: #8250df; --error: #cf222e;
  --summary: #9a6700; --select: #ddf4ff; --diff-add: #dafbe1; --diff-remove: #ffebe9; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --border: #30363d; --panel: #161b22;
    --user: #58a6ff; --assistant: #3fb950; --tool: #bc8cff; --error: #f85149; --summary: #d29922;
    --select: #1f3a5f; --diff-add: #12361f; --diff-remove: #4a1d1f; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
header.page { padding: 12px 20px; border-bottom: 1px solid var(--border); }
header.page h1 { margin: 0 0 8px; font-size: 18px; overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 0; font-size: 13px; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; overflow-wrap: anywhere; }
.hint { color: var(--muted); font-size: 12px; margin: 8px 0 0; }
.layout { display: grid; grid-template-columns: minmax(280px, 40%) minmax(0, 1fr); align-items: start; }
nav.tree { position: sticky; top: 0; max-height: 100vh; overflow: auto; padding: 8px 6px 40px;
  border-right: 1px solid var(--border); font: 12px/1.5 ui-monospace, SFMono-Regular, Menlo, monospace; }
nav ul { list-style: none; margin: 0; padding: 0; }
nav li li.branch, nav li.branch { margin-left: 6px; }
nav li.branch > details > ul { margin-left: 6px; padding-left: 8px; border-left: 1px solid var(--border); }
nav summary { cursor: pointer; }
nav summary > a { display: inline-block; max-width: calc(100% - 16px); vertical-align: bottom; }
nav li.folded > details > summary { color: var(--muted); font-style: italic; }
nav a { display: block; padding: 0 4px; border-radius: 3px; color: inherit; text-decoration: none;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
nav a:hover { background: var(--panel); }
nav a.on-path { font-weight: 600; }
nav a.current { background: var(--select); }
nav .id { color: var(--muted); }
.kind-user .who { color: var(--user); }
.kind-assistant .who { color: var(--assistant); }
.kind-toolResult .who, .kind-bash .who { color: var(--tool); }
.kind-compaction .who, .kind-branchSummary .who { color: var(--summary); }
.kind-unreadable .who { color: var(--error); }
.badge { display: inline-block; margin-left: 4px; padding: 0 6px; border-radius: 9px; background: var(--summary);
  color: #ffffff; font-size: 11px; font-weight: 600; }
.leaf-mark { margin-left: 4px; color: var(--assistant); font-weight: 700; }
main { padding: 12px 20px 50vh; min-width: 0; }
main h2 { font-size: 15px; margin: 0 0 10px; }
article.entry { margin: 0 0 10px; padding: 8px 12px; border: 1px solid var(--border); border-left: 4px solid var(--muted);
  border-radius: 6px; }
article.entry.line { padding: 2px 12px; }
article.kind-user { border-left-color: var(--user); }
article.kind-assistant { border-left-color: var(--assistant); }
article.kind-toolResult, article.kind-bash { border-left-color: var(--tool); }
article.kind-compaction, article.kind-branchSummary { border-left-color: var(--summary); background: var(--panel); }
article.kind-unreadable { border-left-color: var(--error); }
article.selected { box-shadow: 0 0 0 2px var(--user); }
article header { color: var(--muted); font-size: 12px; }
article header .who { font-weight: 700; text-transform: uppercase; letter-spacing: 0.03em; }
article header a { color: inherit; }
.body > * { margin: 6px 0 0; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; }
.markdown { overflow-wrap: anywhere; }
.markdown > :first-child { margin-top: 0; }
.markdown > :last-child { margin-bottom: 0; }
.markdown p, .markdown ul, .markdown ol, .markdown blockquote, .markdown table { margin: 6px 0; }
.markdown h1, .markdown h2, .markdown h3, .markdown h4 { margin: 10px 0 4px; font-size: 15px; }
.markdown blockquote { padding-left: 10px; border-left: 3px solid var(--border); color: var(--muted); }
.markdown code { padding: 0 3px; background: var(--panel); border-radius: 3px; font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
.markdown pre code { padding: 0; background: none; }
.markdown table { border-collapse: collapse; }
.markdown th, .markdown td { padding: 2px 8px; border: 1px solid var(--border); }
pre { margin: 6px 0 0; padding: 6px 8px; max-height: 30em; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere;
  background: var(--panel); border-radius: 4px; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
pre.error { border-left: 3px solid var(--error); }
.tool-name { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; color: var(--tool); font-weight: 600; }
details.thinking > summary { color: var(--muted); cursor: pointer; font-style: italic; }
.note { color: var(--muted); font-style: italic; }
.diff-block { margin: 6px 0 0; border: 1px solid var(--border); border-radius: 4px; overflow: auto; max-height: 40em; }
.diff-head { padding: 3px 8px; background: var(--panel); font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
.diff-counts { color: var(--muted); }
table.diff { border-collapse: collapse; width: 100%; font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
table.diff td { padding: 0 6px; white-space: pre-wrap; overflow-wrap: anywhere; vertical-align: top; }
table.diff td.ln { width: 1%; color: var(--muted); text-align: right; white-space: nowrap; user-select: none; }
table.diff .sign { display: inline-block; width: 1.5ch; user-select: none; }
table.diff tr.add { background: var(--diff-add); }
table.diff tr.remove { background: var(--diff-remove); }
table.diff tr.gap td { color: var(--muted); background: var(--panel); }
img { max-width: 100%; border: 1px solid var(--border); border-radius: 4px; }
@media (max-width: 760px) { .layout { grid-template-columns: 1fr; } nav.tree { position: static; max-height: 40vh; } }
`;

/**
 * The page's script: a click on any `a[data-id]` shows the branch from the root to that entry (walking the
 * articles' `data-parent` links, O(depth); tree links are indexed once), marks it in the tree, and opens the folded parts of the tree
 * that hide it. `#e-<id>` in the address selects an entry on load.
 */
export const HTML_SCRIPT = `
"use strict";
(() => {
  const main = document.querySelector("main");
  const title = document.getElementById("branch-title");
  const total = main.querySelectorAll("article.entry").length;
  let shown = Array.from(main.querySelectorAll("article.entry:not([hidden])"));
  let selected = main.querySelector("article.selected");
  let marked = Array.from(document.querySelectorAll("nav a.on-path, nav a.current"));
  const links = new Map();
  for (const link of document.querySelectorAll("nav a[data-id]")) links.set(link.getAttribute("data-id"), link);
  const article = (id) => document.getElementById("e-" + id);
  function show(id, scroll) {
    const path = [];
    for (let node = article(id); node !== null && path.length <= total; ) {
      path.push(node);
      const parent = node.getAttribute("data-parent");
      node = parent === null ? null : article(parent);
    }
    if (path.length === 0) return;
    for (const node of shown) node.hidden = true;
    path.reverse();
    for (const node of path) node.hidden = false;
    shown = path;
    if (selected !== null) selected.classList.remove("selected");
    selected = path[path.length - 1];
    selected.classList.add("selected");
    for (const link of marked) link.classList.remove("current", "on-path");
    marked = [];
    for (const node of path) {
      const link = links.get(node.id.slice(2));
      if (link === undefined) continue;
      link.classList.add(node === selected ? "current" : "on-path");
      marked.push(link);
    }
    const current = marked[marked.length - 1];
    for (let folded = current ? current.closest("details") : null; folded; folded = folded.parentElement.closest("details")) {
      folded.open = true;
    }
    title.textContent = "Branch to " + id + " (" + path.length + " entries)";
    if (scroll) selected.scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest("a[data-id]") : null;
    if (link === null) return;
    event.preventDefault();
    const id = link.getAttribute("data-id");
    show(id, true);
    history.replaceState(null, "", "#e-" + encodeURIComponent(id));
  });
  const hash = decodeURIComponent(location.hash.slice(1));
  if (hash.startsWith("e-")) show(hash.slice(2), true);
})();
`;

/**
 * The Content-Security-Policy source of {@link HTML_SCRIPT} (`sha256-` and its base64 SHA-256): the page
 * allows this one script and no other inline script or event handler. A test checks that it matches.
 */
export const HTML_SCRIPT_HASH = "sha256-UEmEWDO/aGLbslBlzgOwgNhk6iXToU5VGUnINe4Wq6o=";
