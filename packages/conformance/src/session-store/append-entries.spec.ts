import type { SessionEntry, SessionStore, StoredEntry } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import {
  asStored,
  assistantEntry,
  at,
  chain,
  expectCode,
  makeHeader,
  newEntryId,
  newSessionId,
  unknownTypeEntry,
  userEntry,
} from "./fixtures.js";
import type { SessionStoreSuite } from "./session-store-suite.js";

function treeFields(entries: readonly (StoredEntry | SessionEntry)[]) {
  return entries.map(({ type, id, parentId }) => ({ type, id, parentId }));
}

function fullEntries(entries: readonly StoredEntry[]): SessionEntry[] {
  return entries.map((entry) => entry.entry());
}

/** `appendEntries`: round trips, order, atomic batches, `expectedLastEntryId`, unknown ids. */
export function appendEntriesSpec<TStore extends SessionStore>(suite: SessionStoreSuite<TStore>): void {
  describe("appendEntries", () => {
    async function createWith(...batches: SessionEntry[][]): Promise<string> {
      const header = makeHeader();
      await suite.store().createSession(header);
      for (const batch of batches) await suite.store().appendEntries(header.id, batch);
      return header.id;
    }

    it("round-trips a batch: tree fields at hand, full entries from entry()", async () => {
      const entries = chain(6);
      const id = await createWith(entries);
      const read = await suite.store().readSession(id);
      expect(treeFields(read.entries)).toEqual(treeFields(entries));
      expect(fullEntries(read.entries)).toEqual(asStored(entries));
    });

    it("keeps append order across batches", async () => {
      const first = chain(3);
      const second = chain(2, first.at(-1)?.id ?? null, 20);
      const third = [assistantEntry(second.at(-1)?.id ?? null, "last", at(30))];
      const id = await createWith(first, second, third);
      const read = await suite.store().readSession(id);
      expect(read.entries.map((entry) => entry.id)).toEqual(
        [...first, ...second, ...third].map((entry) => entry.id),
      );
    });

    it("stores the tree as given, without interpreting it", async () => {
      const root = userEntry(null, "first root");
      const secondRoot = userEntry(null, "second root");
      const dangling = assistantEntry("missing0", "parent does not exist");
      const branch = [userEntry(root.id, "child A"), userEntry(root.id, "child B")];
      const id = await createWith([root, secondRoot, dangling, ...branch]);
      const read = await suite.store().readSession(id);
      expect(treeFields(read.entries)).toEqual([
        { type: "message", id: root.id, parentId: null },
        { type: "message", id: secondRoot.id, parentId: null },
        { type: "message", id: dangling.id, parentId: "missing0" },
        { type: "message", id: branch[0]?.id, parentId: root.id },
        { type: "message", id: branch[1]?.id, parentId: root.id },
      ]);
    });

    it("preserves unknown fields and unknown entry types", async () => {
      const message = userEntry(null, "with extras") as SessionEntry & Record<string, unknown>;
      message["x-client"] = { name: "conformance", tags: ["a"] };
      (message as { message: Record<string, unknown> }).message.x_note = { kept: true };
      const future = unknownTypeEntry(message.id);
      const label = {
        type: "label",
        id: newEntryId(),
        parentId: future.id,
        timestamp: at(7),
        targetId: message.id,
      };
      const id = await createWith([message, future, label as SessionEntry]);
      const read = await suite.store().readSession(id);
      expect(read.entries.map((entry) => entry.type)).toEqual(["message", "x-conformance-future", "label"]);
      expect(fullEntries(read.entries)).toEqual(asStored([message, future, label]));
    });

    it("round-trips a prune entry (a known type since the pruning layer) like any other", async () => {
      const [question, answer] = chain(2);
      const prune = {
        type: "prune",
        id: newEntryId(),
        parentId: answer!.id,
        timestamp: at(8),
        entryIds: [answer!.id],
        tokensBefore: 48_210,
        tokensAfter: 1_234,
        details: { reason: "threshold", freedTokens: 46_976 },
      } as SessionEntry;
      const id = await createWith([question!, answer!, prune]);
      const read = await suite.store().readSession(id);
      expect(treeFields(read.entries).at(-1)).toEqual({ type: "prune", id: prune.id, parentId: answer!.id });
      expect(fullEntries(read.entries)).toEqual(asStored([question, answer, prune]));
    });

    it("returns one object per entry from entry(), equal to what was appended", async () => {
      const entries = chain(4);
      const id = await createWith(entries);
      const read = await suite.store().readSession(id);
      for (const [index, stored] of read.entries.entries()) {
        const entry = stored.entry();
        expect(stored.entry()).toBe(entry);
        expect(entry).toEqual(asStored(entries[index]));
        expect({ type: stored.type, id: stored.id, parentId: stored.parentId }).toEqual({
          type: entry.type,
          id: entry.id,
          parentId: entry.parentId,
        });
      }
    });

    it("round-trips a large batch of large entries", async () => {
      const entries = chain(400, null, 100, 2000);
      const id = await createWith(entries);
      const read = await suite.store().readSession(id);
      expect(read.entries).toHaveLength(400);
      expect(read.entries[399]?.entry()).toEqual(asStored(entries[399]));
      expect(read.entries[0]?.entry()).toEqual(asStored(entries[0]));
    });

    it("appends when expectedLastEntryId matches: null for an empty session, then the last id", async () => {
      const store = suite.store();
      const id = await createWith();
      const first = chain(2);
      await store.appendEntries(id, first, { expectedLastEntryId: null });
      const second = chain(2, first.at(-1)?.id ?? null, 20);
      await store.appendEntries(id, second, { expectedLastEntryId: first.at(-1)?.id ?? null });
      expect((await store.readSession(id)).entries).toHaveLength(4);
    });

    it("throws SessionConflictError for a stale expectedLastEntryId and writes nothing", async () => {
      const store = suite.store();
      const first = chain(2);
      const id = await createWith(first);
      const error = (await expectCode(
        store.appendEntries(id, chain(1, null, 50), { expectedLastEntryId: null }),
        "session_conflict",
      )) as { expectedLastEntryId?: unknown; actualLastEntryId?: unknown };
      expect(error.expectedLastEntryId).toBeNull();
      expect(error.actualLastEntryId).toBe(first.at(-1)?.id);
      await expectCode(
        store.appendEntries(id, chain(1, null, 50), { expectedLastEntryId: first[0]?.id ?? null }),
        "session_conflict",
      );
      await expectCode(
        store.appendEntries(id, chain(1, null, 50), { expectedLastEntryId: "ffffffff" }),
        "session_conflict",
      );
      expect((await store.readSession(id)).entries.map((entry) => entry.id)).toEqual(
        first.map((entry) => entry.id),
      );
    });

    it("lets exactly one of two concurrent appends with the same expectation through", async () => {
      const store = suite.store();
      const base = chain(1);
      const id = await createWith(base);
      const expected = base[0]?.id ?? null;
      const left = chain(3, expected, 20);
      const right = chain(3, expected, 40);
      const results = await Promise.allSettled([
        store.appendEntries(id, left, { expectedLastEntryId: expected }),
        store.appendEntries(id, right, { expectedLastEntryId: expected }),
      ]);
      const fulfilled = results.filter((result) => result.status === "fulfilled");
      const rejected = results.filter((result) => result.status === "rejected");
      expect(fulfilled).toHaveLength(1);
      expect(rejected).toHaveLength(1);
      expect((rejected[0] as PromiseRejectedResult).reason).toMatchObject({ code: "session_conflict" });
      const winner = results[0]?.status === "fulfilled" ? left : right;
      expect((await store.readSession(id)).entries.map((entry) => entry.id)).toEqual(
        [...base, ...winner].map((entry) => entry.id),
      );
    });

    it("appends without a check when expectedLastEntryId is omitted", async () => {
      const store = suite.store();
      const id = await createWith(chain(1));
      await store.appendEntries(id, chain(1, null, 30));
      expect((await store.readSession(id)).entries).toHaveLength(2);
    });

    it("stores nothing of a batch that fails (a value that is not JSON data)", async () => {
      const store = suite.store();
      const first = chain(2);
      const id = await createWith(first);
      const bad = chain(3, first.at(-1)?.id ?? null, 20);
      (bad[1] as SessionEntry & Record<string, unknown>).size = 10n;
      await expect(store.appendEntries(id, bad)).rejects.toThrow();
      const read = await store.readSession(id);
      expect(read.entries.map((entry) => entry.id)).toEqual(first.map((entry) => entry.id));
      // The session still takes appends afterwards.
      await store.appendEntries(id, chain(1, first.at(-1)?.id ?? null, 40), {
        expectedLastEntryId: first.at(-1)?.id ?? null,
      });
      expect((await store.readSession(id)).entries).toHaveLength(3);
    });

    it("treats an empty batch as a no-op", async () => {
      const store = suite.store();
      const first = chain(2);
      const id = await createWith(first);
      await store.appendEntries(id, [], { expectedLastEntryId: first.at(-1)?.id ?? null });
      await store.appendEntries(id, []);
      expect((await store.readSession(id)).entries).toHaveLength(2);
    });

    it("is not changed by later mutation of the appended objects", async () => {
      const store = suite.store();
      const entries = chain(2);
      const expected = asStored(entries);
      const id = await createWith(entries);
      (entries[0] as { message: { content: unknown } }).message.content = "mutated";
      (entries[1] as SessionEntry & Record<string, unknown>).extra = "added";
      expect(fullEntries((await store.readSession(id)).entries)).toEqual(expected);
    });

    it("throws SessionNotFoundError for an unknown session", async () => {
      await expectCode(suite.store().appendEntries(newSessionId(), chain(1)), "session_not_found");
    });
  });
}
