import { MemorySessionStore, Session } from "@arbor/session-store";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { SessionGraphCache, type SessionGraphOptions, sessionGraph } from "../src/index.js";
import { assistantMessage } from "./helpers.js";

/** One step of the property test: what is appended, or moved, or expanded. */
type Step =
  | { kind: "user" | "assistant" | "failed" | "settings" }
  | { kind: "label"; pick: number; clear: boolean }
  | { kind: "compaction"; pick: number; covered: boolean }
  | { kind: "move"; pick: number; summary: boolean }
  | { kind: "expand"; pick: number }
  | { kind: "fold"; pick: number }
  | { kind: "burst"; count: number };

const pick = fc.nat({ max: 1_000 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom<Step>({ kind: "user" }, { kind: "assistant" }) },
  { weight: 1, arbitrary: fc.constantFrom<Step>({ kind: "failed" }, { kind: "settings" }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant("burst" as const), count: fc.integer({ min: 2, max: 30 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("label" as const), pick, clear: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("compaction" as const), pick, covered: fc.boolean() }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("move" as const), pick, summary: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("expand" as const), pick }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fold" as const), pick }) },
);

/** Applies a step to the session (and the expanded runs). */
function apply(
  session: Session,
  expanded: Set<string>,
  runIds: readonly string[],
  next: Step,
  at: number,
): void {
  const ids = session.getTree().length === 0 ? [] : allIds(session);
  const path = session.getPath().map((ref) => ref.id);
  switch (next.kind) {
    case "user":
      session.appendMessage({ role: "user", content: `question ${at}`, timestamp: at });
      return;
    case "assistant":
      session.appendMessage(assistantMessage(`answer ${at}`));
      return;
    case "failed":
      session.appendMessage(assistantMessage("", { stopReason: "error", errorMessage: "boom" }));
      return;
    case "settings":
      session.appendThinkingLevelChange(at % 2 === 0 ? "high" : "low");
      return;
    case "burst":
      for (let index = 0; index < next.count; index++) {
        session.appendMessage({ role: "user", content: `more ${at}.${index}`, timestamp: at });
      }
      return;
    case "label":
      if (ids.length > 0)
        session.appendLabel(ids[next.pick % ids.length]!, next.clear ? undefined : `tag ${at}`);
      return;
    case "compaction": {
      if (path.length < 2) return;
      const kept = path[next.pick % path.length]!;
      const keptAt = path.indexOf(kept);
      session.appendCompaction({
        summary: `## Goal\nstep ${at}`,
        firstKeptEntryId: kept,
        tokensBefore: 1_000,
        ...(next.covered && keptAt > 0
          ? {
              details: {
                covered: { firstEntryId: path[0]!, lastEntryId: path[keptAt - 1]!, entryCount: keptAt },
              },
            }
          : {}),
      });
      return;
    }
    case "move":
      if (ids.length > 0)
        session.moveTo(ids[next.pick % ids.length]!, next.summary ? `left at ${at}` : undefined);
      return;
    case "expand":
      if (runIds.length > 0) expanded.add(runIds[next.pick % runIds.length]!);
      return;
    case "fold":
      if (expanded.size > 0) expanded.delete([...expanded][next.pick % expanded.size]!);
      return;
  }
}

function allIds(session: Session): string[] {
  const ids: string[] = [];
  const stack = [...session.getTree()];
  while (stack.length > 0) {
    const node = stack.pop()!;
    ids.push(node.id);
    stack.push(...node.children);
  }
  return ids.sort();
}

async function checkSteps(
  steps: readonly Step[],
  options: Omit<SessionGraphOptions, "expanded">,
): Promise<void> {
  const session = await Session.create(new MemorySessionStore(), { cwd: "/p" });
  const cache = new SessionGraphCache(options);
  const expanded = new Set<string>();
  let runIds: string[] = [];
  for (const [at, next] of steps.entries()) {
    apply(session, expanded, runIds, next, at);
    const kept = cache.graph(session, new Set(expanded));
    const rebuilt = sessionGraph(session, { ...options, expanded: new Set(expanded) });
    expect(kept).toEqual(rebuilt);
    runIds = rebuilt.nodes.filter((node) => node.kind === "run").map((node) => node.entryId);
  }
}

describe("SessionGraphCache", () => {
  test("after every kind of append, move and expansion, the kept graph equals a full rebuild", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) =>
        checkSteps(steps, { collapseAbove: 3, recentEntries: 2 }),
      ),
      { numRuns: 150 },
    );
  });

  test("with the default options too", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => checkSteps(steps, {})),
      { numRuns: 60 },
    );
  });

  test("appends down from the leaf extend the kept graph: unchanged nodes are the same objects", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/p" });
    const ids: string[] = [];
    for (let index = 0; index < 200; index++) {
      ids.push(session.appendMessage({ role: "user", content: `question ${index}`, timestamp: index }).id);
    }
    session.appendLabel(ids[50]!, "milestone");
    const cache = new SessionGraphCache();
    const before = cache.graph(session);
    expect(cache.graph(session)).toBe(before);
    session.appendMessage(assistantMessage("one more"));
    const after = cache.graph(session);
    expect(after).toEqual(sessionGraph(session));
    // The nodes up to the labelled entry (the first, a run, the labelled one) were not drawn again.
    expect(before.nodes.slice(0, 3).map((node) => node.kind)).toEqual(["user", "run", "user"]);
    for (let index = 0; index < 3; index++) expect(after.nodes[index]).toBe(before.nodes[index]);
    // Another session is built afresh.
    const other = await Session.create(new MemorySessionStore(), { cwd: "/p" });
    other.appendMessage({ role: "user", content: "hello", timestamp: 1 });
    expect(cache.graph(other)).toEqual(sessionGraph(other));
  });
});
