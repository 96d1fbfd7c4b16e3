import { describe, expect, it } from "vitest";
import { findCutPoint } from "../src/index.js";
import { call, newSession } from "./helpers.js";

/** Text of exactly `tokens` estimated tokens. */
const text = (tokens: number, letter = "x") => letter.repeat(tokens * 4);

describe("findCutPoint", () => {
  it("keeps whole turns when the budget is reached at a user message", async () => {
    const { session, user, assistant } = await newSession();
    for (const n of [1, 2, 3]) {
      session.appendMessage(user(text(100, `u${n}`.at(-1))));
      session.appendMessage(assistant(text(100)));
    }
    const entries = session.getBranch();
    expect(findCutPoint(entries, 0, entries.length, 200)).toEqual({
      firstKeptEntryIndex: 4,
      turnStartIndex: -1,
      isSplitTurn: false,
      keptTokens: 200,
    });
  });

  it("cuts at an assistant message inside a turn and reports the split turn", async () => {
    const { session, user, assistant, result } = await newSession();
    session.appendMessage(user(text(50)));
    session.appendMessage(assistant(text(50)));
    session.appendMessage(user(text(50))); // 2: the turn that gets split
    session.appendMessage(assistant([call("c1", "read", { path: "a.ts" })]));
    session.appendMessage(result("c1", text(300)));
    session.appendMessage(assistant([call("c2", "read", { path: "b.ts" })]));
    session.appendMessage(result("c2", text(300)));
    session.appendMessage(assistant(text(50))); // 7
    const entries = session.getBranch();
    const cut = findCutPoint(entries, 0, entries.length, 300);
    // a7 (50) + r6 (300) reaches 300 at the tool result: snap forward to the assistant after it.
    expect(cut).toMatchObject({ firstKeptEntryIndex: 7, isSplitTurn: true, turnStartIndex: 2 });
    const wider = findCutPoint(entries, 0, entries.length, 400);
    // a7 + r6 + a5 stay below 400; r4 reaches it: snap forward to a5, the nearest valid cut after it.
    expect(wider).toMatchObject({ firstKeptEntryIndex: 5, isSplitTurn: true, turnStartIndex: 2 });
    expect(entries[wider.firstKeptEntryIndex]!.type).toBe("message");
  });

  it("never starts the kept part at a tool result: a huge last result keeps its call", async () => {
    const { session, user, assistant, result } = await newSession();
    session.appendMessage(user(text(10)));
    session.appendMessage(assistant([call("c1", "read", { path: "big.log" })]));
    session.appendMessage(result("c1", text(1000)));
    const entries = session.getBranch();
    const cut = findCutPoint(entries, 0, entries.length, 500);
    expect(cut).toMatchObject({ firstKeptEntryIndex: 1, isSplitTurn: true, turnStartIndex: 0 });
    expect(cut.keptTokens).toBeGreaterThan(1000);
  });

  it("does not cut at a message that sits between a tool call and its result", async () => {
    const { session, user, assistant, result } = await newSession();
    session.appendMessage(user(text(100)));
    session.appendMessage(assistant([call("c1", "bash", { command: "make" })]));
    session.appendMessage(user(text(10, "s"))); // 2: a steering message written before the result
    session.appendMessage(result("c1", text(10), { toolName: "bash" }));
    session.appendMessage(assistant(text(10)));
    const entries = session.getBranch();
    // Without the pair rule the budget (30) is reached exactly at the steering message.
    const cut = findCutPoint(entries, 0, entries.length, 30);
    expect(cut.firstKeptEntryIndex).toBe(4);
    const wholePair = findCutPoint(entries, 0, entries.length, 35);
    expect(wholePair.firstKeptEntryIndex).toBe(1); // the call, with everything after it
  });

  it("ignores orphan results (whose call is not in the range) when checking pairs", async () => {
    const { session, user, result } = await newSession();
    session.appendMessage(user(text(10)));
    session.appendMessage(user(text(10)));
    session.appendMessage(result("lost-call", text(10)));
    session.appendMessage(user(text(10)));
    const entries = session.getBranch();
    expect(findCutPoint(entries, 0, entries.length, 25).firstKeptEntryIndex).toBe(1);
  });

  it("keeps everything (the first valid cut point) when the range fits in the budget", async () => {
    const { session, user, assistant } = await newSession();
    session.appendModelChange("scripted", "scripted-model");
    session.appendMessage(user(text(10)));
    session.appendMessage(assistant(text(10)));
    const entries = session.getBranch();
    expect(findCutPoint(entries, 0, entries.length, 10_000)).toEqual({
      firstKeptEntryIndex: 1,
      turnStartIndex: -1,
      isSplitTurn: false,
      keptTokens: 20,
    });
  });

  it("returns -1 when no entry of the range may start the kept part", async () => {
    const { session, user, assistant, result } = await newSession();
    session.appendMessage(user(text(10)));
    session.appendMessage(assistant([call("c1", "read", { path: "a" }), call("c2", "read", { path: "b" })]));
    session.appendMessage(result("c1", text(10)));
    session.appendMessage(result("c2", text(10)));
    const entries = session.getBranch();
    expect(findCutPoint(entries, 2, entries.length, 0).firstKeptEntryIndex).toBe(-1);
  });

  it("treats custom messages, branch summaries and user commands as turn starts", async () => {
    const { session, user, assistant } = await newSession();
    session.appendMessage(user(text(100)));
    session.appendCustomMessage({ customType: "reminder", content: text(10) });
    session.appendMessage(assistant(text(10)));
    let entries = session.getBranch();
    expect(findCutPoint(entries, 0, entries.length, 20)).toMatchObject({
      firstKeptEntryIndex: 1,
      isSplitTurn: false,
    });
    session.appendMessage({
      role: "bashExecution",
      command: "git status",
      output: text(20),
      cancelled: false,
      truncated: false,
      timestamp: 1,
    });
    session.appendMessage(assistant(text(30)));
    entries = session.getBranch();
    expect(findCutPoint(entries, 0, entries.length, 30)).toMatchObject({
      firstKeptEntryIndex: 4,
      isSplitTurn: true,
      turnStartIndex: 3,
    });
    const summaryEntry = session.moveTo(entries[0]!.id, "an abandoned branch").entries[0]!;
    session.appendMessage(assistant(text(10)));
    entries = session.getBranch();
    expect(entries[1]!.id).toBe(summaryEntry.id);
    expect(findCutPoint(entries, 0, entries.length, 10)).toMatchObject({
      firstKeptEntryIndex: 2,
      isSplitTurn: true,
      turnStartIndex: 1,
    });
  });

  it("looks for the turn start only inside the range", async () => {
    const { session, user, assistant } = await newSession();
    session.appendMessage(user(text(10)));
    for (let index = 0; index < 3; index++) session.appendMessage(assistant(text(10)));
    const entries = session.getBranch();
    expect(findCutPoint(entries, 1, entries.length, 10)).toMatchObject({
      firstKeptEntryIndex: 3,
      isSplitTurn: false,
      turnStartIndex: -1,
    });
  });
});
