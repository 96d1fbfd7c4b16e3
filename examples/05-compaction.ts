/**
 * 05 — compaction: a session with a long coding history (60 turns of reads and edits) has grown past its
 * model's window. We estimate its context, plan a compaction, and summarize the history with a separate,
 * small summarizer model — too small to read the history at once, so it is summarized in chunks, each
 * folded into the running summary. Then more work, and a second compaction whose summarizer fails: the
 * deterministic fallback still frees the space. Every summary says which entries it covers, so the
 * originals can be found again. Runs offline, no API key:
 *
 *   pnpm exec tsx --conditions=@arbor/source examples/05-compaction.ts
 */
import type { AssistantMessage, Model } from "@arbor/ai-providers";
import {
  createScriptedProvider,
  estimateContextChars,
  type ScriptedStep,
  script,
} from "@arbor/ai-providers/testing";
import {
  type CompactionResult,
  compact,
  coveredEntryIds,
  estimateContextTokens,
  prepareCompaction,
  resolveCompactionSettings,
  shouldCompact,
  TURN_PREFIX_PROMPT,
} from "@arbor/compaction";
import { MemorySessionStore, Session } from "@arbor/session-store";

// The session's model (a 64,000-token window) and a cheaper summarizer with a 16,000-token window.
const main = createScriptedProvider([], { model: { id: "coder", contextWindow: 64_000, maxTokens: 8192 } });
const summarizer = createScriptedProvider([], {
  id: "cheap",
  model: { id: "summarizer", contextWindow: 16_000, maxTokens: 4096 },
  chunkSize: 4096,
});
// The "summarizer model": it reports how much of the conversation it saw, and folds what it was given.
let overloaded = false;
const summarize: ScriptedStep = script.dynamic((call) => {
  summarizer.push(summarize);
  if (overloaded) return script.error('529 {"type":"error","error":{"type":"overloaded_error"}}');
  const prompt = call.context.messages[0]?.content;
  const text =
    typeof prompt === "string"
      ? prompt
      : (prompt?.map((block) => (block.type === "text" ? block.text : "")).join("") ?? "");
  const requests = [...text.matchAll(/\[User\]: Request (\d+)/g)].map((match) => Number(match[1]));
  if (text.endsWith(TURN_PREFIX_PROMPT)) {
    return script.text(
      `## Original Request\n- Request ${requests[0]}\n\n## Early Progress\n- The module was read`,
    );
  }
  const previous = /<previous-summary>\n## Goal\n- Refactor the modules \(requests 1-(\d+) done\)/.exec(
    text,
  )?.[1];
  const upTo = Math.max(Number(previous ?? 0), ...requests);
  return script.text(
    `## Goal\n- Refactor the modules (requests 1-${upTo} done)\n\n## Progress\n### Done\n- [x] Modules 1-${upTo} read and edited\n\n## Next Steps\n1. Continue with module ${upTo + 1}`,
  );
});
summarizer.push(summarize);

const settings = resolveCompactionSettings({ keepRecentTokens: 6000 }); // validated: a typo would throw
const session = await Session.create(new MemorySessionStore(), { cwd: "/project" });

function assistant(content: AssistantMessage["content"]): AssistantMessage {
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0 };
  return {
    role: "assistant",
    content,
    api: "scripted",
    provider: main.id,
    model: main.model.id,
    usage: { ...usage, cost: { ...usage, total: 0 } },
    stopReason: content.some((block) => block.type === "toolCall") ? "toolUse" : "stop",
    timestamp: Date.now(),
  };
}

function work(from: number, to: number): void {
  for (let turn = from; turn <= to; turn++) {
    const path = `src/module-${turn}.ts`;
    session.appendMessage({
      role: "user",
      content: `Request ${turn}: refactor ${path}`,
      timestamp: Date.now(),
    });
    for (const [id, name, args, output] of [
      [
        `read-${turn}`,
        "read",
        { path },
        `export function module${turn}() {\n${"  // old code\n".repeat(300)}}`,
      ],
      [`edit-${turn}`, "edit", { path, oldText: "// old code", newText: "// new code" }, "Applied 1 edit."],
    ] as const) {
      session.appendMessage(assistant([{ type: "toolCall", id, name, arguments: args }]));
      session.appendMessage({
        role: "toolResult",
        toolCallId: id,
        toolName: name,
        content: [{ type: "text", text: output }],
        isError: false,
        timestamp: Date.now(),
      });
    }
    session.appendMessage(assistant([{ type: "text", text: `Module ${turn} is refactored.` }]));
  }
}

async function compactNow(label: string, summarizerModel: Model): Promise<CompactionResult> {
  const before = estimateContextTokens(session.buildContext().messages).tokens;
  const window = main.model.contextWindow;
  console.log(`\n=== ${label}`);
  console.log(
    `context: ${before} tokens, window ${window}, compact: ${shouldCompact(before, window, settings)}`,
  );
  const plan = prepareCompaction(session.getBranch(), settings, { contextWindow: window });
  if (plan.kind !== "ready") throw new Error(`nothing to compact: ${plan.reason}`);
  console.log(
    `plan: summarize ${plan.messagesToSummarize.length} messages (${plan.summarizedTokens} tokens), keep ` +
      `${plan.keptMessages.length} (${plan.keptTokens} tokens)${plan.isSplitTurn ? ", split turn" : ""}`,
  );
  const calls = summarizer.calls.length;
  const outcome = await compact(plan, {
    stream: main.stream,
    model: main.model,
    summarizer: { model: summarizerModel, stream: summarizer.stream },
  });
  if (outcome.kind === "aborted") throw new Error(outcome.message);
  session.appendCompaction({
    summary: outcome.summary,
    firstKeptEntryId: outcome.firstKeptEntryId,
    tokensBefore: outcome.tokensBefore,
    details: outcome.details,
  });
  const after = estimateContextTokens(session.buildContext().messages).tokens;
  const largest = Math.max(
    ...summarizer.calls
      .slice(calls)
      .map((call) => Math.ceil(estimateContextChars(call.context) / 4) + Number(call.options.maxTokens)),
  );
  console.log(
    `summarizer calls: ${summarizer.calls.length - calls}, the largest ${largest} tokens (input + output cap) ` +
      `of its ${summarizerModel.contextWindow}-token window`,
  );
  console.log(
    `tokens: ${outcome.tokensBefore} -> ${outcome.tokensAfter} (estimated), ${after} after appending`,
  );
  if (outcome.details.fallback)
    console.log(`fallback: ${outcome.details.fallback.reason}: ${outcome.details.fallback.message}`);
  console.log(`--- summary (${outcome.summary.length} chars)\n${outcome.summary.slice(0, 900)}\n---`);
  const covered = coveredEntryIds(outcome.details, session.getBranch());
  const span = outcome.details.covered!;
  console.log(
    `covers ${covered.length} entries: ${span.firstEntryId} .. ${span.lastEntryId} (still in the log)`,
  );
  const first = session.getEntry(covered[0]!);
  if (first?.type === "message" && first.message.role === "user") {
    console.log(`first covered entry, recovered: ${JSON.stringify(first.message.content)}`);
  }
  return outcome;
}

work(1, 60);
await compactNow("compaction 1: a history larger than the summarizer's window", summarizer.model);

work(61, 75);
overloaded = true;
const second = await compactNow(
  "compaction 2 (manual, like /compact): the summarizer fails; the fallback still frees space",
  summarizer.model,
);
console.log(`\nfiles modified (cumulative over both compactions): ${second.details.modifiedFiles.length}`);
