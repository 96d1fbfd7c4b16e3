import { script } from "@arbor/ai-providers/testing";
import type { Session } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import {
  type CompactionPreparation,
  type CompactionResult,
  type CompactOutcome,
  compact,
  estimateContextTokens,
  formatFileOperations,
  HISTORY_PROMPT,
  HISTORY_UPDATE_PROMPT,
  prepareCompaction,
  resolveCompactionSettings,
  SUMMARIZER_SYSTEM_PROMPT,
  TURN_CONTEXT_HEADING,
  TURN_PREFIX_PROMPT,
} from "../src/index.js";
import { appendTurn, call, filler, newSession, provider, requestText, tokensFromTurn } from "./helpers.js";

const settings = resolveCompactionSettings({ keepRecentTokens: 1000 });

/**
 * Plans a compaction. With `keepFromTurn`, the tail budget is exactly the tokens from that turn's request
 * on, so whole turns are kept (no split turn, one summarizer call).
 */
function plan(
  session: Session,
  overrides: Partial<typeof settings> = {},
  keepFromTurn?: number,
): CompactionPreparation {
  const keep =
    keepFromTurn === undefined ? {} : { keepRecentTokens: tokensFromTurn(session.getBranch(), keepFromTurn) };
  const result = prepareCompaction(session.getBranch(), { ...settings, ...overrides, ...keep });
  if (result.kind !== "ready") throw new Error(`nothing to compact: ${result.reason}`);
  return result;
}

function compacted(outcome: CompactOutcome): CompactionResult {
  if (outcome.kind !== "compacted") throw new Error("compaction was aborted");
  return outcome;
}

/** Appends a compaction result to the session, as the harness does. */
function append(session: Session, result: CompactionResult): void {
  session.appendCompaction({
    summary: result.summary,
    firstKeptEntryId: result.firstKeptEntryId,
    tokensBefore: result.tokensBefore,
    details: result.details,
  });
}

describe("compact", () => {
  it("summarizes the history with the first-pass prompt and appends the file lists", async () => {
    const { session, ...builders } = await newSession();
    appendTurn(session, builders, 1, { read: "src/a.ts", edit: "src/a.ts" });
    appendTurn(session, builders, 2, { read: "README.md" });
    for (let turn = 3; turn <= 5; turn++) appendTurn(session, builders, turn, { size: 3000 });
    const preparation = plan(session, {}, 4);
    const model = provider([script.text("## Goal\n- Build the login page")]);

    const result = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    model.assertDone();
    const [request] = model.calls;
    expect(request!.context.systemPrompt).toBe(SUMMARIZER_SYSTEM_PROMPT);
    // The output cap (0.8 × reserveTokens) less what the appended file lists take.
    const fileLists = formatFileOperations(preparation.fileOperations).length;
    expect(request!.options.maxTokens).toBe(Math.floor(0.8 * 16_384) - Math.ceil(fileLists / 4));
    const text = requestText(request!);
    expect(text.startsWith("<conversation>\n[User]: Request 1: please look at src/a.ts\n\n")).toBe(true);
    expect(text).toContain('[Assistant tool call]: read(path="src/a.ts")');
    expect(text).toContain('[Assistant tool call]: edit(path="src/a.ts", oldText="a", newText="b")');
    expect(text).toContain("[Tool result read]: content1 content1");
    expect(text).toContain("[Tool result edit]: edited");
    expect(text).not.toContain("<previous-summary>");
    expect(text.endsWith(HISTORY_PROMPT)).toBe(true);
    for (const heading of [
      "## Goal",
      "## Constraints & Preferences",
      "## Progress",
      "### Done",
      "### In Progress",
      "### Blocked",
      "## Key Decisions",
      "## Next Steps",
      "## Critical Context",
    ]) {
      expect(text).toContain(`\n${heading}\n`);
    }

    expect(result.summary).toBe(
      "## Goal\n- Build the login page\n\nFiles read: README.md, src/file-3.ts\nFiles modified: src/a.ts",
    );
    expect(result.firstKeptEntryId).toBe(preparation.firstKeptEntryId);
    expect(result.tokensBefore).toBe(preparation.tokensBefore);
    expect(result.details).toMatchObject({
      readFiles: ["README.md", "src/file-3.ts"],
      modifiedFiles: ["src/a.ts"],
      covered: preparation.covered,
      calls: 1,
      summarizerModel: "scripted/scripted-model",
    });
    expect(result.details.fallback).toBeUndefined();
    expect(result.usage.input).toBe(Math.ceil((SUMMARIZER_SYSTEM_PROMPT.length + text.length) / 4));

    append(session, result);
    const context = session.buildContext();
    expect(context.messages[0]).toMatchObject({ role: "compactionSummary", summary: result.summary });
    expect(estimateContextTokens(context.messages).tokens).toBe(result.tokensAfter);
    expect(result.tokensAfter).toBeLessThan(result.tokensBefore);
  });

  it("cuts long tool results in the summarizer's input", async () => {
    const { session, ...builders } = await newSession();
    appendTurn(session, builders, 1, { size: 50_000 });
    for (let turn = 2; turn <= 4; turn++) appendTurn(session, builders, turn);
    const model = provider([script.text("summary")]);
    compacted(
      await compact(plan(session, { toolResultMaxChars: 1500 }, 3), {
        stream: model.stream,
        model: model.model,
      }),
    );
    const text = requestText(model.calls[0]!);
    expect(text).toMatch(/\[… 48\d\d\d characters omitted …\]/);
    expect(text.length).toBeLessThan(5000 + HISTORY_PROMPT.length);
  });

  it("updates the previous summary on the next compaction and keeps the file lists of both", async () => {
    const { session, ...builders } = await newSession();
    appendTurn(session, builders, 1, { read: "src/first.ts", edit: "src/first.ts" });
    for (let turn = 2; turn <= 4; turn++) appendTurn(session, builders, turn);
    const model = provider([
      script.text("## Goal\n- First goal"),
      script.text("## Goal\n- First goal\n- Second goal"),
    ]);
    const first = compacted(
      await compact(plan(session, {}, 3), { stream: model.stream, model: model.model }),
    );
    expect(first.summary).toContain("Files modified: src/first.ts");
    append(session, first);
    const compactionId = session.leafId;

    appendTurn(session, builders, 5, { read: "docs/second.md", edit: "src/second.ts" });
    for (let turn = 6; turn <= 8; turn++) appendTurn(session, builders, turn);
    const preparation = plan(session, {}, 7);
    const second = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    model.assertDone();
    const text = requestText(model.calls[1]!);
    expect(text).toContain("<previous-summary>\n## Goal\n- First goal\n</previous-summary>");
    expect(text.endsWith(HISTORY_UPDATE_PROMPT)).toBe(true);
    expect(HISTORY_UPDATE_PROMPT).toContain("Move items from In Progress to Done");
    expect(text).toContain("[User]: Request 5: please look at docs/second.md");
    expect(second.details.previousCompactionId).toBe(compactionId);
    expect(second.details.readFiles).toEqual(expect.arrayContaining(["docs/second.md", "src/file-2.ts"]));
    expect(second.details.modifiedFiles).toEqual(["src/first.ts", "src/second.ts"]);
    expect(second.summary).toContain("## Goal\n- First goal\n- Second goal\n\nFiles read: ");
    expect(second.summary.endsWith("Files modified: src/first.ts, src/second.ts")).toBe(true);
    expect(second.summary.match(/Files modified:/g)).toHaveLength(1);
  });

  it("summarizes a split turn's beginning separately and joins history --- turn context", async () => {
    const { session, user, assistant, result } = await newSession();
    session.appendMessage(user("Set up the project"));
    session.appendMessage(assistant("Project set up."));
    session.appendMessage(user("Refactor the parser, file by file"));
    for (let step = 1; step <= 8; step++) {
      session.appendMessage(assistant([call(`c${step}`, "read", { path: `src/parser-${step}.ts` })]));
      session.appendMessage(result(`c${step}`, filler(1200, `parser${step}`)));
    }
    session.appendMessage(assistant("All parser files read."));
    const preparation = plan(session, { keepRecentTokens: 700 });
    expect(preparation.isSplitTurn).toBe(true);
    const answer = script.dynamic((recorded) =>
      script.text(
        requestText(recorded).endsWith(TURN_PREFIX_PROMPT)
          ? "## Original Request\n- refactor"
          : "## Goal\n- setup",
      ),
    );
    const model = provider([answer, answer]);

    const outcome = compacted(await compact(preparation, { stream: model.stream, model: model.model }));

    model.assertDone();
    const prompts = model.calls.map(requestText);
    const turnPrompt = prompts.find((text) => text.endsWith(TURN_PREFIX_PROMPT))!;
    const historyPrompt = prompts.find((text) => text.endsWith(HISTORY_PROMPT))!;
    expect(turnPrompt).toContain("[User]: Refactor the parser, file by file");
    expect(turnPrompt).not.toContain("Set up the project");
    expect(historyPrompt).toContain("[User]: Set up the project");
    expect(historyPrompt).not.toContain("Refactor the parser");
    expect(
      outcome.summary.startsWith(
        `## Goal\n- setup\n\n---\n\n${TURN_CONTEXT_HEADING}\n\n## Original Request\n- refactor\n\nFiles read: src/parser-1.ts`,
      ),
    ).toBe(true);
    expect(outcome.details.calls).toBe(2);
    expect(outcome.usage.input).toBe(
      model.calls.reduce(
        (sum, recorded) =>
          sum + Math.ceil((SUMMARIZER_SYSTEM_PROMPT.length + requestText(recorded).length) / 4),
        0,
      ),
    );
  });

  it("adds the caller's focus to the prompt", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 4; turn++) appendTurn(session, builders, turn);
    const model = provider([script.text("summary")]);
    await compact(plan(session, {}, 3), {
      stream: model.stream,
      model: model.model,
      customInstructions: "keep the API design",
    });
    expect(requestText(model.calls[0]!)).toContain(
      `${HISTORY_PROMPT}\n\nThe user also asked for this focus: keep the API design`,
    );
  });

  it("uses a separate summarizer model when one is given", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 4; turn++) appendTurn(session, builders, turn);
    const main = provider();
    const cheap = provider([script.text("cheap summary")], { id: "haiku", maxTokens: 4096 });
    const result = compacted(
      await compact(plan(session, {}, 3), {
        stream: main.stream,
        model: main.model,
        summarizer: { model: cheap.model, stream: cheap.stream },
      }),
    );
    expect(main.calls).toHaveLength(0);
    expect(cheap.calls).toHaveLength(1);
    expect(cheap.calls[0]!.model.id).toBe("haiku");
    const fileLists = formatFileOperations(plan(session, {}, 3).fileOperations).length;
    expect(cheap.calls[0]!.options.maxTokens).toBe(4096 - Math.ceil(fileLists / 4));
    expect(result.details.summarizerModel).toBe("scripted/haiku");
    expect(result.summary.startsWith("cheap summary")).toBe(true);
  });

  it("resolves to aborted when the caller's signal fires, before or during the call", async () => {
    const { session, ...builders } = await newSession();
    for (let turn = 1; turn <= 4; turn++) appendTurn(session, builders, turn);
    const preparation = plan(session);

    const idle = provider();
    const controller = new AbortController();
    controller.abort();
    expect(
      await compact(preparation, { stream: idle.stream, model: idle.model, signal: controller.signal }),
    ).toMatchObject({
      kind: "aborted",
    });
    expect(idle.calls).toHaveLength(0);

    const slow = provider([script.delay(5000, script.text("too late"))]);
    const during = new AbortController();
    const running = compact(preparation, { stream: slow.stream, model: slow.model, signal: during.signal });
    setTimeout(() => during.abort(), 10);
    const outcome = await running;
    expect(outcome.kind).toBe("aborted");
    expect(slow.calls[0]!.aborted).toBe(true);
  });
});
