import { describe, expect, it } from "vitest";
import { MISSING_TOOL_RESULT_TEXT, ToolPairing, type ToolPairingOptions } from "../src/tool-pairing.js";
import type { Message, ToolResultMessage, UserMessage } from "../src/types.js";

interface Note {
  kind: string;
  from: string;
  id?: string;
}

/** A message stand-in: the pairing only reads `timestamp` of what is not a result. */
interface Plain {
  role: "user" | "assistant";
  tag: string;
  timestamp: number;
}

function result(toolCallId: string, timestamp: number): ToolResultMessage {
  return { role: "toolResult", toolCallId, toolName: "t", content: [], isError: false, timestamp };
}

function run(
  options: Pick<ToolPairingOptions<Plain, string>, "order" | "syntheticTimestamp">,
  feed: (pairing: ToolPairing<Plain, string>) => void,
) {
  const out: { what: string; from: string; timestamp: number }[] = [];
  const notes: Note[] = [];
  const pairing = new ToolPairing<Plain, string>({
    ...options,
    emit: (message, from) => {
      const what =
        message.role === "toolResult"
          ? `${message.isError ? "synthetic" : "result"}:${message.toolCallId}`
          : (message as Plain).tag;
      if (message.role === "toolResult" && message.isError) {
        expect(message.content).toEqual([{ type: "text", text: MISSING_TOOL_RESULT_TEXT }]);
      }
      out.push({ what, from, timestamp: message.timestamp });
    },
    orphan: (message, from) => notes.push({ kind: "orphan", from, id: message.toolCallId }),
    missing: (call, from) => notes.push({ kind: "missing", from, id: call.id }),
    moved: (_message, from) => notes.push({ kind: "moved", from }),
  });
  feed(pairing);
  pairing.close();
  return { out, notes };
}

/** Declares calls (id → out id) and opens the assistant turn `A` at timestamp 10. */
function openA(pairing: ToolPairing<Plain, string>, calls: Record<string, string>): void {
  for (const [id, outId] of Object.entries(calls)) pairing.call(id, outId, "t");
  pairing.open(plain("A", 10, "assistant"), "e0");
}

const plain = (tag: string, timestamp: number, role: Plain["role"] = "user"): Plain => ({
  role,
  tag,
  timestamp,
});

describe("ToolPairing", () => {
  it("in call order: results follow their calls, a synthetic one in its call's place, held messages after", () => {
    const { out, notes } = run({}, (pairing) => {
      openA(pairing, { a: "a", b: "b_2", c: "c" });
      pairing.message(plain("U", 11), "e1");
      pairing.result(result("c", 12), "e2");
      pairing.result(result("c", 13), "e3"); // a second result for one call
      pairing.result(result("a", 14), "e4");
      pairing.message(plain("V", 15), "e5");
      pairing.open(plain("B", 16, "assistant"), "e6"); // closes the first turn: b is unanswered
      pairing.result(result("a", 17), "e7"); // B made no call
    });
    expect(out).toEqual([
      { what: "A", from: "e0", timestamp: 10 },
      { what: "result:a", from: "e4", timestamp: 14 },
      { what: "synthetic:b_2", from: "e0", timestamp: 10 },
      { what: "result:c", from: "e2", timestamp: 12 },
      { what: "U", from: "e1", timestamp: 11 },
      { what: "V", from: "e5", timestamp: 15 },
      { what: "B", from: "e6", timestamp: 16 },
    ]);
    expect(notes).toEqual([
      { kind: "orphan", from: "e3", id: "c" },
      { kind: "missing", from: "e0", id: "b" },
      { kind: "moved", from: "e1" }, // V came after the last result: not moved
      { kind: "orphan", from: "e7", id: "a" },
    ]);
  });

  it("in arrival order: results as they came, synthetic ones after them with the previous timestamp", () => {
    const { out } = run({ order: "arrival", syntheticTimestamp: "previous" }, (pairing) => {
      openA(pairing, { a: "a", b: "b", c: "c" });
      pairing.result(result("c", 12), "e1");
      pairing.result(result("a", 14), "e2");
      pairing.close(); // a caller that ends the turn on a user message
      pairing.message(plain("U", 20), "e3");
      pairing.call("d", "d", "t");
      pairing.open(plain("B", 30, "assistant"), "e4");
    });
    expect(out.map(({ what, timestamp }) => `${what}@${timestamp}`)).toEqual([
      "A@10",
      "result:c@12",
      "result:a@14",
      "synthetic:b@14",
      "U@20",
      "B@30",
      "synthetic:d@30",
    ]);
  });

  it("closes a turn as soon as every call is answered, and matches repeated ids in order past 16 calls", () => {
    const { out, notes } = run({}, (pairing) => {
      for (let index = 0; index < 20; index++)
        pairing.call(index % 2 === 0 ? "x" : `y${index}`, `o${index}`, "t");
      pairing.open(plain("A", 1, "assistant"), "a");
      for (let index = 19; index >= 0; index--)
        pairing.result(result(index % 2 === 0 ? "x" : `y${index}`, 2), `r${index}`);
      pairing.message(plain("U", 3), "u");
      pairing.result(result("x", 4), "late");
    });
    const results = out.filter((item) => item.what.startsWith("result:"));
    expect(results.map((item) => item.what)).toEqual(
      Array.from({ length: 20 }, (_, index) => `result:o${index}`),
    );
    // The repeated id "x" answers its calls in order: the first x result (r18) answers call 0.
    expect(results[0]?.from).toBe("r18");
    expect(out.at(-1)).toEqual({ what: "U", from: "u", timestamp: 3 });
    expect(notes).toEqual([{ kind: "orphan", from: "late", id: "x" }]);
  });

  it("never mutates what it is given and renames results by copy", () => {
    const given = result("a", 5);
    const frozen = Object.freeze({ ...given });
    const out: (Message | Plain)[] = [];
    const pairing = new ToolPairing<Plain | UserMessage, undefined>({ emit: (message) => out.push(message) });
    pairing.call("a", "a_2", "t");
    pairing.open(plain("A", 1, "assistant"), undefined);
    pairing.result(frozen, undefined);
    expect(out[1]).toEqual({ ...given, toolCallId: "a_2" });
    expect(out[1]).not.toBe(frozen);
    expect(frozen.toolCallId).toBe("a");
  });
});
