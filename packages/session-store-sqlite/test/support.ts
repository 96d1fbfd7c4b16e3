/** What the package's tests share: a temporary directory of database files, a header, a user message entry. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionEntry } from "@arbor/session-store";
import { afterAll } from "vitest";

/** A fresh database file path per call, in a directory removed after the file's tests. */
export function databaseFiles(prefix: string): () => string {
  const directory = mkdtempSync(join(tmpdir(), `arbor-sqlite-${prefix}-`));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  let files = 0;
  return () => join(directory, `store-${files++}.db`);
}

/** A session header in `/w`. */
export const header = (id: string) => ({
  type: "session" as const,
  version: 3,
  id,
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/w",
});

/** A user message entry whose text is `text`. */
export const userEntry = (id: string, parentId: string | null, text: string): SessionEntry =>
  ({
    type: "message",
    id,
    parentId,
    timestamp: "2026-01-01T00:00:01.000Z",
    message: { role: "user", content: text, timestamp: 1 },
  }) as SessionEntry;
