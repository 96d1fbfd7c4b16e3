/**
 * Keys typed while a terminal UI starts are held in raw mode and handed to the UI (src/ui/typeahead.ts), over a
 * stream that stands in for a terminal.
 */
import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { holdTypeahead } from "../src/ui/typeahead.js";

/** A stream with a TTY's `isTTY` and `setRawMode`, recording the modes it was set to. */
function fakeTerminal() {
  const stream = new PassThrough() as PassThrough & { isTTY: boolean; setRawMode(mode: boolean): void };
  const modes: boolean[] = [];
  stream.isTTY = true;
  stream.setRawMode = (mode) => {
    modes.push(mode);
  };
  return { stream, modes };
}

/** Reads what the stream holds now, as ink does on 'readable' (utf8). */
async function readNow(stream: PassThrough): Promise<string> {
  stream.setEncoding("utf8");
  await new Promise((resolve) => setImmediate(resolve));
  let text = "";
  for (let chunk = stream.read() as string | null; chunk !== null; chunk = stream.read() as string | null)
    text += chunk;
  return text;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("holdTypeahead", () => {
  it("switches the terminal to raw mode and hands what was typed to the next reader, in order", async () => {
    const { stream, modes } = fakeTerminal();
    const typeahead = holdTypeahead(stream, () => {
      throw new Error("not interrupted");
    });
    expect(modes).toEqual([true]);
    stream.write("fix the ");
    await tick();
    stream.write("tests\r");
    typeahead!.release();
    stream.write("later");
    expect(await readNow(stream)).toBe("fix the tests\rlater");
    // The UI takes raw mode over; holding left it on.
    expect(modes).toEqual([true]);
  });

  it("turns a line typed before raw mode (Enter made a newline) into Enter", async () => {
    const { stream } = fakeTerminal();
    const typeahead = holdTypeahead(stream);
    stream.write("/quit\n");
    await tick();
    typeahead!.release();
    expect(await readNow(stream)).toBe("/quit\r");
  });

  it("keeps multi-byte characters whole across chunks", async () => {
    const { stream } = fakeTerminal();
    const typeahead = holdTypeahead(stream);
    const bytes = Buffer.from("héllo ✓", "utf8");
    stream.write(bytes.subarray(0, 2));
    await tick();
    stream.write(bytes.subarray(2));
    typeahead!.release();
    expect(await readNow(stream)).toBe("héllo ✓");
  });

  it("interrupts on Ctrl-C with the terminal back in line mode", async () => {
    const { stream, modes } = fakeTerminal();
    const interrupt = vi.fn();
    const typeahead = holdTypeahead(stream, interrupt);
    stream.write("abc\u0003");
    await tick();
    expect(interrupt).toHaveBeenCalledTimes(1);
    expect(modes).toEqual([true, false]);
    expect(stream.isPaused()).toBe(true);
    // Later calls change nothing.
    typeahead!.release();
    typeahead!.cancel();
    expect(modes).toEqual([true, false]);
  });

  it("cancel puts the terminal back in line mode and stops reading; release after it does nothing", async () => {
    const { stream, modes } = fakeTerminal();
    const typeahead = holdTypeahead(stream);
    stream.write("typed");
    await tick();
    typeahead!.cancel();
    expect(modes).toEqual([true, false]);
    expect(stream.isPaused()).toBe(true);
    expect(stream.listenerCount("readable")).toBe(0);
    typeahead!.release();
    typeahead!.cancel();
    expect(modes).toEqual([true, false]);
  });

  it("does nothing when the input is not a terminal", () => {
    const stream = new PassThrough();
    expect(holdTypeahead(stream)).toBeUndefined();
    expect(stream.listenerCount("readable")).toBe(0);
  });
});
