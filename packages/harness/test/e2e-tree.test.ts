import type { AgentMessage } from "@arbor/agent-core";
import { script } from "@arbor/ai-providers/testing";
import {
  BRANCH_SUMMARY_PREFIX,
  type BranchSummaryEntry,
  COMPACTION_SUMMARY_PREFIX,
  SessionEntryNotFoundError,
} from "@arbor/session-store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  bulkTool,
  createStoreFixture,
  createTestHarness,
  echoTool,
  messageEntryId,
  recordEvents,
  STORE_KINDS,
  type StoreFixture,
  storedEntries,
  textOf,
} from "./helpers.js";

const entryOf = messageEntryId;

function roles(messages: readonly unknown[]): string[] {
  return messages.map((message) => {
    const { role } = message as { role: string };
    const text = textOf(message);
    return role === "branchSummary" || role === "compactionSummary" ? role : `${role}:${text}`;
  });
}

describe.each(STORE_KINDS)("tree navigation, fork and reopen (%s store)", (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture(kind);
  });
  afterEach(async () => fixture.cleanup());

  it("navigateTree writes a branch summary and the next context is [path, summary, new prompt]", async () => {
    const { harness, provider, summarizer } = createTestHarness(fixture, {
      steps: [script.text("A"), script.text("B"), script.text("C"), script.text("E")],
    });
    const session = await harness.newSession();
    await session.prompt("a");
    await session.prompt("b");
    await session.prompt("c");
    const events = recordEvents(session);
    const target = entryOf(session, "A");

    const result = await session.navigateTree(target, { instructions: "Say what b and c asked" });
    expect(result.kind).toBe("moved");
    if (result.kind !== "moved") return;
    expect(summarizer.count()).toBe(1);
    const summaryRequest = textOf(summarizer.calls[0]!.context.messages[0]);
    expect(summaryRequest).toContain("b");
    expect(summaryRequest).toContain("Say what b and c asked");
    const summaryEntry = session.session.getEntry(result.summaryEntryId!) as BranchSummaryEntry;
    expect(summaryEntry.type).toBe("branch_summary");
    expect(summaryEntry.parentId).toBe(target);
    expect(summaryEntry.fromId).toBe(target);
    expect(session.session.leafId).toBe(summaryEntry.id);
    expect(events.some((event) => event.type === "branch_summary" && event.entryId === summaryEntry.id)).toBe(
      true,
    );
    expect(roles(session.state.messages)).toEqual(["user:a", "assistant:A", "branchSummary"]);

    await session.prompt("e");
    const sent = provider.calls.at(-1)!.context.messages;
    expect(sent.map((message) => message.role)).toEqual(["user", "assistant", "user", "user"]);
    expect(textOf(sent[2])).toContain(BRANCH_SUMMARY_PREFIX.slice(0, 30));
    expect(textOf(sent[2])).toContain("Summary number 1");
    expect(textOf(sent[3])).toBe("e");
    // The abandoned branch is still in the store.
    const stored = await storedEntries(fixture.store, session.id);
    expect(stored.some((entry) => entry.type === "message" && textOf(entry.message) === "C")).toBe(true);
  });

  it("navigateTree without a summary moves the leaf with a leaf entry; after a compaction the summary comes first", async () => {
    const { harness, provider } = createTestHarness(fixture, {
      steps: [
        script.toolCall("bulk", { part: 1 }),
        script.toolCall("bulk", { part: 2 }),
        script.text("two parts"),
        script.text("D"),
        script.text("G"),
        script.text("F"),
      ],
      harness: { tools: [bulkTool(2400)], settings: { compaction: { keepRecentTokens: 700 } } },
    });
    const session = await harness.newSession();
    await session.prompt("parts");
    expect((await session.compact()).kind).toBe("compacted");
    await session.prompt("d");
    await session.prompt("g");
    const target = entryOf(session, "D");
    const result = await session.navigateTree(target, { summarize: false });
    expect(result).toMatchObject({ kind: "moved", leafId: target });
    expect(session.session.leafId).toBe(target);
    const leafEntry = session.session.getEntry(result.kind === "moved" ? result.entries[0]!.id : "")!;
    expect(leafEntry).toMatchObject({ type: "leaf", targetId: target });
    await session.prompt("f");
    const sent = provider.calls.at(-1)!.context.messages;
    expect(textOf(sent[0]).startsWith(COMPACTION_SUMMARY_PREFIX)).toBe(true);
    expect(sent.slice(-3).map(textOf)).toEqual(["d", "D", "f"]);
    expect(sent.some((message) => textOf(message) === "g")).toBe(false);
  });

  it("navigateTree rejects an unknown entry before anything happens", async () => {
    const { harness } = createTestHarness(fixture, { steps: [script.text("A")] });
    const session = await harness.newSession();
    await session.prompt("a");
    const leaf = session.session.leafId;
    await expect(session.navigateTree("nope0000")).rejects.toBeInstanceOf(SessionEntryNotFoundError);
    expect(session.session.leafId).toBe(leaf);
    expect(session.isBusy).toBe(false);
  });

  it("fork copies the path into a new session that runs on its own", async () => {
    const { harness, provider } = createTestHarness(fixture, {
      steps: [script.text("A"), script.text("B"), script.text("B2"), script.text("A2")],
    });
    const session = await harness.newSession();
    await session.prompt("a");
    await session.prompt("b");
    const atB = await session.fork(entryOf(session, "B"));
    expect(atB.id).not.toBe(session.id);
    expect(atB.session.header.parentSession).toBe(session.id);
    expect(roles(atB.state.messages)).toEqual(["user:a", "assistant:A", "user:b", "assistant:B"]);
    await atB.prompt("b2");
    expect(textOf(provider.calls.at(-1)!.context.messages.at(-2))).toBe("B");

    const beforeB = await session.fork(entryOf(session, "b"), "before");
    expect(roles(beforeB.state.messages)).toEqual(["user:a", "assistant:A"]);
    await beforeB.prompt("b, differently");
    expect(roles(beforeB.state.messages).slice(-2)).toEqual(["user:b, differently", "assistant:A2"]);
    // The original is unchanged, and the harness knows the forks.
    expect(roles(session.state.messages)).toEqual(["user:a", "assistant:A", "user:b", "assistant:B"]);
    expect(harness.sessions.map((open) => open.id).sort()).toEqual([session.id, atB.id, beforeB.id].sort());
    const reopenedFork = await fixture.store.readSession(atB.id);
    expect(reopenedFork.entries.length).toBeGreaterThan(4);
  });

  it("closing and reopening rebuilds the identical context, model, thinking level and tools", async () => {
    const other = { ...createTestHarness(fixture).provider.model, id: "other-model", contextWindow: 50_000 };
    const first = createTestHarness(fixture, {
      steps: [
        script.toolCall("bulk", { part: 1 }),
        script.toolCall("echo", { text: "hello" }),
        script.text("done"),
        script.text("second"),
        script.text("third"),
      ],
      harness: {
        tools: [bulkTool(2400), echoTool()],
        models: [other],
        settings: { compaction: { keepRecentTokens: 500 } },
      },
    });
    const session = await first.harness.newSession({ name: "reopen test" });
    await session.prompt("go");
    expect((await session.compact()).kind).toBe("compacted");
    await session.prompt("two");
    await session.setModel("scripted/other-model");
    await session.setThinkingLevel("high");
    await session.setActiveTools(["echo", "recall"]);
    await session.navigateTree(entryOf(session, "second"));
    await session.prompt("three");
    await session.label(entryOf(session, "three"), "checkpoint");
    const expected = {
      messages: JSON.stringify(session.state.messages),
      model: session.state.model.id,
      thinkingLevel: session.state.thinkingLevel,
      tools: session.state.activeToolNames,
      leafId: session.session.leafId,
      name: session.session.name,
      systemPrompt: session.systemPrompt,
    };
    await session.close();
    await expect(session.prompt("closed")).rejects.toThrow(/closed/);

    const store = await fixture.reopen();
    const second = createTestHarness(
      { ...fixture, store },
      { harness: { tools: [bulkTool(2400), echoTool()], models: [other] } },
    );
    const reopened = await second.harness.openSession(session.id);
    expect(JSON.stringify(reopened.state.messages)).toBe(expected.messages);
    expect(reopened.state.model.id).toBe(expected.model);
    expect(reopened.state.thinkingLevel).toBe(expected.thinkingLevel);
    expect(reopened.state.activeToolNames).toEqual(expected.tools);
    expect(reopened.session.leafId).toBe(expected.leafId);
    expect(reopened.session.name).toBe("reopen test");
    expect(reopened.session.getLabel(entryOf(reopened, "three"))).toBe("checkpoint");
    expect(reopened.systemPrompt).toBe(expected.systemPrompt);
    expect(reopened.warnings).toEqual([]);
    const compactionSummaries = (reopened.state.messages as AgentMessage[]).filter(
      (message) => (message as { role: string }).role === "compactionSummary",
    );
    expect(compactionSummaries).toHaveLength(1);
  });
});
