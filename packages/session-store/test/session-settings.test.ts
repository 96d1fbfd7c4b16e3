/**
 * `Session.settingsAt(leaf)` reports the thinking level, model and active tools `buildContext(leaf)`
 * reports, for every leaf: of the pi fixtures, and of a session whose model changes by entry and by
 * reply, across a compaction that keeps a span and one that keeps nothing.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import {
  MemorySessionStore,
  Session,
  type SessionEntry,
  type SessionHeader,
  type SessionTreeNode,
} from "../src/index.js";
import { assistant, PI_FIXTURES, tickingClock, user } from "./helpers.js";

function settingsOfContext(session: Session, leafId: string | null) {
  const { thinkingLevel, model, activeToolNames } = session.buildContext(leafId);
  return { thinkingLevel, model, activeToolNames };
}

function expectSameEverywhere(session: Session): void {
  const ids = session.getTree().flatMap(function walk(node: SessionTreeNode): string[] {
    return [node.id, ...node.children.flatMap(walk)];
  });
  expect(ids.length).toBe(session.entryCount);
  for (const id of ids) expect(session.settingsAt(id), id).toEqual(settingsOfContext(session, id));
  expect(session.settingsAt()).toEqual(settingsOfContext(session, session.leafId));
}

describe("Session.settingsAt", () => {
  it.each(readdirSync(PI_FIXTURES).filter((name) => name.endsWith(".jsonl")))(
    "agrees with buildContext at every entry of the pi fixture %s",
    async (name) => {
      const [header, ...entries] = readFileSync(join(PI_FIXTURES, name), "utf8")
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as unknown);
      const store = new MemorySessionStore();
      await store.createSession(header as SessionHeader);
      await store.appendEntries((header as SessionHeader).id, entries as SessionEntry[]);
      expectSameEverywhere(await Session.open(store, (header as SessionHeader).id));
    },
  );

  it("follows model changes, replies of other models, thinking levels, tools and compactions", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/project", now: tickingClock() });
    expect(session.settingsAt()).toEqual({
      thinkingLevel: undefined,
      model: undefined,
      activeToolNames: undefined,
    });
    session.appendMessage(user("one"));
    session.appendMessage(assistant("a", { provider: "p1", model: "m1" }));
    session.appendThinkingLevelChange("high");
    session.appendModelChange("p2", "m2");
    const kept = session.appendMessage(user("two"));
    expect(session.settingsAt().model).toEqual({ provider: "p2", modelId: "m2" });
    session.appendMessage(assistant("b", { provider: "p3", model: "m3" }));
    session.appendActiveToolsChange(["read"]);
    expect(session.settingsAt()).toEqual({
      thinkingLevel: "high",
      model: { provider: "p3", modelId: "m3" },
      activeToolNames: ["read"],
    });
    session.appendCompaction({ summary: "s", firstKeptEntryId: kept.id, tokensBefore: 100 });
    session.appendMessage(user("three"));
    expect(session.settingsAt().model).toEqual({ provider: "p3", modelId: "m3" });
    const three = session.getBranch().at(-1)!;
    session.appendCompaction({ summary: "t", firstKeptEntryId: three.id, tokensBefore: 50 });
    session.appendMessage(user("four"));
    expectSameEverywhere(session);
  });

  it("parses only what it needs: the settings entries and the last reply", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/project", now: tickingClock() });
    for (let index = 0; index < 200; index++) {
      session.appendMessage(user(`question ${index}`));
      session.appendMessage(assistant(`answer ${index}`));
    }
    await session.flush();
    const reopened = await Session.open(session.store, session.id);
    const parse = vi.spyOn(JSON, "parse");
    try {
      expect(reopened.settingsAt().model).toEqual({ provider: "scripted", modelId: "scripted-model" });
      expect(parse.mock.calls.length).toBeLessThan(5);
      // Control: building the context parses every message of the path.
      reopened.buildContext();
      expect(parse.mock.calls.length).toBeGreaterThanOrEqual(400);
    } finally {
      parse.mockRestore();
    }
  });
});
