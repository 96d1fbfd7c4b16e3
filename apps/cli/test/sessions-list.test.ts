import type { SessionListItem as ListedSession } from "@arbor/app-runtime";
import { Session } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { describe, expect, it } from "vitest";
import { shortIds } from "../src/commands/sessions/list.js";
import { FIXTURE_CWD, importFixture, runSessions, temporaryDirectory } from "./sessions-helpers.js";

/** Creates sessions with one user message each, `minutes` apart, in the given directories. */
async function createSessions(home: string, cwds: readonly string[]): Promise<string[]> {
  const store = new JsonlSessionStore({ home, durability: "flush" });
  const ids: string[] = [];
  const start = Date.parse("2026-03-01T10:00:00.000Z");
  for (const [index, cwd] of cwds.entries()) {
    const now = () => new Date(start + index * 60_000);
    const session = await Session.create(store, {
      cwd,
      now,
      id: `session-${String(index).padStart(3, "0")}`,
    });
    session.appendMessage({ role: "user", content: `prompt number ${index}`, timestamp: now().getTime() });
    await session.flush();
    ids.push(session.id);
  }
  await store.close();
  return ids;
}

describe("shortIds", () => {
  it("keeps at least 8 characters and as many more as tell the ids apart", () => {
    const ids = shortIds(["01a22c6c-a371-7076", "01a22c6c-ad1c-71b0", "ffffffffffff"]);
    expect(ids.get("01a22c6c-a371-7076")).toBe("01a22c6c-a3");
    expect(ids.get("01a22c6c-ad1c-71b0")).toBe("01a22c6c-ad");
    expect(ids.get("ffffffffffff")).toBe("ffffffff");
  });
});

describe("arbor sessions list", () => {
  it("says how to go on when there is nothing to list", async () => {
    const home = temporaryDirectory();
    const here = await runSessions(["list"], { home });
    expect(here.exitCode).toBeUndefined();
    expect(here.stdout).toContain(`No sessions for ${FIXTURE_CWD} in the JSONL store in ${home}.`);
    expect(here.stdout).toContain("`arbor sessions list --all`");
    const everywhere = await runSessions(["list", "--all"], { home });
    expect(everywhere.stdout).toContain(
      `No sessions in the JSONL store in ${home}. Run \`arbor\` to start one.`,
    );
    expect((await runSessions(["list", "--json"], { home })).stdout).toBe("[]\n");
  });

  it("lists the sessions of the working directory, newest first, with their first message", async () => {
    const home = temporaryDirectory();
    await createSessions(home, ["/a", "/b", "/a", "/b"]);
    const run = await runSessions(["list"], { home, cwd: "/a" });
    const lines = run.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID +UPDATED +MSGS +TITLE$/);
    expect(lines.slice(1)).toEqual([
      "session-002  2026-03-01 10:02:00Z     1  prompt number 2",
      "session-000  2026-03-01 10:00:00Z     1  prompt number 0",
    ]);
    // `sessions` alone lists too.
    expect((await runSessions([], { home, cwd: "/a" })).stdout).toBe(run.stdout);

    const all = await runSessions(["list", "--all"], { home, cwd: "/a" });
    const allLines = all.stdout.trimEnd().split("\n");
    expect(allLines[0]).toMatch(/^ID +UPDATED +MSGS +CWD +TITLE$/);
    expect(allLines.slice(1).map((line) => line.split(/ {2,}/)[0])).toEqual([
      "session-003",
      "session-002",
      "session-001",
      "session-000",
    ]);
    expect(allLines[1]).toContain("  /b  ");
  });

  it("prints one JSON array with stable fields", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const store = new JsonlSessionStore({ home });
    const session = await Session.open(store, id);
    session.appendSessionInfo("Exploring the folder");
    await session.flush();
    await store.close();
    const run = await runSessions(["list", "--json"], { home });
    const listed = JSON.parse(run.stdout) as ListedSession[];
    expect(listed).toHaveLength(1);
    expect(Object.keys(listed[0]!)).toEqual([
      "id",
      "name",
      "cwd",
      "createdAt",
      "updatedAt",
      "messageCount",
      "parentSession",
      "location",
      "firstMessage",
    ]);
    expect(listed[0]).toMatchObject({
      id,
      name: "Exploring the folder",
      cwd: FIXTURE_CWD,
      createdAt: "2026-11-30T12:27:47.864Z",
      messageCount: 12,
      parentSession: null,
      firstMessage: 'First question: what is in this folder? [[tool:ls {"path":"."}]]',
    });
    expect(listed[0]!.location).toMatch(/\.jsonl$/);
    const text = await runSessions(["list"], { home });
    expect(text.stdout).toContain("Exploring the folder — First question: what is in this folder?");
  });

  it("pages through many sessions up to --limit and says when more exist", async () => {
    const home = temporaryDirectory();
    const ids = await createSessions(
      home,
      Array.from({ length: 130 }, () => "/many"),
    );
    const newestFirst = [...ids].reverse();

    const limited = JSON.parse(
      (await runSessions(["list", "--json", "--limit", "120"], { home, cwd: "/many" })).stdout,
    ) as ListedSession[];
    expect(limited.map((session) => session.id)).toEqual(newestFirst.slice(0, 120));

    const everything = JSON.parse(
      (await runSessions(["list", "--all", "--json", "--limit", "1000"], { home, cwd: "/" })).stdout,
    ) as ListedSession[];
    expect(everything.map((session) => session.id)).toEqual(newestFirst);

    const byDefault = await runSessions(["list"], { home, cwd: "/many" });
    const lines = byDefault.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(1 + 50 + 1);
    expect(lines.at(-1)).toBe("(newest 50 shown; more with --limit 100)");
    expect(lines[1]).toMatch(/^session-129 /);
  });

  it("rejects a bad --limit and a store URL it cannot open", async () => {
    const home = temporaryDirectory();
    const limit = await runSessions(["list", "--limit", "0"], { home });
    expect(limit.exitCode).toBe(1);
    expect(limit.stderr).toContain("expected a positive integer");
    const postgres = await runSessions(["--store", "postgres://bob:secret@127.0.0.1:1/db", "list"], { home });
    expect(postgres.exitCode).toBe(1);
    expect(postgres.stderr).toContain("arbor sessions list: Cannot reach PostgreSQL at 127.0.0.1:1");
    expect(postgres.stderr).not.toContain("secret");
    const unknown = await runSessions(["list", "--store", "redis://x"], { home });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain('Unknown session store "redis:"');
    const jsonl = await runSessions(["--store", `jsonl:${temporaryDirectory()}`, "list", "--all"], { home });
    expect(jsonl.stdout).toContain("No sessions in the JSONL store in");
  });
});
