import { readFileSync } from "node:fs";
import { join } from "node:path";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { PostgresSessionStore } from "@arbor/session-store-postgres";
import { describe, expect, it } from "vitest";
import { FIXTURES, fixturePath, importFixture, runSessions, temporaryDirectory } from "./sessions-helpers.js";

const DATABASE_URL = process.env.DATABASE_URL;
const names = Object.keys(FIXTURES) as (keyof typeof FIXTURES)[];

/** The entry lines of a pi fixture (the header left out), as text. */
function fixtureEntryLines(name: keyof typeof FIXTURES): string[] {
  return readFileSync(fixturePath(name), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .slice(1);
}

/** Every entry of a JSONL store's session, as JSON text. */
async function jsonlEntryLines(home: string, id: string): Promise<string[]> {
  const store = new JsonlSessionStore({ home, readOnly: true });
  try {
    const read = await store.readSession(id);
    return read.entries.map((stored) => JSON.stringify(stored.entry()));
  } finally {
    await store.close();
  }
}

async function dropFromPostgres(url: string, ids: readonly string[]): Promise<void> {
  const store = PostgresSessionStore.fromUrl(url);
  try {
    for (const id of ids) await store.deleteSession(id).catch(() => undefined);
  } finally {
    await store.close();
  }
}

describe("arbor sessions copy", () => {
  it("copies JSONL to SQLite and back, entries unchanged", async () => {
    const home = temporaryDirectory();
    const ids = [];
    for (const name of names) ids.push(await importFixture(name, home));
    const sqlite = `sqlite:${join(temporaryDirectory(), "sessions.db")}`;
    const out = await runSessions(["copy", "--from", `jsonl:${home}`, "--to", sqlite], { home });
    expect(out.exitCode).toBeUndefined();
    expect(out.stdout).toContain(`${names.length} sessions`);
    for (const id of ids) expect(out.stdout).toContain(`Copied ${id}`);
    const back = temporaryDirectory();
    const again = await runSessions(["copy", "--from", sqlite, "--to", `jsonl:${back}`, ...ids], { home });
    expect(again.exitCode).toBeUndefined();
    for (const [index, name] of names.entries()) {
      expect(await jsonlEntryLines(back, ids[index]!)).toEqual(fixtureEntryLines(name));
    }
  });

  it("reports an unknown id with exit 1", async () => {
    const home = temporaryDirectory();
    const sqlite = `sqlite:${join(temporaryDirectory(), "sessions.db")}`;
    const run = await runSessions(["copy", "--from", `jsonl:${home}`, "--to", sqlite, "no-such-id"], {
      home,
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^arbor sessions copy: .*no-such-id/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it("reports an unreachable store with exit 1", async () => {
    const home = temporaryDirectory();
    const run = await runSessions(
      ["copy", "--from", `jsonl:${home}`, "--to", "postgres://arbor@127.0.0.1:1/none"],
      { home },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/^arbor sessions copy: .*127\.0\.0\.1/);
  });

  it("refuses a session the target already holds", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("plain", home);
    const run = await runSessions(["copy", "--from", `jsonl:${home}`, "--to", `jsonl:${home}`, id], { home });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain("arbor sessions copy:");
  });
});

if (DATABASE_URL !== undefined && DATABASE_URL !== "") {
  describe("arbor sessions copy with PostgreSQL", () => {
    it("copies JSONL → SQLite → PostgreSQL → JSONL, entries byte-equal", async () => {
      const home = temporaryDirectory();
      const ids: string[] = [];
      for (const name of names) ids.push(await importFixture(name, home));
      await dropFromPostgres(DATABASE_URL, ids);
      try {
        const sqlite = `sqlite:${join(temporaryDirectory(), "sessions.db")}`;
        const end = temporaryDirectory();
        const hops = [`jsonl:${home}`, sqlite, DATABASE_URL, `jsonl:${end}`];
        for (let hop = 0; hop + 1 < hops.length; hop++) {
          const run = await runSessions(["copy", "--from", hops[hop]!, "--to", hops[hop + 1]!, ...ids], {
            home,
          });
          expect(run.stderr).toBe("");
          expect(run.exitCode).toBeUndefined();
        }
        for (const [index, name] of names.entries()) {
          expect(await jsonlEntryLines(end, ids[index]!)).toEqual(fixtureEntryLines(name));
        }
      } finally {
        await dropFromPostgres(DATABASE_URL, ids);
      }
    });
  });
} else if (process.env.CI === "true") {
  it("arbor sessions copy with PostgreSQL: needs DATABASE_URL", () => {
    throw new Error(
      "CI=true but DATABASE_URL is not set: .ci/run must start PostgreSQL (scripts/pg-start.sh).",
    );
  });
} else {
  it.skip("arbor sessions copy with PostgreSQL: skipped, DATABASE_URL is not set (run under scripts/with-postgres.sh)", () => {});
}
