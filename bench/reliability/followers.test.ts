/**
 * Followers under load: sessions written at once (every save point in flight, several writer stores, as
 * several processes would be) while other store instances follow each session with `watch`. Every
 * follower receives every entry appended after its start exactly once, in order, on every store —
 * PostgreSQL's notifications included (sent only while a session has followers).
 */
import type { SessionEntry, SessionStore, StoredEntry } from "@arbor/session-store";
import { afterAll, describe, expect, it, vi } from "vitest";
import { libraryStore } from "./stored.js";
import { postgresRequiredInCi, record, sandbox, storesUnderTest, trials } from "./support.js";

const SESSIONS = trials(16, 64);
const SAVE_POINTS = trials(40, 200);
const BATCH = 4;
const FOLLOWERS = 2;
const WRITERS = 2;

const opened: SessionStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close?.();
});

function entryOf(session: string, n: number, parentId: string | null): SessionEntry {
  return {
    type: "message",
    id: `${session}-${n}`,
    parentId,
    timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
    message: { role: "user", content: [{ type: "text", text: `entry ${n} of ${session}` }], timestamp: n },
  } as SessionEntry;
}

/** Appends `SAVE_POINTS` batches to a session, one after the other (each guarded by the last id). */
async function write(store: SessionStore, session: string): Promise<string[]> {
  const ids: string[] = [];
  let last: string | null = null;
  for (let point = 0; point < SAVE_POINTS; point++) {
    const batch: SessionEntry[] = [];
    for (let index = 0; index < BATCH; index++) {
      const entry = entryOf(session, point * BATCH + index, last);
      batch.push(entry);
      last = entry.id;
    }
    await store.appendEntries(session, batch, { expectedLastEntryId: ids.at(-1) ?? null });
    ids.push(...batch.map((entry) => entry.id));
  }
  return ids;
}

describe("followers under load", () => {
  const missingPostgres = postgresRequiredInCi();
  if (missingPostgres !== undefined) it("PostgreSQL", () => expect.fail(missingPostgres));
  for (const store of storesUnderTest()) {
    it(`${store.name}: ${SESSIONS} sessions written at once by ${WRITERS} stores, ${FOLLOWERS} followers each: every entry once, in order`, {
      timeout: 120_000,
    }, async () => {
      const box = sandbox();
      const open = () => {
        const instance = libraryStore(store, box);
        opened.push(instance);
        return instance;
      };
      const writers = Array.from({ length: WRITERS }, open);
      const followers = Array.from({ length: FOLLOWERS }, open);
      const sessions = Array.from({ length: SESSIONS }, (_, n) => `follow-${store.name}-${n}-${process.pid}`);
      for (const session of sessions) {
        await writers[0]!.createSession({
          type: "session",
          version: 3,
          id: session,
          timestamp: new Date().toISOString(),
          cwd: box.cwd,
        });
      }
      // What each follower saw of each session, delivery by delivery.
      const seen = new Map<string, string[]>();
      const watches = [];
      for (const [index, follower] of followers.entries()) {
        for (const session of sessions) {
          const key = `${index}:${session}`;
          seen.set(key, []);
          const watch = follower.watch;
          if (watch === undefined) throw new Error(`${store.name} has no watch()`);
          watches.push(
            await watch.call(follower, session, (batch: readonly StoredEntry[]) => {
              seen.get(key)!.push(...batch.map((entry) => entry.id));
            }),
          );
        }
      }
      const written = await Promise.all(sessions.map((session, n) => write(writers[n % WRITERS]!, session)));
      const expected = written.reduce((total, ids) => total + ids.length, 0) * FOLLOWERS;
      const delivered = () => [...seen.values()].reduce((total, ids) => total + ids.length, 0);
      await vi.waitFor(() => expect(delivered()).toBeGreaterThanOrEqual(expected), {
        timeout: 60_000,
        interval: 25,
      });
      // A late duplicate would arrive after the count was reached: give it the time to.
      await new Promise((resolve) => setTimeout(resolve, 300));
      let missed = 0;
      let twice = 0;
      let outOfOrder = 0;
      for (const [key, ids] of seen) {
        const session = key.slice(key.indexOf(":") + 1);
        const want = written[sessions.indexOf(session)]!;
        const unique = new Set(ids);
        twice += ids.length - unique.size;
        missed += want.filter((id) => !unique.has(id)).length;
        if (ids.join(",") !== want.join(",") && unique.size === want.length && ids.length === want.length)
          outOfOrder++;
      }
      for (const watch of watches) await watch.close();
      record({
        category: "followers under load",
        kind: store.name,
        trials: expected,
        failures: missed + twice + outOfOrder,
        lost: missed === 0 ? "nothing" : `${missed} deliveries missed`,
      });
      expect({ delivered: delivered(), missed, twice, outOfOrder }).toEqual({
        delivered: expected,
        missed: 0,
        twice: 0,
        outOfOrder: 0,
      });
    });
  }
});
