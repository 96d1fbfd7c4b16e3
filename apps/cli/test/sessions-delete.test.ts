import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { describe, expect, it } from "vitest";
import {
  FIXTURE_CWD,
  runSessions,
  sessionHeader,
  temporaryDirectory,
  userEntry,
  writeSessionFile,
} from "./sessions-helpers.js";

const OLD = "2026-01-02T03:04:05.000Z";

/** Three sessions: an old and a new one in the fixtures' project, an old one elsewhere. */
function setUp(): { home: string; old: string; recent: string; elsewhere: string } {
  const home = temporaryDirectory();
  const old = "0a0a0a0a-0000-4000-8000-000000000001";
  const recent = "0b0b0b0b-0000-4000-8000-000000000002";
  const elsewhere = "0c0c0c0c-0000-4000-8000-000000000003";
  writeSessionFile(home, sessionHeader(old, FIXTURE_CWD, OLD), [userEntry("u1", null, "the old question")]);
  writeSessionFile(home, sessionHeader(recent, FIXTURE_CWD, new Date().toISOString()), []);
  writeSessionFile(home, sessionHeader(elsewhere, "/somewhere/else", OLD), []);
  return { home, old, recent, elsewhere };
}

async function listed(home: string): Promise<string[]> {
  const run = await runSessions(["list", "--all", "--json"], { home });
  return (JSON.parse(run.stdout) as { id: string }[]).map((session) => session.id).sort();
}

describe("arbor sessions delete", () => {
  it("lists the session and asks; without a terminal it needs --yes and deletes nothing", async () => {
    const { home, old, recent, elsewhere } = setUp();
    const refused = await runSessions(["delete", old.slice(0, 8)], { home });
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toContain(old);
    expect(refused.stdout).toContain("the old question");
    expect(refused.stderr).toBe(
      "arbor sessions delete: Nothing deleted: add --yes to delete this session without being asked.\n",
    );
    const questions: string[] = [];
    const no = await runSessions(["delete", old.slice(0, 8)], {
      home,
      confirm: async (question) => {
        questions.push(question);
        return false;
      },
    });
    expect(questions).toEqual(["Delete this session? This cannot be undone. [y/N] "]);
    expect(no.stdout).toContain("Nothing deleted.");
    expect(await listed(home)).toEqual([old, recent, elsewhere].sort());
    const yes = await runSessions(["delete", old.slice(0, 8)], { home, confirm: async () => true });
    expect(yes.exitCode).toBeUndefined();
    expect(yes.stdout).toContain("Deleted 1 session.");
    expect(await listed(home)).toEqual([recent, elsewhere].sort());
  });

  it("refuses a session another process is writing and deletes the rest (exit 1)", async () => {
    const { home, old, recent } = setUp();
    const writer = new JsonlSessionStore({ home });
    const lease = await writer.acquireWriterLease(recent);
    try {
      const run = await runSessions(["delete", old, recent, "--yes"], { home });
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toContain("Deleted 1 session.");
      expect(run.stderr).toMatch(
        new RegExp(
          `^arbor sessions: not deleted ${recent}: Session "${recent}" is open for writing by pid \\d+`,
        ),
      );
      expect(await listed(home)).not.toContain(old);
      expect(await listed(home)).toContain(recent);
    } finally {
      await lease.release();
      await writer.close();
    }
  });

  it("names an unknown session and deletes nothing", async () => {
    const { home } = setUp();
    const run = await runSessions(["delete", "ffffffff", "--yes"], { home });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^arbor sessions delete: .*ffffffff/);
    expect(await listed(home)).toHaveLength(3);
  });
});

describe("arbor sessions prune", () => {
  it("selects by age in this directory (or --all, or --cwd), lists with --dry-run, deletes with --yes", async () => {
    const { home, old, recent, elsewhere } = setUp();
    const dry = await runSessions(["prune", "--older-than", "30d", "--dry-run"], { home });
    expect(dry.stdout).toContain(old);
    expect(dry.stdout).not.toContain(elsewhere);
    expect(dry.stdout).toContain("1 would be deleted (--dry-run).");
    const all = await runSessions(["prune", "--older-than", "30d", "--all", "--dry-run"], { home });
    expect(all.stdout).toContain("2 would be deleted (--dry-run).");
    const other = await runSessions(["prune", "--older-than", "4w", "--cwd", "/somewhere/else", "--yes"], {
      home,
    });
    expect(other.stdout).toContain("Deleted 1 session.");
    expect(await listed(home)).toEqual([old, recent].sort());
    const none = await runSessions(["prune", "--older-than", "1000w", "--yes"], { home });
    expect(none.stdout).toBe(`No session of ${FIXTURE_CWD} is that old.\n`);
    const bad = await runSessions(["prune", "--older-than", "soon"], { home });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("expected an age such as 90m, 12h, 30d or 8w.");
  });
});
