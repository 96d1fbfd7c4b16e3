import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SessionEntry, SessionHeader } from "@arbor/session-store";
import { afterEach } from "vitest";
import { JsonlSessionStore, type JsonlSessionStoreOptions } from "../src/index.js";

const homes: string[] = [];
const stores: JsonlSessionStore[] = [];

afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

/** A fresh temporary Arbor home, removed after the test. */
export function temporaryHome(): string {
  const home = mkdtempSync(join(tmpdir(), "arbor-jsonl-"));
  homes.push(home);
  return home;
}

/** A store over `home` (a fresh one by default), closed after the test. */
export function openStore(options: Partial<JsonlSessionStoreOptions> = {}): JsonlSessionStore {
  const store = new JsonlSessionStore({ home: options.home ?? temporaryHome(), ...options });
  stores.push(store);
  return store;
}

/** A version-3 header. */
export function header(
  id: string,
  cwd = "/home/user/project",
  timestamp = "2026-01-02T03:04:05.678Z",
): SessionHeader {
  return { type: "session", version: 3, id, timestamp, cwd };
}

let clock = Date.parse("2026-01-02T03:05:00.000Z");

/** A user message entry. */
export function userEntry(id: string, parentId: string | null, text = `text of ${id}`): SessionEntry {
  clock += 1000;
  return {
    type: "message",
    id,
    parentId,
    timestamp: new Date(clock).toISOString(),
    message: { role: "user", content: [{ type: "text", text }], timestamp: clock },
  };
}

/** A chain of user entries `prefix1 … prefixN` continuing from `parentId`. */
export function chain(prefix: string, count: number, parentId: string | null = null): SessionEntry[] {
  const entries: SessionEntry[] = [];
  let parent = parentId;
  for (let index = 1; index <= count; index++) {
    const entry = userEntry(`${prefix}${index}`, parent);
    entries.push(entry);
    parent = entry.id;
  }
  return entries;
}
