import { appendFileSync } from "node:fs";
import type { StoredEntry } from "@arbor/session-store";
import { expect, it, vi } from "vitest";
import { chain, header, openStore, temporaryHome, userEntry } from "./helpers.js";

function collect() {
  const ids: string[] = [];
  return {
    ids,
    onAppend: (entries: readonly StoredEntry[]) => ids.push(...entries.map((entry) => entry.id)),
  };
}

it("follows appends made through another store on the same home, once each", async () => {
  const home = temporaryHome();
  const writer = openStore({ home, durability: "flush" });
  await writer.createSession(header("watched"));
  await writer.appendEntries("watched", chain("a", 2));
  const follower = openStore({ home, readOnly: true });
  const seen = collect();
  const watch = await follower.watch("watched", seen.onAppend);
  await writer.appendEntries("watched", chain("b", 3, "a2"));
  await writer.appendEntries("watched", chain("c", 1, "b3"));
  await vi.waitFor(() => expect(seen.ids).toHaveLength(4), { timeout: 5000, interval: 10 });
  expect(seen.ids).toEqual(["b1", "b2", "b3", "c1"]);
  await watch.close();
});

it("delivers lines another program appends, and waits for a torn line to be completed", async () => {
  const store = openStore({ durability: "flush" });
  await store.createSession(header("pi-like"));
  const path = store.pathOf("pi-like")!;
  const seen = collect();
  await store.watch("pi-like", seen.onAppend);
  const line = JSON.stringify(userEntry("p1", null));
  appendFileSync(path, line.slice(0, 20));
  await new Promise((done) => setTimeout(done, 100));
  expect(seen.ids).toEqual([]);
  appendFileSync(path, `${line.slice(20)}\n`);
  await vi.waitFor(() => expect(seen.ids).toEqual(["p1"]), { timeout: 5000, interval: 10 });
  await store.close(); // Stops the watch too.
  appendFileSync(path, `${JSON.stringify(userEntry("p2", "p1"))}\n`);
  await new Promise((done) => setTimeout(done, 100));
  expect(seen.ids).toEqual(["p1"]);
});
