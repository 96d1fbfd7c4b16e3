import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeSessionStore } from "@internal/conformance";
import Database from "better-sqlite3";
import { afterAll } from "vitest";
import { SqliteSessionStore } from "../src/index.js";

const directory = mkdtempSync(join(tmpdir(), "arbor-sqlite-conformance-"));
const file = join(directory, "sessions.db");
afterAll(() => rmSync(directory, { recursive: true, force: true }));

// Every test's store opens the same file, as processes sharing one database do.
describeSessionStore<SqliteSessionStore>({
  name: "SqliteSessionStore",
  create: () => new SqliteSessionStore({ file, watchIntervalMs: 10 }),
  reopen: () => new SqliteSessionStore({ file, watchIntervalMs: 10 }),
  corrupt: (_store, sessionId) => {
    const db = new Database(file);
    db.prepare("UPDATE arbor_sessions SET header = '{not json' WHERE id = ?").run(sessionId);
    db.close();
  },
});
