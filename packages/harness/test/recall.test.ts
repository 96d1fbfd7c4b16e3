import { Agent } from "@arbor/agent-core";
import type { AssistantMessage, ToolCall, ToolResultMessage, UserMessage } from "@arbor/ai-providers";
import { InvalidArgumentError, validateToolArguments } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import {
  collectEntriesForBranchSummary,
  compact,
  coveredEntryIds,
  estimateTokens,
  generateBranchSummary,
  prepareCompaction,
  resolveCompactionSettings,
} from "@arbor/compaction";
import {
  type CompactionEntry,
  MemorySessionStore,
  Session,
  type SessionMessage,
  type SessionStore,
  type StoredEntry,
} from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import type { RecallToolArguments, RecallToolDetails } from "../src/recall-parameters.js";
import { createRecallTool } from "../src/recall-tool.js";

// ---------------------------------------------------------------------------------------------------------
// A session built turn by turn, with a clock that ticks one second per reading.

class Clock {
  private seconds = 0;
  ms(): number {
    return Date.UTC(2026, 0, 1) + this.seconds++ * 1000;
  }
  readonly now = (): Date => new Date(this.ms());
}

const USAGE = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

function builders(clock: Clock) {
  return {
    user: (text: string): UserMessage => ({
      role: "user",
      content: [{ type: "text", text }],
      timestamp: clock.ms(),
    }),
    assistant: (
      content: AssistantMessage["content"],
      extra: Partial<AssistantMessage> = {},
    ): AssistantMessage => ({
      role: "assistant",
      content,
      api: "scripted",
      provider: "scripted",
      model: "scripted-model",
      usage: USAGE,
      stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
      timestamp: clock.ms(),
      ...extra,
    }),
    result: (toolCallId: string, text: string, isError = false): ToolResultMessage => ({
      role: "toolResult",
      toolCallId,
      toolName: "read",
      content: [{ type: "text", text }],
      isError,
      timestamp: clock.ms(),
    }),
  };
}

function call(id: string, name: string, args: Record<string, unknown>): ToolCall {
  return { type: "toolCall", id, name, arguments: args };
}

type Builders = ReturnType<typeof builders>;

/** Ids of one turn's entries: request, tool call, tool result, answer. */
interface Turn {
  request: string;
  toolCall: string;
  result: string;
  answer: string;
}

function appendTurn(session: Session, b: Builders, turn: number, size = 400): Turn {
  const path = `src/file-${turn}.ts`;
  const unit = `// padding ${turn} `;
  const filler = unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
  return {
    request: session.appendMessage(b.user(`Request ${turn}: please look at ${path}`)).id,
    toolCall: session.appendMessage(b.assistant([call(`read-${turn}`, "read", { path })])).id,
    result: session.appendMessage(b.result(`read-${turn}`, `export const value${turn} = ${turn};\n${filler}`))
      .id,
    answer: session.appendMessage(b.assistant([{ type: "text", text: `Answer ${turn}: ${path} is done` }]))
      .id,
  };
}

async function newSession(store: SessionStore = new MemorySessionStore()) {
  const clock = new Clock();
  const session = await Session.create(store, { cwd: "/project", now: clock.now });
  return { session, clock, b: builders(clock) };
}

/** Estimated tokens from an entry to the end of the branch: as a tail budget, the cut falls on that entry. */
function tokensFrom(session: Session, entryId: string): number {
  const branch = session.getBranch();
  let tokens = 0;
  for (const entry of branch.slice(branch.findIndex((candidate) => candidate.id === entryId))) {
    if (entry.type === "message") tokens += estimateTokens(entry.message as SessionMessage);
  }
  return tokens;
}

/** Runs the real compaction (scripted summarizer) keeping about `keepRecentTokens`, and appends the entry. */
async function compactNow(
  session: Session,
  keepRecentTokens: number,
  label = "summary",
): Promise<CompactionEntry> {
  const plan = prepareCompaction(session.getBranch(), resolveCompactionSettings({ keepRecentTokens }));
  if (plan.kind !== "ready") throw new Error(`nothing to compact: ${plan.reason}`);
  // A split turn takes a second summarizer call.
  const steps = [1, 2, 3].map((call) => script.text(`## Goal\n- ${label} (${call})`));
  const provider = createScriptedProvider(steps, { chunkSize: 4096 });
  const outcome = await compact(plan, { stream: provider.stream, model: provider.model });
  if (outcome.kind !== "compacted" || provider.unexpectedCalls > 0) throw new Error("compaction failed");
  return session.appendCompaction({
    summary: outcome.summary,
    firstKeptEntryId: outcome.firstKeptEntryId,
    tokensBefore: outcome.tokensBefore,
    details: outcome.details,
  });
}

async function run(tool: ReturnType<typeof createRecallTool>, args: RecallToolArguments) {
  const result = await tool.execute(args, {
    toolCallId: "call-1",
    signal: new AbortController().signal,
    onUpdate: () => undefined,
  });
  const text = result.content.map((block) => (block.type === "text" ? block.text : "")).join("");
  return { text, isError: result.isError === true, details: result.details as RecallToolDetails };
}

/** Six turns of ~120 tokens; a compaction keeping about two turns covers turns 1 to 4. */
async function compactedSession() {
  const setup = await newSession();
  const turns = [1, 2, 3, 4, 5, 6].map((turn) => appendTurn(setup.session, setup.b, turn));
  const compaction = await compactNow(setup.session, tokensFrom(setup.session, turns[4]!.request));
  const covered = coveredEntryIds(compaction.details, setup.session.getBranch());
  return { ...setup, turns, compaction, covered };
}

// ---------------------------------------------------------------------------------------------------------

describe("recall by entry ids", () => {
  it("returns the exact original entries a compaction replaced, in conversation order", async () => {
    const { session, turns, compaction, covered } = await compactedSession();
    expect(compaction.firstKeptEntryId).toBe(turns[4]!.request);
    expect(covered).toEqual(turns.slice(0, 4).flatMap((turn) => Object.values(turn)));

    const tool = createRecallTool({ getSession: () => session });
    const turn = turns[0]!;
    const { text, isError, details } = await run(tool, {
      entryIds: [turn.result, turn.request, turn.toolCall],
    });
    const at = (id: string) => session.getEntry(id)!.timestamp;
    const filler = "// padding 1 ".repeat(31).slice(0, 400);
    expect(isError).toBe(false);
    expect(text).toBe(
      [
        "3 entries recalled, exact originals in conversation order:",
        `### ${turn.request} · user · ${at(turn.request)}\nRequest 1: please look at src/file-1.ts`,
        `### ${turn.toolCall} · assistant (scripted/scripted-model) · ${at(turn.toolCall)}\n[tool call read, id read-1]\n{\n  "path": "src/file-1.ts"\n}`,
        `### ${turn.result} · tool result of read (call read-1) · ${at(turn.result)}\nexport const value1 = 1;\n${filler}`,
      ].join("\n\n"),
    );
    expect(details).toEqual({
      mode: "entries",
      entryIds: [turn.request, turn.toolCall, turn.result],
      unknownIds: [],
      refusedIds: [],
      totalChars: text.length - "3 entries recalled, exact originals in conversation order:\n\n".length,
    });
  });

  it("names unknown ids and ids that are not recallable, and fails only when nothing is recallable", async () => {
    const { session, turns } = await compactedSession();
    const label = session.appendLabel(turns[0]!.request, "start");
    const tool = createRecallTool({ getSession: () => session });

    const mixed = await run(tool, { entryIds: [turns[1]!.answer, "nope1234", turns[5]!.answer, label.id] });
    expect(mixed.isError).toBe(false);
    expect(mixed.details.entryIds).toEqual([turns[1]!.answer]);
    expect(mixed.details.unknownIds).toEqual(["nope1234"]);
    expect(mixed.details.refusedIds).toEqual([turns[5]!.answer, label.id]);
    expect(
      mixed.text.endsWith(
        `Unknown entry ids: nope1234.\nNot recalled: ${turns[5]!.answer} (already in your context); ${label.id} (a label entry, not a message).`,
      ),
    ).toBe(true);

    const none = await run(tool, { entryIds: ["nope1234", turns[4]!.request] });
    expect(none.isError).toBe(true);
    expect(none.text).toBe(
      `No entry recalled. Unknown entry ids: nope1234. Not recalled: ${turns[4]!.request} (already in your context).`,
    );
  });

  it("restricts to one compaction with compactionId, and attributes entries like details.covered", async () => {
    const { session, b, turns, compaction: first } = await compactedSession();
    const more = [7, 8, 9, 10].map((turn) => appendTurn(session, b, turn));
    const second = await compactNow(session, tokensFrom(session, more[2]!.request), "second");
    const branch = session.getBranch();
    const firstIds = coveredEntryIds(first.details, branch);
    const secondIds = coveredEntryIds(second.details, branch);
    expect(secondIds[0]).toBe(turns[4]!.request);
    expect(secondIds.at(-1)).toBe(more[1]!.answer);

    const tool = createRecallTool({ getSession: () => session, maxBytes: 1_000_000 });
    const whole = await run(tool, { compactionId: second.id, limit: 100 });
    expect(whole.details.entryIds).toEqual(secondIds);
    expect(whole.text.startsWith(`16 entries replaced by ${second.id}; showing 16, exact originals`)).toBe(
      true,
    );
    expect((await run(tool, { compactionId: first.id, limit: 100 })).details.entryIds).toEqual(firstIds);

    const limited = await run(tool, { compactionId: first.id, limit: 3 });
    expect(limited.details.entryIds).toEqual(firstIds.slice(0, 3));
    expect(limited.text.endsWith("13 more left out by limit.")).toBe(true);

    const wrong = await run(tool, {
      entryIds: [turns[0]!.request, turns[5]!.request],
      compactionId: second.id,
    });
    expect(wrong.details.entryIds).toEqual([turns[5]!.request]);
    expect(wrong.text).toContain(
      `Not recalled: ${turns[0]!.request} (replaced by ${first.id}, not by ${second.id}).`,
    );
  });

  it("recalls what a compaction without details replaced (pi sessions, hooks)", async () => {
    const { session, b } = await newSession();
    const turns = [1, 2, 3].map((turn) => appendTurn(session, b, turn));
    const compaction = session.appendCompaction({
      summary: "Turns 1 and 2 happened.",
      firstKeptEntryId: turns[2]!.request,
      tokensBefore: 500,
    });
    const tool = createRecallTool({ getSession: () => session });
    const listing = await run(tool, {});
    expect(listing.details.entryIds).toEqual(turns.slice(0, 2).flatMap((turn) => Object.values(turn)));
    expect(listing.text).toContain(
      `Compaction ${compaction.id} (${compaction.timestamp}) replaced 8 entries:`,
    );
  });
});

describe("recall by query", () => {
  it("finds the entries holding the words, best match first", async () => {
    const { session, turns } = await compactedSession();
    const tool = createRecallTool({ getSession: () => session });

    const exact = await run(tool, { query: "VALUE3" });
    expect(exact.isError).toBe(false);
    expect(exact.details.mode).toBe("search");
    expect(exact.details.matchCount).toBe(1);
    expect(exact.details.entryIds).toEqual([turns[2]!.result]);
    expect(exact.text).toContain("export const value3 = 3;");

    // Both words in the answer of turn 2; one word in the other entries of turn 2 and in other answers.
    const ranked = await run(tool, { query: "answer file-2.ts", limit: 3 });
    expect(ranked.details.entryIds[0]).toBe(turns[1]!.answer);
    expect(ranked.details.matchCount).toBe(6);
    expect(ranked.text.startsWith('6 entries match "answer file-2.ts"; showing 3, best match first:')).toBe(
      true,
    );
    expect(ranked.text.endsWith("3 more entries match; raise limit (up to 100) to see them.")).toBe(true);

    // Entries still in the context (turns 5 and 6) are not searched.
    const kept = await run(tool, { query: "value5" });
    expect(kept.isError).toBe(false);
    expect(kept.details.entryIds).toEqual([]);
    expect(kept.text).toBe(
      'No replaced entry matches "value5" (16 entries can be recalled). Try other words, or call recall with no arguments for a list.',
    );
  });
});

describe("recall with no arguments", () => {
  it("lists the compaction and the id, kind and first line of each replaced entry", async () => {
    const { session, turns, compaction } = await compactedSession();
    const { text, details } = await run(createRecallTool({ getSession: () => session }), {});
    expect(details.mode).toBe("list");
    expect(details.entryIds).toEqual(turns.slice(0, 4).flatMap((turn) => Object.values(turn)));
    const lines = text.split("\n");
    expect(lines.slice(0, 4)).toEqual([
      "16 entries can be recalled (pass ids as entryIds, or search with query):",
      "",
      `Compaction ${compaction.id} (${compaction.timestamp}) replaced 16 entries:`,
      `- ${turns[0]!.request} · user · Request 1: please look at src/file-1.ts`,
    ]);
    expect(lines[4]).toBe(
      `- ${turns[0]!.toolCall} · assistant (scripted/scripted-model) · [tool call read, id read-1]`,
    );
  });

  it("fails clearly when nothing has been replaced", async () => {
    const { session, b } = await newSession();
    appendTurn(session, b, 1);
    const result = await run(createRecallTool({ getSession: () => session }), { query: "value1" });
    expect(result).toMatchObject({
      isError: true,
      text: "Nothing to recall: no summary on the current branch has replaced any entry, so everything is in your context.",
    });
  });
});

describe("recall bounds", () => {
  it("keeps each result within maxBytes and continues with offset until the output is complete", async () => {
    const { session, b } = await newSession();
    const turns = [1, 2, 3, 4, 5].map((turn) => appendTurn(session, b, turn, 1500));
    for (let turn = 6; turn <= 8; turn++) appendTurn(session, b, turn, 100);
    await compactNow(session, tokensFrom(session, session.getBranch().at(-12)!.id));
    const ids = turns.flatMap((turn) => Object.values(turn));
    const full = await run(createRecallTool({ getSession: () => session, maxBytes: 10_000_000 }), {
      entryIds: ids,
    });
    const preface = "20 entries recalled, exact originals in conversation order:\n\n";
    expect(full.text.startsWith(preface)).toBe(true);
    const body = full.text.slice(preface.length);
    expect(full.details.totalChars).toBe(body.length);

    const tool = createRecallTool({ getSession: () => session, maxBytes: 2_000 });
    const seen: string[] = [];
    let offset: number | undefined = 0;
    let calls = 0;
    for (; offset !== undefined; calls++) {
      expect(calls).toBeLessThan(30);
      const result = await run(tool, { entryIds: ids, offset });
      expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(2_000);
      const next: number | undefined = result.details.nextOffset;
      const start = result.text.indexOf("\n\n") + 2;
      const end =
        next === undefined ? result.text.length : result.text.lastIndexOf("\n\n[Output cut at character");
      if (next !== undefined) {
        expect(
          result.text.endsWith(
            `[Output cut at character ${next} of ${body.length}. Call recall again with the same arguments and offset ${next} for the rest.]`,
          ),
        ).toBe(true);
      }
      // Each piece is the exact text at its offset; what lies between pieces is only a separator.
      const piece = result.text.slice(start, end);
      expect(piece.length).toBeGreaterThan(0);
      expect(body.slice(offset, offset + piece.length)).toBe(piece);
      if (next === undefined) expect(offset + piece.length).toBe(body.length);
      else expect(["", "\n\n"]).toContain(body.slice(offset + piece.length, next));
      seen.push(...result.details.entryIds);
      offset = next;
    }
    expect(calls).toBeGreaterThan(3);
    expect([...new Set(seen)]).toEqual(ids);
  });

  it("cuts an entry larger than maxBytes at a character boundary and continues it", async () => {
    const { session, b } = await newSession();
    const big = session.appendMessage(b.user(`Big: ${"é".repeat(3000)}`));
    appendTurn(session, b, 1);
    session.appendCompaction({
      summary: "Big message.",
      firstKeptEntryId: session.getBranch().at(-4)!.id,
      tokensBefore: 2000,
    });
    const tool = createRecallTool({ getSession: () => session, maxBytes: 1_000 });
    const first = await run(tool, { entryIds: [big.id] });
    expect(Buffer.byteLength(first.text)).toBeLessThanOrEqual(1_000);
    expect(first.text).not.toContain("\uFFFD");
    expect(first.details.entryIds).toEqual([big.id]);
    const second = await run(tool, { entryIds: [big.id], offset: first.details.nextOffset! });
    expect(
      second.text.startsWith(
        "1 entry recalled, exact originals in conversation order: (continued from character",
      ),
    ).toBe(true);
    expect(second.details.entryIds).toEqual([big.id]);

    const past = await run(tool, { entryIds: [big.id], offset: 1_000_000 });
    expect(past.isError).toBe(true);
    expect(past.text).toMatch(/^offset 1000000 is past the end of the output \(\d+ characters\)\.$/);
  });
});

describe("recall and branches", () => {
  it("recalls the abandoned branch a branch summary covers, and refuses other branches", async () => {
    const { session, b } = await newSession();
    const trunk = appendTurn(session, b, 1);
    const abandoned = appendTurn(session, b, 2);
    // Summarize the branch being left (the real generator, scripted) and go back to the end of turn 1.
    const { entries } = collectEntriesForBranchSummary(session, session.leafId, trunk.answer);
    const provider = createScriptedProvider([script.text("Turn 2 read file-2.")], { chunkSize: 4096 });
    const summary = await generateBranchSummary(entries, { stream: provider.stream, model: provider.model });
    if (summary.kind !== "summarized") throw new Error(summary.kind);
    const move = session.moveTo(trunk.answer, { summary: summary.summary, details: summary.details });
    const summaryId = move.leafId!;
    // A second branch left without a summary.
    const unsummarized = appendTurn(session, b, 3);
    session.moveTo(summaryId);
    appendTurn(session, b, 4);

    const tool = createRecallTool({ getSession: () => session });
    const listing = await run(tool, {});
    expect(listing.details.entryIds).toEqual(Object.values(abandoned));
    expect(listing.text).toContain(`Branch summary ${summaryId} (`);

    const found = await run(tool, { query: "value2" });
    expect(found.details.entryIds).toEqual([abandoned.result]);
    const byCompaction = await run(tool, { compactionId: summaryId });
    expect(byCompaction.details.entryIds).toEqual(Object.values(abandoned));

    const other = await run(tool, { entryIds: [unsummarized.request, trunk.request] });
    expect(other.isError).toBe(true);
    expect(other.text).toBe(
      `No entry recalled. Not recalled: ${unsummarized.request} (on another branch, not replaced by a summary on this one); ${trunk.request} (already in your context).`,
    );
  });
});

describe("recall arguments", () => {
  it("turns bad arguments and a failing session into error results", async () => {
    const { session, turns, compaction } = await compactedSession();
    const tool = createRecallTool({ getSession: () => session });
    const cases: [RecallToolArguments, string][] = [
      [{ entryIds: [turns[0]!.request], query: "x" }, "Give either entryIds or query, not both."],
      [{ query: " \n " }, "The query is empty: give words to search for."],
      [{ entryIds: [] }, "entryIds must be a non-empty list of entry ids."],
      [{ offset: -1 }, "offset must be a whole number ≥ 0."],
      [{ limit: 0 }, "limit must be a whole number ≥ 1."],
      [
        { compactionId: turns[0]!.request },
        `"${turns[0]!.request}" is not a compaction or branch summary on the current branch. Those are: ${compaction.id} (compaction).`,
      ],
    ];
    for (const [args, message] of cases) {
      const result = await run(tool, args);
      expect(result.isError).toBe(true);
      expect(result.text).toBe(message);
    }
    const failing = createRecallTool({
      getSession: () => {
        throw new Error("no session is open");
      },
    });
    expect(await run(failing, {})).toMatchObject({
      isError: true,
      text: "recall failed: no session is open",
    });
    expect(() => createRecallTool({ getSession: () => session, maxBytes: 10 })).toThrow(InvalidArgumentError);
    expect(validateToolArguments(tool, { limit: 0 }).ok).toBe(false);
    expect(validateToolArguments(tool, { entryIds: ["a"], limit: 5, offset: 0 }).ok).toBe(true);
  });
});

describe("recall rendering", () => {
  it("renders thinking, tool calls, errors, images, custom and shell messages readably", async () => {
    const { session, b } = await newSession();
    const image = { type: "image" as const, data: "A".repeat(400), mimeType: "image/png" };
    const user = session.appendMessage({
      ...b.user("Look at this"),
      content: [{ type: "text", text: "Look at this" }, image],
    });
    const assistant = session.appendMessage(
      b.assistant(
        [
          { type: "thinking", thinking: "The user wants a diff." },
          { type: "thinking", thinking: "", redacted: true, thinkingSignature: "sig" },
          { type: "text", text: "Running it." },
          call("c1", "bash", { command: "git diff", timeout: 5 }),
        ],
        { stopReason: "error", errorMessage: "connection reset" },
      ),
    );
    const result = session.appendMessage({
      ...b.result("c1", "fatal: not a repository", true),
      toolName: "bash",
    });
    const custom = session.appendCustomMessage({ customType: "note", content: "Remember the API design." });
    const shell = session.appendMessage({
      role: "bashExecution",
      command: "npm test",
      output: "1 failing",
      exitCode: 1,
      cancelled: false,
      truncated: false,
      timestamp: 0,
    });
    const kept = session.appendMessage(b.user("Next"));
    session.appendCompaction({ summary: "Earlier work.", firstKeptEntryId: kept.id, tokensBefore: 100 });
    const ids = [user.id, assistant.id, result.id, custom.id, shell.id];
    const { text } = await run(createRecallTool({ getSession: () => session }), { entryIds: ids });
    const at = (id: string) => session.getEntry(id)!.timestamp;
    expect(text).toBe(
      [
        "5 entries recalled, exact originals in conversation order:",
        `### ${user.id} · user · ${at(user.id)}\nLook at this\n[image image/png, 300 bytes, not included]`,
        `### ${assistant.id} · assistant (scripted/scripted-model) · ${at(assistant.id)}\n[thinking]\nThe user wants a diff.\n\n[thinking, redacted]\n\nRunning it.\n\n[tool call bash, id c1]\n{\n  "command": "git diff",\n  "timeout": 5\n}\n\n[response error: connection reset]`,
        `### ${result.id} · tool result of bash (call c1), error · ${at(result.id)}\nfatal: not a repository`,
        `### ${custom.id} · custom message (note) · ${at(custom.id)}\nRemember the API design.`,
        `### ${shell.id} · shell command run by the user · ${at(shell.id)}\n$ npm test\n1 failing\n[exit code 1]`,
      ].join("\n\n"),
    );
  });
});

describe("recall cost", () => {
  it("parses only the summaries on the branch and the entries it returns", async () => {
    const store = new MemorySessionStore();
    const { session, b } = await newSession(store);
    const turns = [1, 2, 3, 4, 5, 6].map((turn) => appendTurn(session, b, turn));
    const compaction = await compactNow(session, tokensFrom(session, turns[4]!.request));
    await session.flush();

    // Reopen through a store that counts which entries get parsed.
    const parsed = new Set<string>();
    const counting: SessionStore = Object.create(store, {
      readSession: {
        value: async (id: string) => {
          const stored = await store.readSession(id);
          const entries = stored.entries.map(
            (entry): StoredEntry => ({
              type: entry.type,
              id: entry.id,
              parentId: entry.parentId,
              entry: () => {
                parsed.add(entry.id);
                return entry.entry();
              },
            }),
          );
          return { ...stored, entries };
        },
      },
    });
    const reopened = await Session.open(counting, session.id);
    parsed.clear();
    const tool = createRecallTool({ getSession: () => reopened });

    const byIds = await run(tool, { entryIds: [turns[1]!.result, turns[2]!.request] });
    expect(byIds.details.entryIds).toEqual([turns[1]!.result, turns[2]!.request]);
    expect([...parsed].sort()).toEqual([compaction.id, turns[1]!.result, turns[2]!.request].sort());

    parsed.clear();
    await run(tool, { query: "value4" });
    const keptOrAfter = turns.slice(4).flatMap((turn) => Object.values(turn));
    expect(keptOrAfter.some((id) => parsed.has(id))).toBe(false);
  });
});

describe("recall in an agent run", () => {
  it("is called by the model through the agent loop, arguments validated by its schema", async () => {
    const { session } = await compactedSession();
    const provider = createScriptedProvider([
      script.toolCall("recall", { query: "value2" }),
      script.toolCall("recall", { limit: "many" }),
      script.text("The summary lacked value2; now I have it."),
    ]);
    const agent = new Agent({
      model: provider.model,
      streamFn: provider.stream,
      tools: [createRecallTool({ getSession: () => session })],
    });
    await agent.prompt("What was value2?");
    provider.assertDone();
    const results = agent.state.messages.filter((message) => message.role === "toolResult");
    expect(results).toHaveLength(2);
    const [found, invalid] = results as ToolResultMessage[];
    expect(found!.isError).toBe(false);
    expect(found!.content[0]).toMatchObject({ type: "text" });
    expect((found!.content[0] as { text: string }).text).toContain("export const value2 = 2;");
    expect(invalid!.isError).toBe(true);
  });
});
