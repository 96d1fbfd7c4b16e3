import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Session } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { describe, expect, it } from "vitest";
import {
  FIXTURE_CWD,
  FIXTURES,
  fixtureLines,
  fixturePath,
  importFixture,
  runSessions,
  temporaryDirectory,
} from "./sessions-helpers.js";

async function openImported(
  home: string,
  id: string,
): Promise<{ session: Session; store: JsonlSessionStore }> {
  const store = new JsonlSessionStore({ home, readOnly: true });
  return { session: await Session.open(store, id), store };
}

describe("arbor sessions import", () => {
  it.each(Object.keys(FIXTURES) as (keyof typeof FIXTURES)[])(
    "imports the pi fixture %s unchanged",
    async (name) => {
      const home = temporaryDirectory();
      const run = await runSessions(["import", fixturePath(name)], { home });
      expect(run.exitCode).toBeUndefined();
      const [header, ...entries] = fixtureLines(name);
      const messages = entries.filter((entry) => entry.type === "message").length;
      expect(run.stdout).toContain(`as session ${header!.id}.`);
      expect(run.stdout).toContain("(format version 3)");
      expect(run.stdout).toContain(`${entries.length} entries, ${messages} messages`);
      expect(run.stdout).toContain("no warnings");

      const { session, store } = await openImported(home, header!.id as string);
      expect(session.cwd).toBe(FIXTURE_CWD);
      expect(session.warnings).toEqual([]);
      const stored = await store.readSession(session.id);
      expect(stored.header).toEqual(header);
      expect(stored.entries.map((entry) => entry.entry())).toEqual(entries);
      expect(run.stdout).toContain(`stored in ${store.pathOf(session.id)}`);
      expect(store.pathOf(session.id)).toContain(join("sessions", "--home-user-project--"));
      await store.close();
    },
  );

  it("reports branches and the leaf of a branched session", async () => {
    const home = temporaryDirectory();
    const run = await runSessions(["import", fixturePath("branch")], { home });
    expect(run.stdout).toContain("16 entries, 12 messages, 2 branches, leaf 46a34590");
  });

  it("gives a colliding session a new id and says so", async () => {
    const home = temporaryDirectory();
    const first = await importFixture("plain", home);
    const second = await runSessions(["import", fixturePath("plain")], { home });
    expect(second.exitCode).toBeUndefined();
    expect(second.stdout).toContain(
      `already holds a session with the file's id ${first}; this copy got a new id`,
    );
    const newId = /as session (\S+)\./.exec(second.stdout)![1]!;
    expect(newId).not.toBe(first);
    const list = await runSessions(["list", "--json"], { home });
    expect((JSON.parse(list.stdout) as { id: string }[]).map((session) => session.id).sort()).toEqual(
      [first, newId].sort(),
    );
  });

  it("migrates a version 1 file (no ids, compaction by line index)", async () => {
    const home = temporaryDirectory();
    const file = join(temporaryDirectory(), "v1.jsonl");
    const lines = [
      { type: "session", id: "v1-session", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/old/project" },
      {
        type: "message",
        timestamp: "2025-01-01T00:00:01.000Z",
        message: { role: "user", content: "hello from version 1", timestamp: 1 },
      },
      {
        type: "message",
        timestamp: "2025-01-01T00:00:02.000Z",
        message: {
          role: "assistant",
          content: [{ type: "text", text: "hi" }],
          api: "anthropic-messages",
          provider: "anthropic",
          model: "claude",
          usage: {
            input: 1,
            output: 1,
            cacheRead: 0,
            cacheWrite: 0,
            totalTokens: 2,
            cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
          },
          stopReason: "stop",
          timestamp: 2,
        },
      },
      {
        type: "compaction",
        timestamp: "2025-01-01T00:00:03.000Z",
        summary: "we said hello",
        firstKeptEntryIndex: 2,
        tokensBefore: 100,
      },
    ];
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const run = await runSessions(["import", file], { home });
    expect(run.exitCode).toBeUndefined();
    expect(run.stdout).toContain("(format version 1, migrated to 3) as session v1-session.");
    expect(run.stdout).toContain("3 entries, 2 messages, 1 branch");

    const { session, store } = await openImported(home, "v1-session");
    expect(session.header.version).toBe(3);
    expect(session.cwd).toBe("/old/project");
    const branch = session.getBranch();
    expect(branch.map((entry) => entry.type)).toEqual(["message", "message", "compaction"]);
    expect(branch[1]!.parentId).toBe(branch[0]!.id);
    expect((branch[2] as { firstKeptEntryId: string }).firstKeptEntryId).toBe(branch[1]!.id);
    await store.close();
  });

  it("migrates a version 2 file (hookMessage becomes custom) and can file it under another cwd", async () => {
    const home = temporaryDirectory();
    const file = join(temporaryDirectory(), "v2.jsonl");
    const lines = [
      { type: "session", version: 2, id: "v2-session", timestamp: "2025-02-01T00:00:00.000Z", cwd: "/x" },
      {
        type: "message",
        id: "aaaa0001",
        parentId: null,
        timestamp: "2025-02-01T00:00:01.000Z",
        message: {
          role: "hookMessage",
          customType: "note",
          content: "from a hook",
          display: true,
          timestamp: 1,
        },
      },
    ];
    writeFileSync(file, `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    const run = await runSessions(["import", file, "--cwd", "/elsewhere"], { home, cwd: "/tmp" });
    expect(run.stdout).toContain("(format version 2, migrated to 3)");
    const { session, store } = await openImported(home, "v2-session");
    expect(session.cwd).toBe("/elsewhere");
    expect((session.getEntry("aaaa0001") as { message: { role: string } }).message.role).toBe("custom");
    await store.close();
  });

  it("reports bad lines and invalid entries, keeping what a session can open", async () => {
    const home = temporaryDirectory();
    const file = join(temporaryDirectory(), "damaged.jsonl");
    const text = readFileSync(fixturePath("plain"), "utf8").trimEnd().split("\n");
    const broken = [
      text[0],
      text[1],
      "this is not json",
      JSON.stringify({ type: "message", parentId: null, timestamp: "2026-01-01T00:00:00.000Z" }),
      JSON.stringify({
        type: "message",
        id: "bad00001",
        parentId: "nowhere1",
        timestamp: "2026-01-01T00:00:00.000Z",
      }),
      ...text.slice(2),
      '{"type":"message","id":"torn',
    ].join("\n");
    writeFileSync(file, broken);
    const run = await runSessions(["import", file], { home });
    expect(run.exitCode).toBeUndefined();
    expect(run.stdout).toContain("line 3 is not JSON; left out");
    expect(run.stdout).toContain('an entry without a string "type" and "id"');
    expect(run.stdout).toContain('entry "bad00001" (message) names parent "nowhere1"');
    expect(run.stdout).toContain('Entry "bad00001" (message) is invalid');
    expect(run.stdout).toContain("is incomplete (a write cut short); left out");
    expect(run.stdout).toContain("5 entries, 3 messages");
  });

  it("imports an older pi file whole: fields it lacks are filled in and reported once, as a note", async () => {
    // pi's own v1 fixture (pi-mono, packages/coding-agent/test/fixtures/large-session.jsonl): its 453
    // assistant messages have no usage.totalTokens. Before, all 453 were invalid and left out of the context.
    const home = temporaryDirectory();
    const file = fileURLToPath(
      new URL("../../../fixtures/pi-sessions/v1/large-session.jsonl", import.meta.url),
    );
    const run = await runSessions(["import", file], { home });
    expect(run.exitCode).toBeUndefined();
    const id = "d703a1a9-1b7b-4fb1-b512-c9738b1fe617";
    expect(
      run.stdout
        .split("\n")
        .slice(1, -2)
        .filter((line) => !line.startsWith("  stored in")),
    ).toEqual([
      "  1,018 entries, 914 messages, 1 branch, leaf 82d86e63",
      "  context of the leaf: 892 messages, 373 tool calls with their results",
      "  no warnings",
      "  453 fields the file lacks, filled in (the copy holds them; the file is unchanged):",
      "    - 453 assistant messages had no usage.totalTokens: filled from their token counts (e.g. entry dd1329f5; entry 94ce9e2d)",
    ]);
    // The copy holds the filled entries: it opens with nothing to repair, warn about or note.
    const { session, store } = await openImported(home, id);
    // The file's 914 messages, and an error result for each of the 18 calls of its aborted responses.
    const context = session.buildContext();
    expect(context.messages).toHaveLength(932);
    expect(context.repairs.map((repair) => repair.kind)).toEqual(Array(18).fill("missing_tool_result"));
    expect(session.notices).toEqual([]);
    await store.close();
    const show = await runSessions(["show", id], { home });
    expect(show.stdout).not.toMatch(/^(Warning|Note) /m);
    // Opened in place (read-only, migrated in memory), the same fields are filled: one note line.
    const inPlace = await runSessions(["show", file, "--limit", "all"], { home });
    expect(inPlace.stdout.split("\n").filter((line) => /^(Warning|Note) /.test(line))).toEqual([
      "Warning    migrated from format version 1 to 3 in memory only (the file is unchanged)",
      "Note       453 assistant messages had no usage.totalTokens: filled from their token counts (e.g. entry dd1329f5; entry 94ce9e2d)",
    ]);
  });

  it("counts the warnings right and prints one line per kind", async () => {
    const home = temporaryDirectory();
    const file = join(temporaryDirectory(), "many.jsonl");
    const [head, ...rest] = readFileSync(fixturePath("plain"), "utf8").trimEnd().split("\n");
    const invalid = Array.from({ length: 30 }, (_, index) =>
      JSON.stringify({
        type: "message",
        id: `bad${String(index).padStart(5, "0")}`,
        parentId: "nowhere1",
        timestamp: "2026-01-01T00:00:00.000Z",
        message: { role: "assistant", content: "not blocks" },
      }),
    );
    const junk = Array.from({ length: 25 }, (_, index) => `not json ${index}`);
    writeFileSync(file, `${[head, ...rest, ...invalid, ...junk].join("\n")}\n`);
    const run = await runSessions(["import", file], { home });
    const lines = run.stdout.split("\n");
    const at = lines.indexOf("  85 warnings:");
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 4)).toEqual([
      `    - 25 lines are not JSON; they are left out (e.g. line ${rest.length + 32}; line ${rest.length + 33})`,
      '    - 30 entries name a parent that does not come before them; they become roots (e.g. entry "bad00000"; entry "bad00001")',
      expect.stringMatching(
        /^ {4}- 30 entries are invalid; they are kept but left out of the context \(e\.g\. Entry "bad00000" \(message\) is invalid: \/message\/content: expected array, [^;]*;[^;]*;[^;]*…\)$/,
      ),
    ]);
    expect(run.stdout).not.toContain("more");
  });

  it("drops an Arbor file's batch framing and imports the entries", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("tools", home);
    const store = new JsonlSessionStore({ home, readOnly: true });
    const path = store.pathOf(id)!;
    await store.close();
    const framed = readFileSync(path, "utf8");
    expect(framed).toContain('"arbor":"batch"');
    const copy = join(temporaryDirectory(), "copy.jsonl");
    writeFileSync(copy, framed);
    const run = await runSessions(["import", copy], { home });
    const newId = /as session (\S+)\./.exec(run.stdout)![1]!;
    expect(run.stdout).toContain("no warnings");
    const reopened = new JsonlSessionStore({ home, readOnly: true });
    const original = await reopened.readSession(id);
    const imported = await reopened.readSession(newId);
    expect(imported.entries.map((entry) => entry.entry())).toEqual(
      original.entries.map((entry) => entry.entry()),
    );
    await reopened.close();
  });

  it("checks without writing on --dry-run", async () => {
    const home = temporaryDirectory();
    const run = await runSessions(["import", fixturePath("compaction"), "--dry-run"], { home });
    expect(run.exitCode).toBeUndefined();
    expect(run.stdout).toContain("nothing was written (--dry-run)");
    expect(run.stdout).toContain("19 entries, 16 messages, 1 branch, leaf ba0c4a95");
    expect(readdirSync(home)).toEqual([]);
  });

  it("fails clearly for a file that is not a session, or that does not exist", async () => {
    const home = temporaryDirectory();
    const file = join(temporaryDirectory(), "notes.jsonl");
    writeFileSync(file, '{"hello":"world"}\n');
    const notSession = await runSessions(["import", file], { home });
    expect(notSession.exitCode).toBe(1);
    expect(notSession.stderr).toContain("is not a session file: line 1 must be a header");
    expect(notSession.stderr).not.toContain("    at ");

    const missing = await runSessions(["import", join(home, "missing.jsonl")], { home });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/^arbor sessions import: ENOENT/);
  });
});
