import { script } from "@arbor/ai-providers/testing";
import { describe, expect, it } from "vitest";
import {
  BRANCH_PROMPT,
  BRANCH_UPDATE_PROMPT,
  type BranchSummaryResult,
  collectEntriesForBranchSummary,
  coveredEntryIds,
  generateBranchSummary,
} from "../src/index.js";
import { appendTurn, call, newSession, provider, requestText } from "./helpers.js";

/**
 * u1 → a1 → u2 ─┬─ u3 → a3(read, edit) → r → r → a3' → (nested branch summary) → a3''   (branch A)
 *               └─ u4 → a4                                                           (branch B, the leaf)
 */
async function forkedSession() {
  const { session, user, assistant, result, clock } = await newSession();
  session.appendMessage(user("Set up the project"));
  session.appendMessage(assistant("Set up."));
  const fork = session.appendMessage(user("Add a login page"));
  const u3 = session.appendMessage(user("Try with sessions"));
  session.appendMessage(
    assistant([call("r1", "read", { path: "src/auth.ts" }), call("e1", "edit", { path: "src/login.ts" })]),
  );
  session.appendMessage(result("r1", "export const auth = {}"));
  session.appendMessage(result("e1", "edited", { toolName: "edit" }));
  session.appendMessage(assistant("Sessions work but need a store."));
  session.appendBranchSummary({
    fromId: "root",
    summary: "An earlier attempt with JWT failed.",
    details: { readFiles: ["docs/jwt.md"], modifiedFiles: [] },
  });
  const leafA = session.appendMessage(assistant("Stopping here."));
  session.moveTo(fork.id);
  session.appendMessage(user("Try with OAuth instead"));
  const leafB = session.appendMessage(assistant("OAuth it is."));
  return { session, fork, u3, leafA, leafB, clock };
}

function summarized(outcome: Awaited<ReturnType<typeof generateBranchSummary>>): BranchSummaryResult {
  if (outcome.kind !== "summarized") throw new Error(`expected a summary, got ${outcome.kind}`);
  return outcome;
}

describe("collectEntriesForBranchSummary", () => {
  it("walks from the old leaf back to the common ancestor with the target", async () => {
    const { session, fork, u3, leafA, leafB } = await forkedSession();
    const back = collectEntriesForBranchSummary(session, leafA.id, fork.id);
    expect(back.commonAncestorId).toBe(fork.id);
    expect(back.entries[0]!.id).toBe(u3.id);
    expect(back.entries.at(-1)!.id).toBe(leafA.id);
    expect(back.entries.map((entry) => entry.id)).toEqual(
      session
        .getBranch(leafA.id)
        .slice(3)
        .map((entry) => entry.id),
    );

    const across = collectEntriesForBranchSummary(session, leafB.id, leafA.id);
    expect(across.commonAncestorId).toBe(fork.id);
    expect(across.entries.map((entry) => entry.type === "message" && entry.message.role)).toEqual([
      "user",
      "assistant",
    ]);

    const all = [...session.getBranch(leafA.id), ...session.getBranch(leafB.id)];
    expect(collectEntriesForBranchSummary(all, leafA.id, fork.id)).toEqual(back);
  });

  it("returns everything for the root, and nothing when moving forward or from nowhere", async () => {
    const { session, fork, leafA } = await forkedSession();
    expect(collectEntriesForBranchSummary(session, leafA.id, null)).toEqual({
      entries: session.getBranch(leafA.id),
      commonAncestorId: null,
    });
    expect(collectEntriesForBranchSummary(session, fork.id, leafA.id)).toEqual({
      entries: [],
      commonAncestorId: fork.id,
    });
    expect(collectEntriesForBranchSummary(session, null, leafA.id)).toEqual({
      entries: [],
      commonAncestorId: null,
    });
  });
});

describe("generateBranchSummary", () => {
  it("summarizes the branch with the branch prompt, with its file operations, as a branch_summary entry", async () => {
    const { session, fork, u3, leafA } = await forkedSession();
    const { entries } = collectEntriesForBranchSummary(session, leafA.id, fork.id);
    const model = provider([script.text("## Goal\n- A login page with sessions")]);

    const outcome = summarized(
      await generateBranchSummary(entries, { stream: model.stream, model: model.model }),
    );

    model.assertDone();
    const text = requestText(model.calls[0]!);
    expect(text).toContain("[User]: Try with sessions");
    expect(text).toContain('[Assistant tool call]: edit(path="src/login.ts")');
    expect(text).toContain("[Summary of an abandoned branch]: An earlier attempt with JWT failed.");
    expect(text).not.toContain("Set up the project");
    expect(text.endsWith(BRANCH_PROMPT)).toBe(true);
    expect(model.calls[0]!.options.maxTokens).toBe(Math.floor(0.8 * 16_384));
    expect(outcome.summary).toBe(
      "## Goal\n- A login page with sessions\n\nFiles read: docs/jwt.md, src/auth.ts\nFiles modified: src/login.ts",
    );
    expect(outcome.details).toMatchObject({
      readFiles: ["docs/jwt.md", "src/auth.ts"],
      modifiedFiles: ["src/login.ts"],
      calls: 1,
      covered: { firstEntryId: u3.id, lastEntryId: leafA.id, entryCount: 7 },
    });

    session.moveTo(fork.id, { summary: outcome.summary, details: outcome.details });
    const context = session.buildContext();
    expect(context.messages.at(-1)).toMatchObject({ role: "branchSummary", summary: outcome.summary });
    const covered = coveredEntryIds(outcome.details, session.getBranch(outcome.details.covered!.lastEntryId));
    expect(covered).toEqual(entries.map((entry) => entry.id));
  });

  it("leaves out the oldest messages of a branch larger than its call budget, and says so", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 30; turn++) appendTurn(session, builders, turn, { size: 4000 });
    const entries = session.getBranch();
    const model = provider([script.text("## Goal\n- first part"), script.text("## Goal\n- both parts")], {
      contextWindow: 8000,
      maxTokens: 1000,
    });

    const outcome = summarized(
      await generateBranchSummary(entries, { stream: model.stream, model: model.model, maxCalls: 2 }),
    );

    model.assertDone();
    const prompts = model.calls.map(requestText);
    expect(prompts[1]).toContain("<previous-summary>\n## Goal\n- first part\n</previous-summary>");
    expect(prompts[1]!.endsWith(BRANCH_UPDATE_PROMPT)).toBe(true);
    expect(prompts.join("")).toContain("Request 30:");
    expect(prompts.join("")).not.toContain("Request 1: please");
    expect(outcome.details.omittedMessages).toBeGreaterThan(0);
    expect(outcome.summary).toContain(
      `## Goal\n- both parts\n\n(The ${outcome.details.omittedMessages} oldest messages of the branch did not fit and were left out.)`,
    );
    expect(outcome.details.readFiles).toContain("src/file-1.ts");
    for (const recorded of model.calls) {
      const input = Math.ceil((recorded.context.systemPrompt!.length + requestText(recorded).length) / 4);
      expect(input + Number(recorded.options.maxTokens)).toBeLessThanOrEqual(8000);
    }
  });

  it("falls back when the model fails, and reports empty branches and aborts", async () => {
    const { session, fork, leafA } = await forkedSession();
    const { entries } = collectEntriesForBranchSummary(session, leafA.id, fork.id);
    const failing = provider([script.error("401 invalid api key")]);
    const fallback = summarized(
      await generateBranchSummary(entries, { stream: failing.stream, model: failing.model }),
    );
    expect(fallback.details.fallback).toEqual({
      reason: "model_error",
      message: "401 invalid api key",
      call: 1,
    });
    expect(fallback.summary).toContain("## User Requests\n- Try with sessions");
    expect(fallback.summary).toContain("## Last Assistant Message\nStopping here.");

    const idle = provider();
    const labels = session
      .getBranch()
      .filter((entry) => entry.type !== "message" && entry.type !== "branch_summary");
    expect(await generateBranchSummary(labels, { stream: idle.stream, model: idle.model })).toEqual({
      kind: "empty",
    });

    const controller = new AbortController();
    controller.abort();
    expect(
      await generateBranchSummary(entries, {
        stream: idle.stream,
        model: idle.model,
        signal: controller.signal,
      }),
    ).toMatchObject({ kind: "aborted" });
    expect(idle.calls).toHaveLength(0);
  });
});
