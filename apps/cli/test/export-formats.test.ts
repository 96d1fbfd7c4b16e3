import { readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { MemorySessionStore, Session } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { exportHtml, exportMarkdown } from "@arbor/session-view";
import { describe, expect, it } from "vitest";
import {
  assistantEntry,
  FIXTURE_CWD,
  fixtureLines,
  fixturePath,
  importFixture,
  runSessions,
  sessionHeader,
  temporaryDirectory,
  userEntry,
  writeLargeSession,
  writeSessionFile,
} from "./sessions-helpers.js";

const VOID_ELEMENTS = new Set(["meta", "img", "br", "hr", "input", "link"]);

/** Checks that every opened element is closed in order (the page's structure is well formed). */
function assertBalanced(html: string): void {
  const body = html.replace(/<script>[\s\S]*?<\/script>/g, "").replace(/<style>[\s\S]*?<\/style>/g, "");
  const stack: string[] = [];
  const mismatches: string[] = [];
  for (const match of body.matchAll(/<(\/?)([a-zA-Z][a-zA-Z0-9]*)[^>]*>/g)) {
    const [, closing, name] = match;
    const tag = name!.toLowerCase();
    if (VOID_ELEMENTS.has(tag)) continue;
    if (closing === "") stack.push(tag);
    else {
      const open = stack.pop();
      if (open !== tag) mismatches.push(`</${tag}> closes <${open}> at ${match.index}`);
    }
  }
  expect(mismatches).toEqual([]);
  expect(stack).toEqual([]);
}

/** A session whose messages try to break out of the page. */
function hostileSession(home: string): string {
  const header = sessionHeader("hostile-session");
  writeSessionFile(home, header, [
    userEntry("aaaa0001", null, 'Look: <script>alert("pwned")</script> & <img src=x onerror=alert(1)>'),
    assistantEntry("aaaa0002", "aaaa0001", "Fetching https://evil.example/x.js", {
      toolCalls: [{ id: "call1", name: "fetch", arguments: { url: "https://evil.example/<b>" } }],
    }),
    {
      type: "label",
      id: "aaaa0003",
      parentId: "aaaa0002",
      timestamp: "2026-01-02T03:04:06.000Z",
      targetId: "aaaa0002",
      label: '"><script>alert(2)</script>',
    },
    {
      type: "message",
      id: "aaaa0004",
      parentId: "aaaa0003",
      timestamp: "2026-01-02T03:04:07.000Z",
      message: {
        role: "user",
        content: [
          { type: "image", mimeType: "image/svg+xml", data: "PHN2Zz48L3N2Zz4=" },
          { type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
        ],
        timestamp: 1,
      },
    },
  ]);
  return header.id;
}

describe("arbor sessions export --format html", () => {
  it("writes a self-contained page of the whole tree, current branch shown", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const run = await runSessions(["export", id, "--format", "html"], { home });
    expect(run.exitCode).toBeUndefined();
    const html = run.stdout;
    expect(html.startsWith("<!doctype html>")).toBe(true);
    assertBalanced(html);
    expect(html).toContain("Content-Security-Policy");
    expect(html).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html.match(/<style/g)).toHaveLength(1);
    // Every entry is an article; the abandoned branch is hidden, the current one shown.
    for (const line of fixtureLines("branch").slice(1)) expect(html).toContain(`id="e-${line.id}"`);
    expect(html).toMatch(/<article class="entry kind-user" id="e-14c6c82a" data-parent="bbd4e133" hidden>/);
    expect(html).toMatch(/<article class="entry kind-user" id="e-4af61d01" data-parent="cd1d599a">/);
    expect(html).toMatch(
      /<article class="entry kind-assistant selected" id="e-46a34590" data-parent="9e27f2bb">/,
    );
    // The tree: two branches under the branch point, the label, the summary marked, the leaf.
    expect(html.match(/<li class="branch"><details open>/g)).toHaveLength(2);
    expect(html).toContain('<span class="badge">branch-point</span>');
    expect(html).toContain("◇ branch summary (from bbd4e133)");
    expect(html).toContain('<span class="leaf-mark">← leaf</span>');
    expect(html).toContain("Current branch: 12 entries to the leaf 46a34590");
  });

  it("escapes everything a session holds (XSS-safe) and inlines only raster data images", async () => {
    const home = temporaryDirectory();
    const id = hostileSession(home);
    const run = await runSessions(["export", id, "--format", "html"], { home });
    const html = run.stdout;
    assertBalanced(html);
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<img src=x");
    expect(html).not.toContain('"><script>');
    expect(html).toContain("&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).toContain("&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;");
    expect(html).not.toMatch(/(?:src|href)\s*=\s*["']?(?:https?:)?\/\//i);
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain('src="data:image/png;base64,iVBORw0KGgo="');
    expect(html).not.toContain("data:image/svg+xml");
    expect(html).toContain("[image: image/svg+xml]");
  });

  it("handles a 5,000-entry session without recursion and folds its long runs", async () => {
    const home = temporaryDirectory();
    const large = writeLargeSession(home, 5_000);
    const store = new JsonlSessionStore({ home, readOnly: true });
    const session = await Session.open(store, large.id);
    const html = exportHtml(session);
    await store.close();
    assertBalanced(html);
    expect(html.match(/<article /g)).toHaveLength(large.entries);
    expect(html).toMatch(/<li class="folded"><details><summary>… [\d,]+ entries/);
    expect(html).toContain(`id="e-${large.leafId}"`);
  });
});

describe("arbor sessions export --format md", () => {
  it("writes the current branch with tool calls and results in fenced blocks", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("tools", home);
    const run = await runSessions(["export", id, "--format", "md"], { home });
    const markdown = run.stdout;
    expect(markdown).toMatch(/^# Session 01a22c6c-ad1c-71b0-ab31-aa05f9e29229\n/);
    expect(markdown).toContain("| Directory | `/home/user/project` |");
    expect(markdown).toContain("## User · `d7c31364`");
    expect(markdown).toContain("## Assistant · `61987896` · mock-openai/mock-gpt · toolUse · 1,578 tokens");
    expect(markdown).toContain('**Tool call** `write`\n\n```json\n{\n  "path": "hello.txt",');
    expect(markdown).toContain("## Tool result · read · `4d82e6e7`\n\n```text\nhello from pi\n```");
    expect(markdown).toContain("*model · mock-openai/mock-gpt (`b0071d35`)*");
  });

  it("quotes summaries and exports another branch with --leaf", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const current = await runSessions(["export", id, "--format", "md"], { home });
    expect(current.stdout).toContain("## Branch summary · `5b4acce3` · from bbd4e133 · label `branch-point`");
    expect(current.stdout).toContain(
      "> The user explored a different conversation branch before returning here.",
    );
    expect(current.stdout).not.toContain("Branch A");
    const other = await runSessions(["export", id, "--format", "md", "--leaf", "976cce3b"], { home });
    expect(other.stdout).toContain("Branch A: read the notes.");
    expect(other.stdout).not.toContain("Branch B");

    const store = new MemorySessionStore();
    const session = await Session.create(store, { cwd: "/p" });
    session.appendMessage({ role: "user", content: "run ```rm``` now", timestamp: 1 });
    expect(exportMarkdown(session)).toContain("run ```rm``` now");
  });
});

describe("arbor sessions export --format jsonl", () => {
  it("writes the header and every entry, without the store's batch framing, and re-imports equal", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const run = await runSessions(["export", id, "--format", "jsonl"], { home });
    expect(run.stdout).not.toContain('"arbor":"batch"');
    expect(run.stdout).not.toContain("\t");
    const lines = run.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as unknown);
    expect(lines).toEqual(fixtureLines("branch"));

    const file = join(temporaryDirectory(), "exported.jsonl");
    const other = temporaryDirectory();
    const written = await runSessions(["export", id, "-o", file], { home });
    expect(written.stdout).toContain(`Exported session ${id} (16 entries) as jsonl to ${file}`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, "utf8")).toBe(run.stdout);
    const imported = await runSessions(["import", file], { home: other });
    expect(imported.stdout).toContain("no warnings");
    const again = await runSessions(["export", id, "--format", "jsonl"], { home: other });
    expect(again.stdout).toBe(run.stdout);
  });

  it("picks the format from -o's extension and asks for one otherwise", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("plain", home);
    const directory = temporaryDirectory();
    const html = await runSessions(["export", id, "-o", join(directory, "chat.html")], { home });
    expect(html.exitCode).toBeUndefined();
    expect(readFileSync(join(directory, "chat.html"), "utf8")).toContain("<!doctype html>");
    const markdown = await runSessions(["export", id, "-o", join(directory, "chat.md")], { home });
    expect(markdown.exitCode).toBeUndefined();
    expect(readFileSync(join(directory, "chat.md"), "utf8")).toContain("## User");

    const unknown = await runSessions(["export", id, "-o", join(directory, "chat.txt")], { home });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain("Choose a format: --format html, md or jsonl");
    const bad = await runSessions(["export", id, "--format", "pdf"], { home });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("Allowed choices are html, md, jsonl");
    const leafWithHtml = await runSessions(["export", id, "--format", "html", "--leaf", "cb754f00"], {
      home,
    });
    expect(leafWithHtml.stderr).toContain("--leaf applies to --format md only");
  });

  it("exports a file outside the store as it would be stored", async () => {
    const home = temporaryDirectory();
    const run = await runSessions(
      ["export", relative(FIXTURE_CWD, fixturePath("plain")), "--format", "jsonl"],
      { home, cwd: FIXTURE_CWD },
    );
    expect(run.exitCode).toBeUndefined();
    expect(
      run.stdout
        .trimEnd()
        .split("\n")
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual(fixtureLines("plain"));
  });
});
