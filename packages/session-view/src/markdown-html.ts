/**
 * Markdown to safe HTML for the HTML export, with `marked` (the parser the terminal renders with, so one
 * Markdown parser serves both): raw HTML in the text is escaped (shown, never parsed), links other than
 * `http:`, `https:`, `mailto:` and relative ones are not made links, Markdown images are left as text (the
 * page loads nothing), and links open with `rel="noopener noreferrer"`.
 */
import { Marked } from "marked";

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

/** Link schemes that stay links; any other scheme (`javascript:`, `data:`, `file:` …) is left as text. */
const SAFE_SCHEMES = new Set(["http", "https", "mailto"]);

function safeHref(href: string): boolean {
  // Control characters and whitespace are ignored by browsers inside a scheme (`java\tscript:`).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: those characters are what is removed
  const compact = href.replace(/[\u0000-\u0020]/g, "");
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(compact)?.[1];
  return scheme === undefined || SAFE_SCHEMES.has(scheme.toLowerCase());
}

let renderer: Marked | undefined;

function markdown(): Marked {
  renderer ??= new Marked({
    gfm: true,
    // A bare URL in the text stays text (only an explicit link is a link): no autolink literals.
    tokenizer: { url: () => undefined },
    renderer: {
      // Raw HTML in the text is shown, never parsed.
      html: (token) => escapeHtml(token.text),
      // The page loads nothing: an image stays its Markdown text.
      image: (token) => escapeHtml(token.raw),
      link(token) {
        if (!safeHref(token.href)) return escapeHtml(token.raw);
        const title = token.title ? ` title="${escapeHtml(token.title)}"` : "";
        const text = this.parser.parseInline(token.tokens);
        return `<a href="${escapeHtml(token.href)}"${title} rel="noopener noreferrer">${text}</a>`;
      },
    },
  });
  return renderer;
}

/**
 * A Markdown text as HTML (CommonMark with GFM tables and strikethrough, through `marked`, the parser the
 * terminal renders with).
 *
 * Contract: pure; never emits a raw HTML tag, event handler or script URL from the text; O(text).
 */
export function markdownHtml(text: string): string {
  return markdown().parse(text, { async: false });
}
