import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type AppendableMessage, MemorySessionStore, Session } from "../src/index.js";
import { assistant, call, result, tickingClock, user } from "./helpers.js";

/** Small id alphabet (with ids a rename hands out), so that reused and colliding ids are common. */
const toolCallId = fc.constantFrom("a", "b", "c", "a_2", "a_3", "b_2");

/** One step on an open session: append something, build the context, or move the leaf back. */
type Step =
  | { kind: "message"; message: AppendableMessage }
  | { kind: "compaction"; keepFromEnd: number }
  | { kind: "model_change" }
  | { kind: "build" }
  | { kind: "move_back"; by: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  { arbitrary: fc.constant<Step>({ kind: "message", message: user("u") }), weight: 2 },
  { arbitrary: fc.constant<Step>({ kind: "message", message: assistant("text") }), weight: 1 },
  {
    arbitrary: fc
      .array(toolCallId, { minLength: 1, maxLength: 3 })
      .map<Step>((ids) => ({ kind: "message", message: assistant(ids.map((id) => call(id))) })),
    weight: 3,
  },
  {
    // An aborted turn: its calls never get a result.
    arbitrary: toolCallId.map<Step>((id) => ({
      kind: "message",
      message: assistant([call(id)], { stopReason: "aborted" }),
    })),
    weight: 1,
  },
  { arbitrary: toolCallId.map<Step>((id) => ({ kind: "message", message: result(id) })), weight: 4 },
  {
    arbitrary: fc.constant<Step>({
      kind: "message",
      message: { role: "custom", customType: "note", content: "n", display: true, timestamp: 4 },
    }),
    weight: 1,
  },
  { arbitrary: fc.nat(4).map<Step>((keepFromEnd) => ({ kind: "compaction", keepFromEnd })), weight: 1 },
  { arbitrary: fc.constant<Step>({ kind: "model_change" }), weight: 1 },
  { arbitrary: fc.constant<Step>({ kind: "build" }), weight: 5 },
  { arbitrary: fc.integer({ min: 1, max: 3 }).map<Step>((by) => ({ kind: "move_back", by })), weight: 1 },
);

describe("a context built again after appends (property)", () => {
  it("equals the context a fresh session builds from the same entries, at every step", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
        const store = new MemorySessionStore();
        const session = await Session.create(store, { cwd: "/", now: tickingClock() });
        session.buildContext();
        let models = 0;
        for (const current of steps) {
          switch (current.kind) {
            case "message":
              session.appendMessage(current.message);
              break;
            case "compaction": {
              const path = session.getPath();
              const kept = path[Math.max(0, path.length - 1 - current.keepFromEnd)];
              if (kept !== undefined)
                session.appendCompaction({ summary: "s", firstKeptEntryId: kept.id, tokensBefore: 1 });
              break;
            }
            case "model_change":
              session.appendModelChange("p", `m${models++}`);
              break;
            case "move_back": {
              const path = session.getPath();
              const target = path[path.length - 1 - current.by];
              if (target !== undefined) session.moveTo(target.id);
              break;
            }
            case "build": {
              const built = session.buildContext();
              await session.flush();
              const fresh = await Session.open(store, session.id);
              expect(built).toEqual(fresh.buildContext(session.leafId));
            }
          }
        }
        const built = session.buildContext();
        await session.flush();
        expect(built).toEqual((await Session.open(store, session.id)).buildContext(session.leafId));
      }),
      { numRuns: 500 },
    );
  });
});

describe("a context built again after appends", () => {
  it("reuses what was repaired before the last assistant message; a call answered after it is paired", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/", now: tickingClock() });
    session.appendMessage(user("go"));
    session.appendMessage(assistant([call("a")]));
    session.appendMessage(assistant([call("a")])); // the first "a" never got a result; this one is renamed
    const first = session.buildContext();
    expect(first.repairs.map((repair) => repair.kind)).toEqual([
      "missing_tool_result",
      "renamed_tool_call",
      "missing_tool_result",
    ]);
    const synthetic = first.messages[2];
    // The renamed call's result arrives after the build.
    session.appendMessage(result("a"));
    session.appendMessage(user("next"));
    const second = session.buildContext();
    expect(second.messages.map((message) => message.role)).toEqual([
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "toolResult",
      "user",
    ]);
    expect(second.messages[4]).toMatchObject({ toolCallId: "a_2", isError: false });
    expect(second.repairs.map((repair) => repair.kind)).toEqual(["missing_tool_result", "renamed_tool_call"]);
    // Built once: the synthetic result and the renamed copy are the objects of the first build.
    expect(second.messages[2]).toBe(synthetic);
    expect(second.messages[3]).toBe(first.messages[3]);
  });

  it("starts over when a new call takes an id a rename handed out", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/", now: tickingClock() });
    session.appendMessage(assistant([call("a")]));
    session.appendMessage(result("a"));
    session.appendMessage(assistant([call("a")]));
    session.appendMessage(result("a"));
    expect(session.buildContext().repairs).toEqual([
      expect.objectContaining({ kind: "renamed_tool_call", newId: "a_2" }),
    ]);
    session.appendMessage(assistant([call("a_2")]));
    // A whole repair would never have given "a_2" away: the second "a" is now "a_3".
    const context = session.buildContext();
    expect(context.repairs.map((repair) => repair.kind)).toEqual([
      "renamed_tool_call",
      "missing_tool_result",
    ]);
    expect(context.repairs[0]).toMatchObject({ newId: "a_3" });
    expect(
      context.messages.map((message) => (message.role === "toolResult" ? message.toolCallId : "")),
    ).toEqual(["", "a", "", "a_3", "", "a_2"]);
  });
});
