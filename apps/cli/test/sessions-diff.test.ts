import { MemorySessionStore, Session, sameJson } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { branchDiffView } from "@arbor/session-view";
import { describe, expect, it } from "vitest";
import { parseSideReference } from "../src/commands/sessions/diff.js";
import {
  FIXTURE_CWD,
  fixturePath,
  importFixture,
  runSessions,
  temporaryDirectory,
} from "./sessions-helpers.js";

interface DiffJson {
  sameSession: boolean;
  matchedBy: string;
  relation: string | null;
  commonAncestor: { id: string; idInB: string; position: number; type: string; preview: string } | null;
  a: {
    sessionId: string;
    leafId: string;
    entries: number;
    messages: number;
    readFiles: string[];
    items: { id: string }[];
  };
  b: {
    sessionId: string;
    leafId: string;
    entries: number;
    messages: number;
    modifiedFiles: string[];
    items: { id: string }[];
  };
}

/** A session and a fork of it, each continued after the fork point; returns both ids. */
async function sessionAndFork(home: string): Promise<{ parent: string; fork: string; forkPoint: string }> {
  const store = new JsonlSessionStore({ home });
  const parent = await Session.create(store, { cwd: FIXTURE_CWD });
  parent.appendMessage({ role: "user", content: "first question", timestamp: 1 });
  const forkPoint = parent.appendMessage({ role: "user", content: "second question", timestamp: 2 });
  await parent.flush();
  const fork = await parent.fork(forkPoint.id);
  parent.appendMessage({ role: "user", content: "parent goes on", timestamp: 3 });
  await parent.flush();
  fork.appendMessage({ role: "user", content: "fork goes elsewhere", timestamp: 4 });
  fork.appendMessage({
    role: "assistant",
    content: [{ type: "toolCall", id: "c1", name: "write", arguments: { path: "fork.txt", content: "x" } }],
    api: "scripted",
    provider: "scripted",
    model: "m",
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: "toolUse",
    timestamp: 5,
  });
  await fork.flush();
  await store.close();
  return { parent: parent.id, fork: fork.id, forkPoint: forkPoint.id };
}

describe("parseSideReference", () => {
  it("reads <session>, <session>@<entry> and @<entry>", () => {
    expect(parseSideReference("abc", "/")).toEqual({ session: "abc", entry: undefined });
    expect(parseSideReference("abc@1234", "/")).toEqual({ session: "abc", entry: "1234" });
    expect(parseSideReference("@1234", "/")).toEqual({ session: undefined, entry: "1234" });
  });

  it("keeps an existing path whole even with an @ in it", () => {
    expect(parseSideReference(fixturePath("plain"), "/")).toEqual({
      session: fixturePath("plain"),
      entry: undefined,
    });
  });
});

describe("sameJson", () => {
  it("compares JSON deeply, ignoring key order and the skipped top-level keys", () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson({ id: "x", v: 1 }, { id: "y", v: 1 }, new Set(["id"]))).toBe(true);
  });
});

describe("arbor sessions diff", () => {
  it("finds where two branches of one session diverge", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const run = await runSessions(["diff", `${id}@976cce3b`, "@46a34590"], { home });
    expect(run.exitCode).toBeUndefined();
    expect(run.stdout).toContain("Common ancestor: bbd4e133, entry 6 of both branches\n");
    expect(run.stdout).toContain(
      "Only in a: 4 entries (4 messages), ending at 976cce3b\n  files: read notes.txt",
    );
    expect(run.stdout).toContain("  14c6c82a user: Branch A: read the notes.");
    expect(run.stdout).toContain("Only in b: 6 entries (4 messages), ending at 46a34590");
    expect(run.stdout).toContain("  5b4acce3 branch summary (from bbd4e133)");

    const json = JSON.parse(
      (await runSessions(["diff", `${id}@976c`, "@46a3", "--json"], { home })).stdout,
    ) as DiffJson;
    expect(json.sameSession).toBe(true);
    expect(json.matchedBy).toBe("id");
    expect(json.commonAncestor).toMatchObject({
      id: "bbd4e133",
      idInB: "bbd4e133",
      position: 6,
      type: "message",
    });
    expect(json.a).toMatchObject({ leafId: "976cce3b", entries: 4, messages: 4, readFiles: ["notes.txt"] });
    expect(json.b.items.map((item) => item.id)).toEqual([
      "5b4acce3",
      "cd1d599a",
      "4af61d01",
      "cd2d4fbd",
      "9e27f2bb",
      "46a34590",
    ]);
  });

  it("says when one side is an ancestor of the other", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const run = await runSessions(["diff", `${id}@bbd4e133`, id], { home });
    expect(run.stdout).toContain("Only in a: nothing (its leaf is the common ancestor).");
    expect(run.stdout).toContain("Only in b: 6 entries");
  });

  it("finds where a fork and its parent diverge", async () => {
    const home = temporaryDirectory();
    const { parent, fork, forkPoint } = await sessionAndFork(home);
    const run = await runSessions(["diff", parent, fork], { home });
    expect(run.stdout).toContain("b was forked from a.");
    expect(run.stdout).toContain(
      `Common ancestor: ${forkPoint}, entry 2 of both branches; shared entries have equal ids and contents`,
    );
    const json = JSON.parse(
      (await runSessions(["diff", parent, fork, "--json"], { home })).stdout,
    ) as DiffJson;
    expect(json).toMatchObject({ sameSession: false, matchedBy: "id", relation: "b-forked-from-a" });
    expect(json.commonAncestor).toMatchObject({ id: forkPoint, idInB: forkPoint, position: 2 });
    expect(json.a.entries).toBe(1);
    expect(json.a.messages).toBe(1);
    expect(json.b.messages).toBe(2);
    expect(json.b.modifiedFiles).toEqual(["fork.txt"]);
    expect(json.b.entries).toBe(2);
    const reversed = JSON.parse(
      (await runSessions(["diff", fork, parent, "--json"], { home })).stdout,
    ) as DiffJson;
    expect(reversed.relation).toBe("a-forked-from-b");
  });

  it("matches copied entries by content when their ids differ, and finds nothing shared between strangers", async () => {
    const store = new MemorySessionStore();
    const original = await Session.create(store, { cwd: "/p" });
    original.appendModelChange("anthropic", "claude");
    original.appendMessage({ role: "user", content: "same words", timestamp: 7 });
    original.appendMessage({ role: "user", content: "original continues", timestamp: 8 });
    const copy = await Session.create(store, { cwd: "/p" });
    copy.appendModelChange("anthropic", "claude");
    copy.appendMessage({ role: "user", content: "same words", timestamp: 7 });
    copy.appendMessage({ role: "user", content: "copy continues", timestamp: 9 });
    const diff = branchDiffView(
      { session: original, leafId: original.leafId },
      { session: copy, leafId: copy.leafId },
    );
    expect(diff.matchedBy).toBe("content");
    expect(diff.commonAncestor?.position).toBe(2);
    expect(diff.commonAncestor?.id).not.toBe(diff.commonAncestor?.idInB);

    // A fork re-creates the labels of the copied entries under new ids: shared by content after the copy.
    const labelled = await Session.create(store, { cwd: "/p" });
    const point = labelled.appendMessage({ role: "user", content: "mark me", timestamp: 10 });
    labelled.appendLabel(point.id, "here");
    await labelled.flush();
    const fork = await labelled.fork(point.id);
    labelled.appendMessage({ role: "user", content: "parent side", timestamp: 11 });
    fork.appendMessage({ role: "user", content: "fork side", timestamp: 12 });
    const mixed = branchDiffView(
      { session: labelled, leafId: labelled.leafId },
      { session: fork, leafId: fork.leafId },
    );
    expect(mixed.matchedBy).toBe("mixed");
    expect(mixed.commonAncestor?.position).toBe(2);
    expect(mixed.commonAncestor?.item.type).toBe("label");

    const home = temporaryDirectory();
    const plain = await importFixture("plain", home);
    const tools = await importFixture("tools", home);
    const strangers = await runSessions(["diff", plain, tools], { home });
    expect(strangers.stdout).toContain("No common ancestor: the branches share no entry.");
  });

  it("fails clearly for an unknown entry or a first side without a session", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const unknown = await runSessions(["diff", `${id}@zzzz`, "@46a34590"], { home });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain(`Session ${id} has no entry "zzzz"`);
    const noSession = await runSessions(["diff", "@bbd4e133", "@46a34590"], { home });
    expect(noSession.exitCode).toBe(1);
    expect(noSession.stderr).toContain("The first side must name a session");
    const missing = await runSessions(["diff", id], { home });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toContain("missing required argument 'b'");
  });
});
