import type { AssistantMessage } from "@arbor/ai-providers";
import { MemorySessionStore, Session } from "@arbor/session-store";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { pathTail } from "../src/operations/path-tail.js";

function assistant(text: string): AssistantMessage {
  return {
    role: "assistant",
    content: [{ type: "text", text }],
    api: "test",
    provider: "test",
    model: "test",
    usage: {
      input: 1,
      output: 1,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 2,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "stop",
    timestamp: 1,
  };
}

/** A change: appends, or a move of the leaf to an earlier entry (with or without a summary). */
const step = fc.oneof(
  fc.record({ kind: fc.constant("append" as const), count: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant("move" as const), pick: fc.nat({ max: 1_000 }), summary: fc.boolean() }),
);

describe("pathTail", () => {
  test("after appends and leaf moves, the path length and tail equal the path's", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 25 }), async (steps) => {
        const session = await Session.create(new MemorySessionStore(), { cwd: "/p" });
        const ids: string[] = [];
        for (const [at, next] of steps.entries()) {
          if (next.kind === "append") {
            for (let index = 0; index < next.count; index++) {
              const entry =
                index % 2 === 0
                  ? session.appendMessage({ role: "user", content: `q ${at}.${index}`, timestamp: at })
                  : session.appendMessage(assistant(`a ${at}.${index}`));
              ids.push(entry.id);
            }
          } else if (ids.length > 0) {
            session.moveTo(ids[next.pick % ids.length]!, next.summary ? `left ${at}` : undefined);
          }
          const path = session.getPath();
          expect(session.pathLength()).toBe(path.length);
          const tail = pathTail(session, 5);
          expect(tail.earlier).toBe(Math.max(0, path.length - 5));
          expect(tail.entries.map((entry) => [entry.id, entry.type, entry.parentId])).toEqual(
            path.slice(-5).map((ref) => [ref.id, ref.type, ref.parentId]),
          );
        }
      }),
      { numRuns: 100 },
    );
  });
});
