/**
 * The session operations of `AppRuntime` (operations/): label, edit and re-run, diff, merge, navigate,
 * fork, list paging and import, on a runtime with the offline demo model and the JSONL store.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AppRuntime } from "../src/app-runtime.js";
import { createAppRuntime } from "../src/create-app-runtime.js";
import { temporaryDirectory } from "./helpers.js";

const runtimes: AppRuntime[] = [];
afterEach(async () => {
  for (const runtime of runtimes.splice(0)) await runtime.dispose();
});

async function runtimeWith(prompts: readonly string[], home = temporaryDirectory()): Promise<AppRuntime> {
  const runtime = await createAppRuntime({
    cwd: temporaryDirectory(),
    env: {},
    home,
    providers: { scripted: () => import("../src/demo/index.js") },
    stores: { jsonl: () => import("@arbor/session-store-jsonl") },
    flags: { provider: "scripted" },
    tools: false,
    extensions: false,
  });
  runtimes.push(runtime);
  for (const text of prompts) await runtime.session.prompt(text);
  return runtime;
}

/** The ids of the user messages on the current path. */
function userIds(runtime: AppRuntime): string[] {
  return runtime.session.session
    .getBranch()
    .filter((entry) => entry.type === "message" && entry.message.role === "user")
    .map((entry) => entry.id);
}

describe("AppRuntime's session operations", () => {
  it("label sets, trims and removes a label; an unknown entry is refused with not_found", async () => {
    const runtime = await runtimeWith(["one"]);
    const [user] = userIds(runtime);
    expect(await runtime.label(user!, "  start ")).toEqual({ entryId: user, label: "start" });
    expect(runtime.session.session.getLabel(user!)).toBe("start");
    expect(await runtime.label(user!, null)).toEqual({ entryId: user, label: null });
    expect(runtime.session.session.getLabel(user!)).toBeUndefined();
    await expect(runtime.label("nope", "x")).rejects.toMatchObject({ code: "not_found" });
  });

  it("edit goes back before a user message and runs the new text there; the old branch stays", async () => {
    const runtime = await runtimeWith(["first question", "second question"]);
    const [first, second] = userIds(runtime);
    const oldLeaf = runtime.session.session.leafId!;
    const assistant = runtime.session.session.getEntry(oldLeaf)!;
    await expect(runtime.edit(assistant.id, "x")).rejects.toMatchObject({ code: "invalid" });
    const { result, run } = await runtime.edit(second!, "an edited question");
    expect(result.parentId).toBe(runtime.session.session.getEntry(second!)!.parentId);
    await run;
    const path = runtime.session.session.getBranch();
    expect(path.map((entry) => entry.id)).toContain(first);
    expect(path.map((entry) => entry.id)).not.toContain(second);
    expect(JSON.stringify(path)).toContain("an edited question");
    expect(runtime.session.session.has(oldLeaf)).toBe(true);
  });

  it("diff finds the common ancestor and what each branch holds after it", async () => {
    const runtime = await runtimeWith(["first question", "second question"]);
    const [first, second] = userIds(runtime);
    const oldLeaf = runtime.session.session.leafId!;
    await (await runtime.edit(second!, "another second question")).run;
    const newLeaf = runtime.session.session.leafId!;
    const diff = runtime.diff(oldLeaf, newLeaf);
    const ancestor = runtime.session.session.getEntry(second!)!.parentId;
    expect(diff.sameSession).toBe(true);
    expect(diff.matchedBy).toBe("id");
    expect(diff.relation).toBeNull();
    expect(diff.commonAncestor).toMatchObject({ id: ancestor, idInB: ancestor });
    expect(diff.a.items[0]!.id).toBe(second);
    expect(diff.a.entries).toBe(diff.a.items.length);
    expect(diff.b.leafId).toBe(newLeaf);
    expect(diff.b.items.some((item) => item.preview.includes("another second question"))).toBe(true);
    expect(runtime.session.session.getBranch(oldLeaf).map((entry) => entry.id)).toContain(first);
    expect(() => runtime.diff(oldLeaf, "nope")).toThrow(expect.objectContaining({ code: "not_found" }));
  });

  it("merge folds a branch into the current one as a branch summary; busy and unknown entries are refused", async () => {
    const runtime = await runtimeWith(["first question", "second question"]);
    const [, second] = userIds(runtime);
    const oldLeaf = runtime.session.session.leafId!;
    await (await runtime.edit(second!, "another second question")).run;
    await expect(runtime.merge({ sourceLeafId: "nope" })).rejects.toMatchObject({ code: "not_found" });
    const running = runtime.session.prompt("a third question");
    await expect(runtime.merge({ sourceLeafId: oldLeaf, summarize: false })).rejects.toMatchObject({
      code: "busy",
    });
    await running;
    const merged = await runtime.merge({ sourceLeafId: oldLeaf, summarize: false, message: "take both" });
    expect(merged.kind).toBe("merged");
    if (merged.kind !== "merged") return;
    expect(merged).not.toHaveProperty("entries");
    expect(merged.merge.sourceLeafId).toBe(oldLeaf);
    expect(merged.summary).toContain("take both");
    const entry = runtime.session.session.getEntry(merged.entryId);
    expect(entry).toMatchObject({ type: "branch_summary", fromId: oldLeaf });
    expect(runtime.session.session.leafId).toBe(merged.entryId);
  });

  it("navigate and fork: the fork becomes current and names its parent", async () => {
    const runtime = await runtimeWith(["first question", "second question"]);
    const [first] = userIds(runtime);
    const moved = await runtime.navigate(first!, { summarize: false });
    expect(moved).toMatchObject({ kind: "moved", leafId: first, fromHook: false });
    const source = runtime.session.id;
    const fork = await runtime.fork({ entryId: first!, position: "at" });
    expect(fork.parentSession).toBe(source);
    expect(runtime.session.id).toBe(fork.sessionId);
    expect(fork.leafId).toBe(runtime.session.session.leafId);
    expect(fork.file).toMatch(/\.jsonl$/);
  });

  it("listSessionPage pages with a cursor; each page holds other sessions; the last has no cursor", async () => {
    const runtime = await runtimeWith(["one"]);
    for (const text of ["two", "three"]) {
      await runtime.newSession();
      await runtime.session.prompt(text);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const result = await runtime.listSessionPage({ limit: 1, ...(cursor === undefined ? {} : { cursor }) });
      expect(result.sessions).toHaveLength(1);
      expect(Object.keys(result.sessions[0]!)).toEqual([
        "id",
        "name",
        "cwd",
        "createdAt",
        "updatedAt",
        "messageCount",
        "parentSession",
        "location",
        "firstMessage",
      ]);
      seen.push(result.sessions[0]!.id);
      cursor = result.nextCursor ?? undefined;
    }
    expect(new Set(seen).size).toBe(3);
    expect(seen[0]).toBe(runtime.session.id);
    expect(cursor).toBeUndefined();
    const all = await runtime.listSessionPage({ all: true });
    expect(all.sessions.map((item) => item.firstMessage)).toEqual(["three", "two", "one"]);
    expect(all.nextCursor).toBeNull();
  });

  it("lastCompaction follows each session's compaction_end", async () => {
    const runtime = await runtimeWith(["one"]);
    expect(runtime.lastCompaction()).toBeUndefined();
    const outcome = await runtime.compact();
    expect(runtime.lastCompaction()).toEqual({ kind: outcome.kind, message: outcome.message });
    await runtime.newSession();
    expect(runtime.lastCompaction()).toBeUndefined();
  });
});
