import { createHash } from "node:crypto";
import { MemorySessionStore, Session } from "@arbor/session-store";
import { describe, expect, test } from "vitest";
import { inlineCode } from "../src/export-markdown.js";
import { HTML_SCRIPT, HTML_SCRIPT_HASH } from "../src/html-assets.js";
import { escapeHtml, exportHtml, exportMarkdown, fenced, markdownHtml } from "../src/index.js";
import { assistantMessage } from "./helpers.js";

/** A session with one user message and one reply of `reply`. */
async function sessionWith(user: string, reply: string): Promise<Session> {
  const session = await Session.create(new MemorySessionStore(), { cwd: "/project" });
  session.appendMessage({ role: "user", content: user, timestamp: 1 });
  session.appendMessage(assistantMessage(reply));
  await session.flush();
  return session;
}

/** The article of the last entry (the reply). */
function replyArticle(html: string): string {
  const articles = html.match(/<article [\s\S]*?<\/article>/g) ?? [];
  return articles.at(-1) ?? "";
}

describe("export helpers", () => {
  test("fences and quotes code that itself holds backticks", () => {
    expect(fenced("a ``` b", "text")).toBe("````text\na ``` b\n````");
    expect(fenced("plain")).toBe("```\nplain\n```");
    expect(inlineCode("a`b")).toBe("``a`b``");
    expect(inlineCode("`x")).toBe("`` `x ``");
  });

  test("escapes every HTML-significant character", () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
  });

  test("ships a script that parses, pinned by its hash in the page's policy", async () => {
    expect(() => new Function(HTML_SCRIPT)).not.toThrow();
    const digest = createHash("sha256").update(HTML_SCRIPT, "utf8").digest("base64");
    expect(HTML_SCRIPT_HASH).toBe(`sha256-${digest}`);
    const html = exportHtml(await sessionWith("hi", "hello"));
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? "";
    expect(policy).toContain(`script-src '${HTML_SCRIPT_HASH}'`);
    expect(policy).not.toContain("script-src 'unsafe-inline'");
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("img-src data:");
    // The only script is the page's own, exactly as hashed.
    expect(html.match(/<script>([\s\S]*?)<\/script>/g)).toEqual([`<script>${HTML_SCRIPT}</script>`]);
  });
});

describe("the HTML export renders replies as Markdown", () => {
  test("emphasis, lists, code and tables become HTML, not raw asterisks", async () => {
    const reply = [
      "The fix is **small** and *safe*:",
      "",
      "- edit `src/a.ts`",
      "- run the tests",
      "",
      "```ts",
      "const x = 1 < 2;",
      "```",
      "",
      "| file | lines |",
      "| --- | ---: |",
      "| a.ts | 12 |",
    ].join("\n");
    const html = exportHtml(await sessionWith("fix it", reply));
    const article = replyArticle(html);
    expect(article).toContain('<div class="markdown">');
    expect(article).toContain("<strong>small</strong>");
    expect(article).toContain("<em>safe</em>");
    expect(article).toContain("<li>edit <code>src/a.ts</code></li>");
    expect(article).toContain('<pre><code class="language-ts">const x = 1 &lt; 2;\n</code></pre>');
    expect(article).toContain("<th>file</th>");
    expect(article).not.toContain("**small**");
  });

  test("the user's own text is shown as written", async () => {
    const html = exportHtml(await sessionWith("please **do not** format me", "ok"));
    expect(html).toContain('<div class="text">please **do not** format me</div>');
  });

  test("raw HTML and script links in model text are neutralized (XSS-safe)", async () => {
    const reply = [
      'Look: <script>alert("pwned")</script> and <img src=x onerror=alert(1)>',
      "",
      "[click me](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=) [ok](https://example.com/a)",
      "",
      "![tracker](https://evil.example/pixel.png)",
      "",
      '<a href="javascript:alert(2)" onclick="alert(3)">raw</a>',
    ].join("\n");
    const html = exportHtml(await sessionWith("hi", reply));
    const article = replyArticle(html);
    expect(article).toContain('<div class="markdown">');
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img src=x");
    expect(html).not.toMatch(/href="\s*javascript:/i);
    expect(html).not.toMatch(/href="\s*data:/i);
    expect(html).not.toMatch(/<a [^>]*onclick/i);
    expect(article).toContain('&lt;script&gt;alert("pwned")&lt;/script&gt;');
    expect(article).toContain("[click me](javascript:alert(1))");
    // A plain web link stays a link, without the opener; a Markdown image loads nothing.
    expect(article).toContain('<a href="https://example.com/a" rel="noopener noreferrer">ok</a>');
    expect(html).not.toMatch(/<img [^>]*src="https?:/i);
    expect(html.match(/<script/g)).toHaveLength(1);
  });

  test("markdownHtml never emits a tag from the text", () => {
    const hostile = ["<iframe src=x>", "<style>*{}</style>", "<svg onload=alert(1)>", "<!-- c -->"];
    for (const text of hostile) expect(markdownHtml(text)).not.toMatch(/<(iframe|style|svg|!--)/i);
  });

  test("the Markdown export copies reply text as written", async () => {
    const markdown = exportMarkdown(await sessionWith("hi", "**bold** reply"));
    expect(markdown).toContain("## Assistant");
    expect(markdown).toContain("**bold** reply");
  });
});
