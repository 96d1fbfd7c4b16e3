import { PostgresSessionStore } from "@arbor/session-store-postgres";
import { describe, expect, it } from "vitest";
import { jsonLines, runArbor, sandbox } from "./cli-helpers.js";

const DATABASE_URL = process.env.DATABASE_URL;

if (DATABASE_URL !== undefined && DATABASE_URL !== "") {
  describe("two arbor -p processes on one PostgreSQL session", () => {
    it("one saves its turn, the other is refused before any model call, naming the holder", async () => {
      const box = sandbox();
      const store = ["--store", DATABASE_URL, "--provider", "scripted"];
      const first = await runArbor(box, ["-p", "hello", "--mode", "json", ...store]);
      expect(first.code).toBe(0);
      const record = jsonLines(first.stdout).find((line) => line.type === "session");
      const id = String(record?.sessionId);
      try {
        const args = ["-p", "wait 1500 done", "--session", id, ...store];
        const runs = await Promise.all([runArbor(box, args), runArbor(box, args)]);
        const codes = runs.map((run) => run.code).sort();
        expect(codes[0]).toBe(0);
        expect(codes[1]).not.toBe(0);
        const loser = runs.find((run) => run.code !== 0)!;
        // The writer lease: the second process is turned away when it opens the session.
        expect(loser.stderr).toMatch(/is open for writing by pid \d+@/);
        expect(loser.stderr.trim().split("\n")).toHaveLength(1);
        expect(loser.stderr).not.toMatch(/\n\s+at /);
      } finally {
        const cleanup = PostgresSessionStore.fromUrl(DATABASE_URL);
        await cleanup.deleteSession(id).catch(() => undefined);
        await cleanup.close();
      }
    }, 60_000);
  });
} else if (process.env.CI === "true") {
  it("two arbor -p processes on one PostgreSQL session: needs DATABASE_URL", () => {
    throw new Error(
      "CI=true but DATABASE_URL is not set: .ci/run must start PostgreSQL (scripts/pg-start.sh).",
    );
  });
} else {
  it.skip("two arbor -p processes on one PostgreSQL session: skipped, DATABASE_URL is not set (run under scripts/with-postgres.sh)", () => {});
}
