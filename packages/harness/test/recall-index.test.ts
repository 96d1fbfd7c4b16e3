import type { AssistantMessage } from "@arbor/ai-providers";
import { MemorySessionStore, Session } from "@arbor/session-store";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { RecallIndex } from "../src/recall-index.js";
import type { RecallToolArguments } from "../src/recall-parameters.js";
import { recall } from "../src/recall-query.js";

const WORDS = ["alpha", "Bravo", "charlie", "DELTA", "echo"];

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

/** One change to the session. */
type Step =
  | { kind: "message"; word: number; count: number }
  | { kind: "compaction"; pick: number }
  | { kind: "move"; pick: number; summary: boolean }
  | { kind: "label"; pick: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("message" as const),
      word: fc.nat({ max: WORDS.length - 1 }),
      count: fc.integer({ min: 1, max: 6 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("compaction" as const), pick: fc.nat({ max: 1_000 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("move" as const),
      pick: fc.nat({ max: 1_000 }),
      summary: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("label" as const), pick: fc.nat({ max: 1_000 }) }) },
);

function apply(session: Session, next: Step, at: number): void {
  const path = session.getPath().map((ref) => ref.id);
  switch (next.kind) {
    case "message":
      for (let index = 0; index < next.count; index++) {
        const word = WORDS[(next.word + index) % WORDS.length]!;
        session.appendMessage({ role: "user", content: `${word} question ${at}.${index}`, timestamp: at });
        session.appendMessage(assistant(`${word} ${WORDS[index % WORDS.length]} answer ${at}.${index}`));
      }
      return;
    case "compaction":
      if (path.length > 2) {
        session.appendCompaction({
          summary: `summary ${at}`,
          firstKeptEntryId: path[next.pick % path.length]!,
          tokensBefore: 1_000,
        });
      }
      return;
    case "move": {
      if (path.length === 0) return;
      const target = next.pick % path.length;
      // A summary of the branch left names it (as the harness writes it), so its entries can be recalled.
      const covered = { firstEntryId: path[target + 1] ?? path[target]!, lastEntryId: path.at(-1)! };
      session.moveTo(
        path[target]!,
        next.summary ? { summary: `left ${at}`, details: { covered } } : undefined,
      );
      return;
    }
    case "label":
      if (path.length > 0) session.appendLabel(path[next.pick % path.length]!, `tag ${at}`);
      return;
  }
}

/** The queries compared after each step. */
function queries(session: Session): RecallToolArguments[] {
  const compactions = session
    .getPath()
    .filter((ref) => ref.type === "compaction")
    .map((ref) => ref.id);
  return [
    {},
    { query: "alpha" },
    { query: "bravo charlie" },
    { query: "DELTA answer", limit: 3 },
    { query: "question", limit: 2, offset: 10 },
    ...compactions.slice(-1).map((compactionId) => ({ compactionId, query: "echo" })),
    ...compactions.slice(0, 1).map((compactionId) => ({ compactionId })),
  ];
}

describe("recall's kept texts and scope", () => {
  test("after appends, compactions, labels and branch switches, kept answers equal uncached ones", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 1, maxLength: 30 }),
        fc.boolean(),
        async (steps, small) => {
          const session = await Session.create(new MemorySessionStore(), { cwd: "/p" });
          // A small bound keeps only some texts: the rest are rendered at each query, with the same answers.
          const index = new RecallIndex(session, small ? 200 : undefined);
          for (const [at, next] of steps.entries()) {
            apply(session, next, at);
            for (const args of queries(session)) {
              expect(recall(session, args, 4_000, index)).toEqual(recall(session, args, 4_000));
            }
            expect(index.keptChars).toBeLessThanOrEqual(small ? 200 : Number.POSITIVE_INFINITY);
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  test("a repeated query reads the kept texts; appends down the branch extend the kept scope", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/p" });
    for (let index = 0; index < 20; index++) {
      session.appendMessage({ role: "user", content: `Alpha ${index}`, timestamp: index });
      session.appendMessage(assistant(`answer ${index}`));
    }
    session.appendCompaction({
      summary: "s",
      firstKeptEntryId: session.getPath().at(-4)!.id,
      tokensBefore: 1,
    });
    const index = new RecallIndex(session);
    const first = index.scope();
    const answer = recall(session, { query: "alpha" }, 20_000, index);
    expect(answer.details?.matchCount).toBe(18);
    expect(index.keptChars).toBeGreaterThan(0);
    const kept = index.keptChars;
    session.appendMessage({ role: "user", content: "Alpha again", timestamp: 99 });
    // The same scope object, extended: the new entry is on the path, not recallable.
    expect(index.scope()).toBe(first);
    expect(first.scope.positions.has(session.leafId!)).toBe(true);
    expect(recall(session, { query: "alpha" }, 20_000, index)).toEqual(answer);
    expect(index.keptChars).toBe(kept);
  });
});
