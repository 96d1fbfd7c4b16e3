import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { repairToolPairs, type SessionMessage } from "../src/index.js";
import { assistant, call, result, user } from "./helpers.js";

/** Small id alphabet, so that providers "reusing" ids (within and across turns) is the common case. */
const toolCallId = fc.constantFrom("a", "b", "c", "a_2", "call_1");

const message: fc.Arbitrary<SessionMessage> = fc.oneof(
  fc.constant(user("u")),
  fc.constant(assistant("text")),
  fc.array(toolCallId, { minLength: 1, maxLength: 4 }).map((ids) => assistant(ids.map((id) => call(id)))),
  toolCallId.map((id) => result(id)),
  toolCallId.map((id) => result(id)),
);

describe("repairToolPairs (property)", () => {
  it("leaves no repeated call id, no orphan, and every result right after its call's turn, in call order", () => {
    fc.assert(
      fc.property(fc.array(message, { maxLength: 30 }), (messages) => {
        const input = messages.map((value, index) => ({ message: value, entryId: `e${index}` }));
        const before = JSON.stringify(input);
        const output = repairToolPairs(input).items.map((item) => item.message);
        expect(JSON.stringify(input)).toBe(before); // the input is never mutated

        const seen = new Set<string>();
        for (let index = 0; index < output.length; index++) {
          const current = output[index]!;
          if (current.role === "toolResult") {
            // A result is only ever emitted as part of its call's block, checked below.
            throw new Error(`result ${current.toolCallId} at ${index} does not follow its call`);
          }
          if (current.role !== "assistant") continue;
          const ids = current.content.flatMap((block) => (block.type === "toolCall" ? [block.id] : []));
          for (const id of ids) {
            expect(seen.has(id)).toBe(false); // no id twice in the whole context
            seen.add(id);
          }
          // The results of the calls follow at once, one per call, in the calls' order.
          const results = output.slice(index + 1, index + 1 + ids.length);
          expect(results.map((next) => (next.role === "toolResult" ? next.toolCallId : next.role))).toEqual(
            ids,
          );
          index += ids.length;
        }
      }),
      { numRuns: 500 },
    );
  });
});
