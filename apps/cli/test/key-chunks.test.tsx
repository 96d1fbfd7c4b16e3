import { type Key, Text, useInput } from "ink";
import { render } from "ink-testing-library";
import type { ReactNode } from "react";
import { describe, expect, test } from "vitest";
import {
  controlKey,
  KeyReader,
  PASTE_END,
  PASTE_START,
  plainKey,
  splitChunk,
  type TerminalKey,
} from "../src/ui/key-chunks.js";
import { tick } from "./ui-helpers.js";

/** A key as a short word list, to compare: its input and the flags that are on. */
function describeKey({ input, key, paste }: TerminalKey): string {
  const flags = Object.entries(key)
    .filter(([, on]) => on === true)
    .map(([name]) => name);
  return `${JSON.stringify(input)}${flags.length > 0 ? ` ${flags.join("+")}` : ""}${paste ? " paste" : ""}`;
}

/** Records what ink's own useInput gives. */
function Probe(props: { keys: TerminalKey[] }): ReactNode {
  useInput((input: string, key: Key) => {
    props.keys.push({ input, key });
  });
  return <Text>probe</Text>;
}

/** What ink's own useInput gives for each chunk written alone. */
async function inkKeys(chunks: readonly string[]): Promise<TerminalKey[]> {
  const keys: TerminalKey[] = [];
  const app = render(<Probe keys={keys} />);
  await tick();
  for (const chunk of chunks) {
    app.stdin.write(chunk);
    await tick();
  }
  app.unmount();
  return keys;
}

describe("keys out of a chunk", () => {
  test("each control character is the key ink makes of it alone", async () => {
    const controls = [
      0,
      ...Array.from({ length: 26 }, (_, index) => index + 1),
      0x1c,
      0x1d,
      0x1e,
      0x1f,
      0x7f,
    ].map((code) => String.fromCharCode(code));
    const ink = await inkKeys(controls);
    expect(ink).toHaveLength(controls.length);
    expect(controls.map((character) => describeKey(controlKey(character)))).toEqual(ink.map(describeKey));
  });

  test("text runs stay one key, each control character is its own, in order", () => {
    expect(splitChunk("abc\u007f\u007fZ").map(describeKey)).toEqual([
      '"abc"',
      '"" delete',
      '"" delete',
      '"Z" shift',
    ]);
    expect(splitChunk("abc\u0001Q").map(describeKey)).toEqual(['"abc"', '"a" ctrl', '"Q" shift']);
    expect(splitChunk("some draft text\u0015/quit\r").map(describeKey)).toEqual([
      '"some draft text"',
      '"u" ctrl',
      '"/quit"',
      '"\\r" return',
    ]);
    expect(splitChunk("hello\r").map(describeKey)).toEqual(['"hello"', '"\\r" return']);
    expect(splitChunk("a\tb").map(describeKey)).toEqual(['"a"', '"" tab', '"b"']);
    expect(splitChunk("héllo wörld 🌳").map(describeKey)).toEqual(['"héllo wörld 🌳"']);
  });

  test("a chunk of text with two or more line breaks is a paste (a terminal without bracketed paste)", () => {
    expect(splitChunk("one\ntwo\nthree").map(describeKey)).toEqual(['"one\\ntwo\\nthree" paste']);
    expect(splitChunk("one\r\ntwo\r\n\tindented").map(describeKey)).toEqual([
      '"one\\r\\ntwo\\r\\n\\tindented" paste',
    ]);
    // One line break: text then Enter. Another control character: keys.
    expect(splitChunk("one\rtwo").map(describeKey)).toEqual(['"one"', '"\\r" return', '"two"']);
    expect(splitChunk("a\rb\r\u007f").map(describeKey)).toEqual([
      '"a"',
      '"\\r" return',
      '"b"',
      '"\\r" return',
      '"" delete',
    ]);
  });

  test("a bracketed paste is one key, whatever it holds and however many events it comes in", () => {
    const reader = new KeyReader();
    const none = plainKey();
    expect(reader.read(PASTE_START, "[200~", none)).toEqual([]);
    expect(reader.read("line one\r", "line one\r", none)).toEqual([]);
    expect(reader.read("\u001b[A", "", plainKey({ upArrow: true }))).toEqual([]);
    expect(reader.read("\tline two", "\tline two", none)).toEqual([]);
    expect(reader.read(PASTE_END, "[201~", none).map(describeKey)).toEqual([
      '"line one\\r\\u001b[A\\tline two" paste',
    ]);
    // After it, keys again; an escape sequence keeps ink's key; an empty paste is nothing.
    expect(reader.read("x\r", "x\r", none).map(describeKey)).toEqual(['"x"', '"\\r" return']);
    expect(reader.read("\u001b[A", "", plainKey({ upArrow: true })).map(describeKey)).toEqual(['"" upArrow']);
    expect(reader.read(PASTE_START, "[200~", none)).toEqual([]);
    expect(reader.read(PASTE_END, "[201~", none)).toEqual([]);
    expect(reader.read(PASTE_END, "[201~", none)).toEqual([]);
    expect(reader.read("q", "q", none).map(describeKey)).toEqual(['"q"']);
  });
});
