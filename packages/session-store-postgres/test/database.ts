/**
 * The PostgreSQL server the tests use: `DATABASE_URL` (`scripts/with-postgres.sh` starts a throwaway
 * one). Without it the tests skip with a visible reason, except in CI (`CI=true`), where that fails.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, describe, it } from "vitest";

/** The server's URL, when there is one. */
export const DATABASE_URL = process.env.DATABASE_URL;

/**
 * Registers `body` when a server is configured; otherwise one skipped test that says why (locally)
 * or one failing test (in CI).
 */
export function describeWithPostgres(name: string, body: (url: string) => void): void {
  const url = DATABASE_URL;
  if (url !== undefined && url !== "") {
    describe(name, () => body(url));
    return;
  }
  if (process.env.CI === "true") {
    it(`${name}: needs DATABASE_URL`, () => {
      throw new Error(
        "CI=true but DATABASE_URL is not set: .ci/run must start PostgreSQL (scripts/pg-start.sh).",
      );
    });
    return;
  }
  console.warn(`${name}: skipped, DATABASE_URL is not set (run under scripts/with-postgres.sh)`);
  it.skip(`${name}: skipped, DATABASE_URL is not set (run under scripts/with-postgres.sh)`, () => {});
}

/** A schema name of its own for one test file, dropped after the file's tests. */
export function temporarySchema(url: string): string {
  const schema = `arbor_test_${randomBytes(4).toString("hex")}`;
  afterAll(async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });
  return schema;
}
