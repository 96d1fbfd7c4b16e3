import { existsSync } from "node:fs";
import { join } from "node:path";
import { SqliteSessionStore } from "@arbor/session-store-sqlite";
import { describe, expect, it } from "vitest";
import { runArbor, sandbox, writeJson } from "./cli-helpers.js";

describe("store in settings.json", () => {
  it("writes the session into the sqlite:FILE store named there", async () => {
    const box = sandbox();
    const file = join(box.home, "sessions.db");
    writeJson(join(box.home, "settings.json"), { store: `sqlite:${file}` });
    const run = await runArbor(box, ["-p", "hello", "--provider", "scripted"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const store = new SqliteSessionStore({ file });
    try {
      const page = await store.listSessions({ limit: 10 });
      expect(page.sessions).toHaveLength(1);
      const read = await store.readSession(page.sessions[0]!.id);
      expect(read.entries.length).toBeGreaterThan(1);
    } finally {
      await store.close();
    }
  });

  it("lists a sqlite:FILE store that does not exist without creating it", async () => {
    const box = sandbox();
    const file = join(box.home, "not-yet", "sessions.db");
    const run = await runArbor(box, ["sessions", "list", "--store", `sqlite:${file}`]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/No sessions/);
    expect(existsSync(join(box.home, "not-yet"))).toBe(false);
  });

  it("rejects a store URL it does not know with one clear message", async () => {
    const box = sandbox();
    writeJson(join(box.home, "settings.json"), { store: "mongodb://nowhere" });
    const run = await runArbor(box, ["-p", "hello", "--provider", "scripted"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^arbor: .*mongodb/);
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
