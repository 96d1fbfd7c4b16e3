import { readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { relative } from "node:path";
import { describe, expect, it, vi } from "vitest";
import {
  FIXTURE_CWD,
  fixturePath,
  importFixture,
  runSessions,
  sessionHeader,
  temporaryDirectory,
  writeLargeSession,
  writeSessionFile,
} from "./sessions-helpers.js";

function temporaryStores(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith("arbor-session-"));
}

describe("arbor sessions show", () => {
  it("prints the facts and the current branch, not the abandoned one", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const run = await runSessions(["show", id], { home });
    expect(run.exitCode).toBeUndefined();
    expect(run.stdout).toMatch(new RegExp(`^Session +${id}\\n`));
    expect(run.stdout).toContain(`Directory  ${FIXTURE_CWD}`);
    expect(run.stdout).toContain("Entries    16 (12 messages), 2 branches, leaf 46a34590");
    expect(run.stdout).toContain("Model      mock-anthropic/mock-claude, thinking off");
    expect(run.stdout).toContain("Branch to 46a34590 (12 entries):");
    expect(run.stdout).toContain("[cfe31228] user");
    expect(run.stdout).toContain("  Branch B: look at the source instead.");
    expect(run.stdout).toContain("[5b4acce3] branch summary · from bbd4e133 [branch-point]");
    expect(run.stdout).toContain("  → bash(");
    expect(run.stdout).toContain("[46a34590] assistant · mock-anthropic/mock-claude · 2,001 tokens ← leaf");
    expect(run.stdout).not.toContain("Branch A");
  });

  it("shows another branch with --leaf, the newest entries with --limit, whole texts with --full", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const other = await runSessions(["show", id, "--leaf", "976c"], { home });
    expect(other.stdout).toContain("Branch to 976cce3b (10 entries):");
    expect(other.stdout).toContain("Branch A: read the notes.");
    expect(other.stdout).not.toContain("Branch B");

    const limited = await runSessions(["show", id, "--limit", "2"], { home });
    expect(limited.stdout).toContain("… 10 earlier entries not shown (--limit all shows them)");
    expect(limited.stdout).toContain("[9e27f2bb] tool bash");
    expect(limited.stdout).not.toContain("[4af61d01]");

    const cut = await runSessions(["show", id, "--limit", "all"], { home });
    expect(cut.stdout).toContain("more lines; --full shows everything]");
    const full = await runSessions(["show", id, "--limit", "all", "--full"], { home });
    expect(full.stdout).not.toContain("--full shows everything");
    expect(full.stdout).toContain("## Next Steps");
  });

  it("shows a pi summary's <read-files> block as a Files read line, in show and in the HTML export", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const full = await runSessions(["show", id, "--limit", "all", "--full"], { home });
    expect(full.stdout).toContain("Files read: notes.txt");
    expect(full.stdout).not.toContain("<read-files>");
    const out = `${temporaryDirectory()}/branch.html`;
    const exported = await runSessions(["export", id, "--format", "html", "-o", out], { home });
    expect(exported.exitCode, exported.stderr).toBeUndefined();
    const html = readFileSync(out, "utf8");
    expect(html).toContain("Files read: notes.txt");
    expect(html).not.toContain("&lt;read-files&gt;");
  });

  it("draws the whole tree with --tree: guides, labels, the leaf, summaries and compactions", async () => {
    const home = temporaryDirectory();
    const branch = await importFixture("branch", home);
    const run = await runSessions(["show", branch, "--tree"], { home });
    const lines = run.stdout.split("\n");
    expect(lines).toContain('bbd4e133 assistant: Tool result received from ls: "hello.txt notes.txt src/"');
    expect(lines).toContain('├─ 14c6c82a user: Branch A: read the notes. [[tool:read {"path":"notes.txt"}]]');
    expect(lines).toContain('│  1530000f assistant: → read({"path":"notes.txt"})');
    expect(
      lines.some((line) => /^└─ 5b4acce3 ◇ branch summary \(from bbd4e133\): .*\[branch-point\]$/.test(line)),
    ).toBe(true);
    expect(lines).toContain('   cd1d599a label ("branch-point" on 5b4acce3)');
    expect(lines.some((line) => line.startsWith("   46a34590 assistant:") && line.endsWith("← leaf"))).toBe(
      true,
    );

    const compaction = await importFixture("compaction", home);
    const compacted = await runSessions(["show", compaction, "--tree"], { home });
    expect(compacted.stdout).toMatch(
      /^f01eb8c2 ◆ compaction \(6,791 tokens before, kept from 2441c2e0\): ## Goal/m,
    );
  });

  it("finds sessions by unique prefix and by path, and lists the candidates of an ambiguous prefix", async () => {
    const home = temporaryDirectory();
    await importFixture("plain", home);
    await importFixture("tools", home);
    const byPrefix = await runSessions(["show", "01a22c6c-ad"], { home });
    expect(byPrefix.stdout).toContain("Session    01a22c6c-ad1c-71b0-ab31-aa05f9e29229");

    const ambiguous = await runSessions(["show", "01a22c6c"], { home });
    expect(ambiguous.exitCode).toBe(1);
    expect(ambiguous.stdout).toBe("");
    expect(ambiguous.stderr).toContain('"01a22c6c" matches 2 sessions; type more of the id:');
    expect(ambiguous.stderr).toContain("01a22c6c-a371-7076-92f0-b824020d7068");
    expect(ambiguous.stderr).toContain("01a22c6c-ad1c-71b0-ab31-aa05f9e29229");

    const missing = await runSessions(["show", "ffff"], { home });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/^arbor sessions show: No session "ffff" in the JSONL store in /);
    expect(missing.stderr).not.toContain("    at ");

    const list = JSON.parse((await runSessions(["list", "--json"], { home })).stdout) as {
      location: string;
    }[];
    const inside = await runSessions(["show", relative(FIXTURE_CWD, list[0]!.location)], { home });
    expect(inside.stdout).toContain("File       ");
    expect(inside.stdout).not.toContain("outside the store");
  });

  it("opens a file outside the store read-only and leaves nothing behind", async () => {
    const home = temporaryDirectory();
    const before = temporaryStores();
    const run = await runSessions(["show", fixturePath("compaction"), "--tree"], { home });
    expect(run.exitCode).toBeUndefined();
    expect(run.stdout).toContain("(outside the store; read-only)");
    expect(run.stdout).toContain("◆ compaction");
    expect(temporaryStores()).toEqual(before);
    expect(readdirSync(home)).toEqual([]);

    const notThere = await runSessions(["show", "./no/such/file.jsonl"], { home });
    expect(notThere.exitCode).toBe(1);
    expect(notThere.stderr).toContain("No session file at /home/user/project/no/such/file.jsonl");
  });

  it("prints a bounded outline and branch of a 20,000-entry session", async () => {
    const home = temporaryDirectory();
    const large = writeLargeSession(home, 20_000);
    const parse = vi.spyOn(JSON, "parse");
    const tree = await runSessions(["show", large.id, "--tree"], { home });
    // Only the printed entries (and the few the header reads) are parsed, not the 20,000 bodies.
    expect(parse.mock.calls.length).toBeLessThan(300);
    parse.mockRestore();
    expect(tree.exitCode).toBeUndefined();
    const lines = tree.stdout.trimEnd().split("\n");
    expect(lines.length).toBeLessThan(150);
    expect(tree.stdout).toContain(`Entries    ${large.entries.toLocaleString("en-US")} (`);
    expect(tree.stdout).toMatch(/┆ … [\d,]+ entries \([\d,]+ messages\) folded; --no-fold shows them/);
    expect(tree.stdout).toContain("[midpoint]");
    expect(tree.stdout).toContain("◆ compaction (150,000 tokens before");
    expect(lines.some((line) => line.startsWith(`├─ m`) || line.startsWith(`└─ s0000000`))).toBe(true);
    expect(lines.some((line) => line.includes(`${large.leafId} assistant`) && line.endsWith("← leaf"))).toBe(
      true,
    );
    expect(lines.some((line) => line.includes("leafmove leaf (moved to"))).toBe(true);

    const branch = await runSessions(["show", large.id], { home });
    expect(branch.stdout).toContain("earlier entries not shown (--limit all shows them)");
    expect(branch.stdout.split("\n").length).toBeLessThan(400);
    expect(branch.stdout).toContain(`[${large.leafId}] assistant`);
  });

  it("unfolds everything with --no-fold", async () => {
    const home = temporaryDirectory();
    const large = writeLargeSession(home, 400);
    const run = await runSessions(["show", large.id, "--tree", "--no-fold"], { home });
    const entryLines = run.stdout
      .split("\n")
      .filter((line) => /^(?:[│├└ ─┄]*)[ms]\w{7} |leafmove /.test(line));
    expect(entryLines.length).toBe(large.entries);
    expect(run.stdout).not.toContain("folded");
  });

  it("shows an empty session", async () => {
    const home = temporaryDirectory();
    writeSessionFile(home, sessionHeader("empty-session"), []);
    const branch = await runSessions(["show", "empty-session"], { home });
    expect(branch.exitCode).toBeUndefined();
    expect(branch.stdout).toContain("Entries    0 (0 messages), 0 branches, leaf (none)");
    expect(branch.stdout).toContain("(the branch is empty)");
    const tree = await runSessions(["show", "empty-session", "--tree"], { home });
    expect(tree.stdout).toContain("(no entries)");
    const markdown = await runSessions(["export", "empty-session", "--format", "md"], { home });
    expect(markdown.stdout).toContain("*(no entries)*");
    const html = await runSessions(["export", "empty-session", "--format", "html"], { home });
    expect(html.stdout).toContain('<h2 id="branch-title">No entries</h2>');
  });
});
