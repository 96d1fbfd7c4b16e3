/**
 * Markdown to safe HTML for the HTML export, with markdown-it: raw HTML in the text is escaped (shown, never
 * parsed), links whose scheme could run code (`javascript:`, `vbscript:`, `file:`, most `data:`) are not
 * made links, Markdown images are left as text (the page loads nothing), and links open with
 * `rel="noopener noreferrer"`.
 */
import createMarkdownIt, { type MarkdownIt } from "markdown-it";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/**
 * Text made safe for HTML content and quoted attribute values.
 *
 * Contract: pure; escapes `& < > " '`.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character]!);
}

let renderer: MarkdownIt | undefined;

function markdownIt(): MarkdownIt {
  if (renderer !== undefined) return renderer;
  const md = new createMarkdownIt("default", { html: false, linkify: false, typographer: false });
  md.disable("image");
  md.renderer.rules.link_open = (tokens, index, options, _env, self) => {
    const token = tokens[index]!;
    token.attrSet("rel", "noopener noreferrer");
    return self.renderToken(tokens, index, options);
  };
  renderer = md;
  return md;
}

/**
 * A Markdown text as HTML (CommonMark with tables and strikethrough).
 *
 * Contract: pure; never emits a raw HTML tag, event handler or script URL from the text; O(text).
 */
export function markdownHtml(text: string): string {
  return markdownIt().render(text);
}
