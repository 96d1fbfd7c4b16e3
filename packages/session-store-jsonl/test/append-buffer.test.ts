import { readFileSync } from "node:fs";
import type { SessionEntry } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { AppendBuffer } from "../src/append-buffer.js";
import { chain, header, openStore, userEntry } from "./helpers.js";

describe("AppendBuffer", () => {
  it("encodes text as UTF-8 (surrogate pairs, a lone surrogate) and grows past its first capacity", () => {
    const out = new AppendBuffer();
    const texts = ["plain", "é ü 中文", "emoji 😀", "lone \ud800 surrogate", "x".repeat(200_000), "ok"];
    for (const text of texts) {
      out.text(text);
      out.pair(0x09, 0x0a);
    }
    const expected = Buffer.from(texts.map((text) => `${text}\t\n`).join(""), "utf8");
    expect(out.length).toBe(expected.length);
    expect(out.bytes.subarray(0, out.length).equals(expected)).toBe(true);
  });

  it("drops a truncated tail and gives a very large buffer back once cleared", () => {
    const out = new AppendBuffer();
    out.text("keep");
    const mark = out.length;
    out.text("drop me");
    out.truncate(mark);
    expect(out.bytes.subarray(0, out.length).toString()).toBe("keep");
    out.text("y".repeat(6 * 1024 * 1024));
    const grown = out.bytes.length;
    out.clear();
    expect(out.length).toBe(0);
    expect(out.bytes.length).toBeLessThan(grown);
  });
});

describe("batches held back together", () => {
  it("a batch that is not JSON data is dropped from the burst it was encoded in, nothing else", async () => {
    const store = openStore();
    await store.createSession(header("s1"));
    const bad = [
      userEntry("good-first", null),
      { ...userEntry("bad", null), big: 10n } as unknown as SessionEntry,
    ];
    const results = await Promise.allSettled([
      store.appendEntries("s1", chain("a", 2)),
      store.appendEntries("s1", bad),
      store.appendEntries("s1", chain("b", 2, "a2")),
      store.appendEntries("s1", [userEntry("ü😀", "b2", "multi-byte ü 😀")]),
    ]);
    expect(results.map((result) => result.status)).toEqual([
      "fulfilled",
      "rejected",
      "fulfilled",
      "fulfilled",
    ]);
    const read = await store.readSession("s1");
    expect(read.warnings).toEqual([]);
    expect(read.entries.map((entry) => entry.id)).toEqual(["a1", "a2", "b1", "b2", "ü😀"]);
    const text = readFileSync(store.pathOf("s1")!, "utf8");
    expect(text).not.toContain("good-first");
    expect((await store.listSessions()).sessions[0]).toMatchObject({ messageCount: 5 });
  });
});
