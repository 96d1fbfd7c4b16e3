import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  escapeControlCharactersInStrings,
  parsePartialJson,
  StreamingJsonParser,
} from "../src/partial-json.js";

/** True when `partial` could be what a prefix of `final`'s JSON parses to. */
function isPrefixOf(partial: unknown, final: unknown): boolean {
  if (typeof partial === "string") return typeof final === "string" && final.startsWith(partial);
  if (typeof partial === "number") return typeof final === "number";
  if (Array.isArray(partial)) {
    return (
      Array.isArray(final) &&
      partial.length <= final.length &&
      partial.every((item, index) => isPrefixOf(item, final[index]))
    );
  }
  if (partial !== null && typeof partial === "object") {
    if (final === null || typeof final !== "object" || Array.isArray(final)) return false;
    const record = final as Record<string, unknown>;
    return Object.entries(partial).every(
      ([key, item]) => Object.hasOwn(record, key) && isPrefixOf(item, record[key]),
    );
  }
  return partial === final;
}

function feed(text: string, size: number): StreamingJsonParser {
  const parser = new StreamingJsonParser();
  for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size));
  return parser;
}

describe("StreamingJsonParser", () => {
  it("parses complete JSON exactly, whatever the chunking", () => {
    const value = {
      path: "src/a.ts",
      edits: [{ oldText: 'a "quoted"\n\ttab', newText: "é 😀 \u0001" }],
      n: -12.5e3,
      flags: [true, false, null],
      nested: { empty: {}, list: [] },
    };
    const text = JSON.stringify(value);
    for (const size of [1, 2, 3, 7, 16, text.length]) {
      const result = feed(text, size).finish();
      expect(result).toEqual({ value, complete: true, repaired: false });
    }
  });

  it("exposes the partial object while streaming, strings in progress included", () => {
    const parser = new StreamingJsonParser();
    parser.push('{"path": "src/');
    expect(parser.value).toEqual({ path: "src/" });
    parser.push('index.ts", "content": "line 1\\nli');
    expect(parser.value).toEqual({ path: "src/index.ts", content: "line 1\nli" });
    parser.push('ne 2", "count": 4');
    expect(parser.value).toEqual({ path: "src/index.ts", content: "line 1\nline 2", count: 4 });
    parser.push('2, "ok": tr');
    expect(parser.value).toEqual({ path: "src/index.ts", content: "line 1\nline 2", count: 42 });
    parser.push("ue}");
    expect(parser.finish().value).toEqual({
      path: "src/index.ts",
      content: "line 1\nline 2",
      count: 42,
      ok: true,
    });
  });

  it("keeps keys out until their value starts, and arrays grow element by element", () => {
    const parser = new StreamingJsonParser();
    parser.push('{"items": [1, "tw');
    expect(parser.value).toEqual({ items: [1, "tw"] });
    parser.push('o", {"k"');
    expect(parser.value).toEqual({ items: [1, "two", {}] });
    parser.push(": [nu");
    expect(parser.value).toEqual({ items: [1, "two", { k: [] }] });
    parser.push("ll]}]}");
    expect(parser.finish()).toEqual({
      value: { items: [1, "two", { k: [null] }] },
      complete: true,
      repaired: false,
    });
  });

  it("decodes escapes split across deltas, surrogate pairs included", () => {
    const parser = feed('{"s": "a\\u00e9\\ud83d\\ude00\\\\\\"b"}', 1);
    expect(parser.finish().value).toEqual({ s: 'aé😀\\"b' });
  });

  it("repairs raw control characters inside strings", () => {
    const raw = '{"content": "line 1\nline 2\ttabbed"}';
    expect(() => JSON.parse(raw)).toThrow();
    const parser = feed(raw, 5);
    expect(parser.value).toEqual({ content: "line 1\nline 2\ttabbed" });
    expect(parser.finish().value).toEqual({ content: "line 1\nline 2\ttabbed" });
    expect(escapeControlCharactersInStrings(raw)).toBe('{"content": "line 1\\nline 2\\ttabbed"}');
  });

  it("reports incomplete input with the best partial value", () => {
    const result = parsePartialJson('{"a": [1, 2], "b": "unterminated');
    expect(result.complete).toBe(false);
    expect(result.value).toEqual({ a: [1, 2], b: "unterminated" });
    expect(result.error).toMatch(/incomplete/);
  });

  it("reports invalid input with a position and keeps what parsed before it", () => {
    const result = parsePartialJson('{"a": 1, "b": ?}');
    expect(result.complete).toBe(false);
    expect(result.value).toEqual({ a: 1 });
    expect(result.error).toMatch(/unexpected "\?".*character 14/);
    expect(parsePartialJson("").error).toBe("empty input");
    expect(parsePartialJson('{"a": 1}}').complete).toBe(false);
    expect(parsePartialJson("[1, 2").value).toEqual([1, 2]);
    expect(parsePartialJson('{"x": nul').value).toEqual({});
    expect(parsePartialJson('{"x": nope}').complete).toBe(false);
  });

  it("treats a __proto__ key as data, like JSON.parse", () => {
    const value = parsePartialJson('{"__proto__": {"polluted": true}}').value as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("accepts top-level scalars and whitespace", () => {
    expect(parsePartialJson("  42 ").value).toBe(42);
    expect(parsePartialJson('"text"').value).toBe("text");
    expect(parsePartialJson("\n[ ]\n").value).toEqual([]);
  });

  it("equals JSON.parse for any JSON value in any chunking (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 9 }), (value, size) => {
        const text = JSON.stringify(value, null, size % 3 === 0 ? 2 : undefined);
        const result = feed(text, size).finish();
        expect(result.complete).toBe(true);
        expect(result.value).toEqual(JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });

  it("never throws and always holds a value consistent with a prefix (property)", () => {
    fc.assert(
      fc.property(fc.object(), fc.integer({ min: 1, max: 5 }), (value, size) => {
        const text = JSON.stringify(value);
        const final: unknown = JSON.parse(text);
        const parser = new StreamingJsonParser();
        for (let i = 0; i < text.length; i += size) {
          parser.push(text.slice(i, i + size));
          expect(parser.failed).toBe(false);
          expect(isPrefixOf(parser.value, final)).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
