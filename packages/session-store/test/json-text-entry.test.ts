import { describe, expect, it } from "vitest";
import { encodeEntryBatch, JsonTextEntry, listingTime, parseStoredHeader } from "../src/backend.js";
import type { SessionEntry } from "../src/index.js";

describe("JsonTextEntry", () => {
  it("parses its text once, lazily, and checks it against the row's tree columns", () => {
    const text = '{"type":"message","id":"a1","parentId":null,"x":{"kept":[1]}}';
    const entry = new JsonTextEntry("s", 0, "message", "a1", null, text);
    expect(entry.entry()).toEqual({ type: "message", id: "a1", parentId: null, x: { kept: [1] } });
    expect(entry.entry()).toBe(entry.entry());
    const mismatch = new JsonTextEntry("s", 3, "message", "b2", null, text);
    expect(() => mismatch.entry()).toThrow(/row 3 \(entry "b2"\) does not match/);
    const torn = new JsonTextEntry("s", 4, "message", "c3", null, '{"type":');
    expect(() => torn.entry()).toThrowError(expect.objectContaining({ code: "session_corrupt" }));
  });
});

describe("parseStoredHeader", () => {
  it("returns a header for its id and reports anything else as corrupt", () => {
    expect(parseStoredHeader("s", '{"type":"session","id":"s","cwd":"/"}')).toMatchObject({ id: "s" });
    for (const text of ["{not json", '"text"', '{"type":"session","id":"other"}']) {
      expect(() => parseStoredHeader("s", text)).toThrowError(
        expect.objectContaining({ code: "session_corrupt" }),
      );
    }
  });
});

describe("encodeEntryBatch", () => {
  it("serializes each entry and sums up its effect on the listing summary", () => {
    const entries = [
      { type: "message", id: "a", parentId: null, timestamp: "2026-01-01T00:00:01Z", message: {} },
      { type: "session_info", id: "b", parentId: "a", timestamp: "2026-01-01T00:00:02Z", name: "  Named  " },
      { type: "x-future", id: "c", parentId: "b", payload: 1 },
    ] as unknown as SessionEntry[];
    const batch = encodeEntryBatch("s", entries);
    expect(batch.rows.map((row) => [row.type, row.id, row.parentId, row.body])).toEqual(
      entries.map((entry) => [entry.type, entry.id, entry.parentId, JSON.stringify(entry)]),
    );
    expect(batch).toMatchObject({ messages: 1, name: "Named", updatedAt: "2026-01-01T00:00:02Z" });
    const cleared = encodeEntryBatch("s", [
      { type: "session_info", id: "d", parentId: null, name: " " } as never,
    ]);
    expect(cleared.name).toBeNull();
  });

  it("throws invalid_argument, naming the entry, for missing tree fields or values that are not JSON", () => {
    expect(() => encodeEntryBatch("s", [{ type: "message", parentId: null } as never])).toThrowError(
      expect.objectContaining({ code: "invalid_argument", message: expect.stringContaining("entry 0") }),
    );
    expect(() =>
      encodeEntryBatch("s", [{ type: "m", id: "big", parentId: null, n: 1n } as never]),
    ).toThrowError(
      expect.objectContaining({ code: "invalid_argument", message: expect.stringContaining('"big"') }),
    );
  });
});

it("listingTime: milliseconds, 0 when unreadable", () => {
  expect(listingTime("2026-01-01T00:00:00.000Z")).toBe(Date.UTC(2026, 0, 1));
  expect(listingTime("yesterday")).toBe(0);
});
