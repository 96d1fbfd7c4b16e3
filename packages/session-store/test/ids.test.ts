import { describe, expect, it } from "vitest";
import { generateEntryId, generateSessionId } from "../src/index.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("ids", () => {
  it("entry ids are 8 lowercase hex characters, random and never one already taken", () => {
    const taken = new Set<string>();
    for (let index = 0; index < 2000; index++) {
      const id = generateEntryId(taken);
      expect(id).toMatch(/^[0-9a-f]{8}$/);
      expect(taken.has(id)).toBe(false);
      taken.add(id);
    }
    // Every hex digit shows up in every position: the bytes are random, each rendered as two digits.
    for (let position = 0; position < 8; position++) {
      expect(new Set([...taken].map((id) => id[position])).size).toBe(16);
    }
  });

  it("an entry id falls back to a UUID when every short id is taken", () => {
    let asked = 0;
    const id = generateEntryId({ has: () => ++asked > 0 });
    expect(asked).toBe(100);
    expect(id).toMatch(UUID);
  });

  it("session ids are random version-4 UUIDs", () => {
    const ids = new Set(Array.from({ length: 100 }, () => generateSessionId()));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(UUID);
  });
});
