import { readFileSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import type { MergeDetails } from "@arbor/harness";
import { type BranchSummaryEntry, Session } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { describe, expect, it } from "vitest";
import { runMainInProcess, sandbox } from "./cli-helpers.js";
import {
  FIXTURE_CWD,
  fixturePath,
  importFixture,
  runSessions,
  temporaryDirectory,
} from "./sessions-helpers.js";

async function reopen(home: string, id: string): Promise<Session> {
  const store = new JsonlSessionStore({ home, readOnly: true });
  const session = await Session.open(store, id);
  await store.close();
  return session;
}

function contextText(call: { context: { messages: { content: unknown }[] } }): string {
  return JSON.stringify(call.context.messages);
}

describe("arbor sessions merge", () => {
  it("summarizes a branch with the model and appends the summary on the target branch", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const provider = createScriptedProvider([
      script.text("## Goal\n- Read the notes: alpha, bravo, charlie."),
    ]);
    let asked = 0;
    const run = await runSessions(["merge", "976cce3b", "--into", "46a34590", "--session", id], {
      home,
      resolveSummarizer: async () => {
        asked++;
        return { stream: provider.stream, model: provider.model };
      },
    });
    expect(run.exitCode).toBeUndefined();
    expect(asked).toBe(1);
    provider.assertDone();
    expect(contextText(provider.calls[0]!)).toContain("Branch A: read the notes.");
    expect(contextText(provider.calls[0]!)).not.toContain("Branch B");
    expect(run.stdout).toMatch(
      /^Merged branch 976cce3b \(4 entries\) into 46a34590: branch_summary (\w{8}), summarized by scripted\/scripted-model\.\n/,
    );

    const session = await reopen(home, id);
    const leaf = session.getEntry(session.leafId!) as BranchSummaryEntry;
    expect(leaf.type).toBe("branch_summary");
    expect(leaf.parentId).toBe("46a34590");
    expect(leaf.fromId).toBe("976cce3b");
    expect(leaf.summary).toContain(
      "Merged from branch 976cce3b, which left this conversation after bbd4e133.",
    );
    expect(leaf.summary).toContain("Read the notes: alpha, bravo, charlie.");
    expect(leaf.summary).toContain("Files read: notes.txt");
    const details = leaf.details as { merge: MergeDetails; calls: number; summarizerModel: string };
    expect(details.merge).toEqual({
      sourceLeafId: "976cce3b",
      targetLeafId: "46a34590",
      commonAncestorId: "bbd4e133",
      entries: 4,
      summarizedBy: "model",
    });
    expect(details.calls).toBe(1);
    expect(details.summarizerModel).toBe("scripted/scripted-model");
    // The model sees the merged branch's conclusion in the target branch's context.
    const context = session.buildContext();
    expect(context.messages.at(-1)).toMatchObject({ role: "branchSummary", fromId: "976cce3b" });
  });

  it("merges into the session's current leaf without --into, asking for the session's own model", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const provider = createScriptedProvider([script.text("## Goal\n- Notes read.")]);
    const asked: unknown[] = [];
    const run = await runSessions(["merge", "976cce3b", "--session", id], {
      home,
      resolveSummarizer: async (recorded) => {
        asked.push(recorded);
        return { stream: provider.stream, model: provider.model };
      },
    });
    expect(run.exitCode, run.stderr).toBeUndefined();
    // The model the session records at its leaf (the pi fixture's), for the summary.
    expect(asked).toEqual([{ provider: "mock-anthropic", id: "mock-claude" }]);
    expect(run.stdout).toMatch(/^Merged branch 976cce3b \(4 entries\) into 46a34590: branch_summary/);
    const session = await reopen(home, id);
    expect(session.getEntry(session.leafId!)).toMatchObject({
      type: "branch_summary",
      parentId: "46a34590",
      fromId: "976cce3b",
    });
  });

  it("writes a deterministic, marked summary with --no-summarize (the model is not asked)", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    let asked = 0;
    const run = await runSessions(
      ["merge", `${id}@976cce3b`, "--into", "46a34590", "--no-summarize", "-m", "Notes checked"],
      {
        home,
        resolveSummarizer: async () => {
          asked++;
          return undefined;
        },
      },
    );
    expect(run.exitCode).toBeUndefined();
    expect(asked).toBe(0);
    expect(run.stdout).toContain("deterministic summary (--no-summarize)");
    const session = await reopen(home, id);
    const leaf = session.getEntry(session.leafId!) as BranchSummaryEntry;
    expect(leaf.summary.split("\n\n").slice(0, 2)).toEqual([
      "Merged from branch 976cce3b, which left this conversation after bbd4e133.",
      "Notes checked",
    ]);
    expect(leaf.summary).toContain("[Merged without a model: the last assistant message of branch 976cce3b");
    expect(leaf.summary).toContain(
      '## Last assistant message\nTool result received from read: "alpha line one',
    );
    expect(leaf.summary).toContain("Files read: notes.txt");
    expect((leaf.details as { merge: MergeDetails }).merge.summarizedBy).toBe("deterministic");
  });

  it("falls back to the deterministic summary when no model is configured, and moves the leaf first", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    // Merge the current branch into the abandoned one: the leaf moves to the target before the summary.
    const run = await runSessions(["merge", "46a34590", "--into", "976cce3b", "--session", id.slice(0, 13)], {
      home,
      resolveSummarizer: async () => undefined,
    });
    expect(run.exitCode).toBeUndefined();
    expect(run.stdout).toContain("deterministic summary (no model configured)");
    const session = await reopen(home, id);
    const leaf = session.getEntry(session.leafId!) as BranchSummaryEntry;
    expect(leaf).toMatchObject({ type: "branch_summary", parentId: "976cce3b", fromId: "46a34590" });
    expect(leaf.summary).toContain("Tool result received from bash");
    expect(leaf.summary).toContain("Files read: notes.txt"); // Carried over from the branch summary inside it.
    const tail = session
      .getPath()
      .slice(-2)
      .map((ref) => ref.id);
    expect(tail).toEqual(["976cce3b", leaf.id]);
    expect(session.entryCount).toBe(18); // 16 + a leaf entry + the summary.
  });

  it("uses the latest session of the directory when none is named", async () => {
    const home = temporaryDirectory();
    await importFixture("plain", home);
    const id = await importFixture("branch", home);
    const run = await runSessions(["merge", "976cce3b", "--into", "46a34590", "--no-summarize"], { home });
    expect(run.exitCode).toBeUndefined();
    expect(run.stderr).toContain(`Using the latest session of /home/user/project: ${id}`);
  });

  it("refuses what cannot be merged, changing nothing", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const store = new JsonlSessionStore({ home, readOnly: true });
    const path = store.pathOf(id)!;
    await store.close();
    const before = readFileSync(path, "utf8");

    const ancestor = await runSessions(["merge", "bbd4e133", "--into", "46a34590", "--session", id], {
      home,
    });
    expect(ancestor.exitCode).toBe(1);
    expect(ancestor.stderr).toContain("Nothing to merge: bbd4e133 is on the branch to 46a34590");
    const same = await runSessions(["merge", "46a34590", "--into", "46a34590", "--session", id], { home });
    expect(same.stderr).toContain("the same entry");
    const unknown = await runSessions(["merge", "nope", "--into", "46a34590", "--session", id], { home });
    expect(unknown.stderr).toContain('has no entry "nope"');
    // Without --into the current leaf receives the summary: merging that leaf itself is refused.
    const leafIntoItself = await runSessions(["merge", "46a34590", "--session", id], { home });
    expect(leafIntoItself.exitCode).toBe(1);
    expect(leafIntoItself.stderr).toContain("the same entry");
    const outside = await runSessions(
      ["merge", "976cce3b", "--into", "46a34590", "--session", fixturePath("branch")],
      {
        home: temporaryDirectory(),
      },
    );
    expect(outside.exitCode).toBe(1);
    expect(outside.stderr).toContain("is outside the store, which merge does not write to. Import it first");
    const empty = await runSessions(["merge", "976cce3b", "--into", "46a34590"], {
      home: temporaryDirectory(),
    });
    expect(empty.stderr).toContain("No session in /home/user/project to merge in");

    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("respects another process's lock on the session", async () => {
    const home = temporaryDirectory();
    const id = await importFixture("branch", home);
    const store = new JsonlSessionStore({ home, readOnly: true });
    const path = store.pathOf(id)!;
    await store.close();
    const before = readFileSync(path, "utf8");
    const holder = { pid: 4242, host: `not-${hostname()}`, since: "2026-01-01T00:00:00.000Z" };
    writeFileSync(`${path}.lock`, `${JSON.stringify(holder)}\n`);
    const run = await runSessions(
      ["merge", "976cce3b", "--into", "46a34590", "--session", id, "--no-summarize"],
      {
        home,
      },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toContain(`is open for writing by pid 4242@not-${hostname()}`);
    expect(run.stderr).not.toContain("    at ");
    expect(readFileSync(path, "utf8")).toBe(before);
  });

  it("takes --session in its long form under arbor, where the program has a --session of its own", async () => {
    const box = sandbox();
    const id = await importFixture("branch", box.home);
    const other = await importFixture("plain", box.home);
    const run = await runMainInProcess(
      box,
      ["sessions", "merge", "976cce3b", "--into", "46a34590", "--session", id, "--no-summarize"],
      { cwd: FIXTURE_CWD },
    );
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Session ${id} now continues from`);
    const session = await reopen(box.home, id);
    expect(session.getEntry(session.leafId!)).toMatchObject({ type: "branch_summary", fromId: "976cce3b" });
    // Without --session the latest session of the directory (the plain one) would have been merged in.
    const untouched = await reopen(box.home, other);
    expect(untouched.getEntry(untouched.leafId!)?.type).not.toBe("branch_summary");
  });
});
