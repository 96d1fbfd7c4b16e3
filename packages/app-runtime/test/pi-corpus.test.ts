/**
 * The corpus of real pi agent session files (`fixtures/pi-sessions/`, every format version; provenance in its
 * README), each checked against an independent reading: the context the REAL pi agent 0.73.1 builds from the
 * same file (`<name>.pi-context.json`, written by `scripts/pi-session-contexts.ts`). Every file is opened the
 * two ways a user opens it — imported (`arbor sessions import`) and resumed, or forked from the file in place
 * (`arbor --fork <file>`: read-only, migrated in memory) — and continued through the runtime with a scripted
 * model; the request that model receives must hold pi's messages in pi's order, every tool call with its
 * result (pi's request: its context passed through pi-ai's `transformMessages` for a model of another
 * provider, as here).
 *
 * What is compared is what a model sees (see `pi-context-form.ts`): roles, text, images, thinking, tool calls
 * with their ids, names and arguments, tool results with the call they answer and whether they are errors.
 * Two things each agent words its own way are compared by their essence: the wrapper of a summary and of a
 * shell command the user ran (`from`), and the text of the error result given to a call that has none
 * (`synthetic`).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Message } from "@arbor/ai-providers";
import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import {
  convertSessionMessagesToLlm,
  type SessionContext,
  type SessionMessage,
  summarizeSessionNotices,
} from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { describe, expect, it } from "vitest";
import { createAppRuntime } from "../src/create-app-runtime.js";
import type { StoreFactories } from "../src/factories.js";
import type { SessionChoice } from "../src/session-choice.js";
import { readSessionFileForImport } from "../src/sessions/import-file.js";
import { importReportLines, importSessionFile } from "../src/sessions/import-session.js";
import { temporaryDirectory } from "./helpers.js";
import {
  type CompactMessage,
  compactLlmMessages,
  type PiContextFile,
  sourceText,
} from "./pi-context-form.js";

const CORPUS = join(import.meta.dirname, "../../../fixtures/pi-sessions");
const stores: StoreFactories = { jsonl: () => import("@arbor/session-store-jsonl") };

/** Every session file of the corpus (relative to it) that has pi's context beside it. */
function corpusFiles(): string[] {
  const files: string[] = [];
  for (const folder of ["", "v1", "v2", "v3"]) {
    let names: string[];
    try {
      names = readdirSync(join(CORPUS, folder));
    } catch {
      continue;
    }
    for (const name of names.sort()) {
      if (!name.endsWith(".jsonl")) continue;
      const file = folder === "" ? name : `${folder}/${name}`;
      if (names.includes(name.replace(/\.jsonl$/, ".pi-context.json"))) files.push(file);
    }
  }
  return files;
}

function expectedOf(file: string): PiContextFile {
  return JSON.parse(
    readFileSync(join(CORPUS, file.replace(/\.jsonl$/, ".pi-context.json")), "utf8"),
  ) as PiContextFile;
}

/**
 * The request's messages in the compact form: a user message whose text is the wording of a summary or shell
 * command of the session's context is compared by its essence; an error result the repair gave a call that
 * had none is marked synthetic (its wording is Arbor's own).
 */
function compactRequest(request: readonly Message[], context: SessionContext): CompactMessage[] {
  const sources = new Map<string, { role: string; text: string }>();
  for (const message of context.messages) {
    const text = sourceText(message as unknown as Record<string, unknown>);
    if (text === undefined) continue;
    for (const converted of convertSessionMessagesToLlm([message as SessionMessage])) {
      const content = converted.content;
      const wording =
        typeof content === "string"
          ? content
          : content.map((block) => ("text" in block ? block.text : "")).join("\n");
      sources.set(wording, { role: message.role, text });
    }
  }
  const synthetic = new Set(
    context.repairs.flatMap((repair) => (repair.kind === "missing_tool_result" ? [repair.toolCallId] : [])),
  );
  return compactLlmMessages(request, (message) => {
    const { role, content } = message as Message;
    if (role !== "user") return undefined;
    const wording =
      typeof content === "string"
        ? content
        : content.map((block) => ("text" in block ? block.text : "")).join("\n");
    return sources.get(wording);
  }).map((message) =>
    message.role === "toolResult" && synthetic.has(message.toolCallId ?? "") ? withoutText(message) : message,
  );
}

/** A synthetic result: each agent words its text its own way. */
function withoutText(message: CompactMessage): CompactMessage {
  const { text: _, textHash: __, ...rest } = message;
  return { ...rest, text: "(synthetic)", textHash: "" };
}

/** pi's request, its synthetic results marked (pi words them "No result provided"). */
function piRequest(expected: PiContextFile): CompactMessage[] {
  const answered = new Set(
    expected.messages.flatMap((message) => (message.role === "toolResult" ? [message.toolCallId] : [])),
  );
  return expected.request.map((message) =>
    message.role === "toolResult" && !answered.has(message.toolCallId) ? withoutText(message) : message,
  );
}

/** Continues a session through the runtime with a scripted model; the messages that model received. */
async function continueSession(home: string, session: SessionChoice): Promise<{ sent: CompactMessage[] }> {
  const provider = createScriptedProvider([script.text("Continued.")], {
    // The id `--provider scripted` chooses; a window no corpus file fills (nothing is compacted first).
    model: { id: "demo", contextWindow: 10_000_000, maxTokens: 16_384 },
  });
  const runtime = await createAppRuntime({
    cwd: temporaryDirectory(),
    env: {},
    home,
    providers: { scripted: async () => ({ createDemoProvider: () => provider }) },
    stores,
    flags: { provider: "scripted" },
    session,
    tools: false,
    extensions: false,
  });
  try {
    const context = runtime.session.session.buildContext();
    await runtime.session.prompt("Continue.");
    const call = provider.calls[0];
    if (call === undefined) throw new Error("the model was not called");
    const messages = call.context.messages;
    expect(messages.at(-1)).toMatchObject({ role: "user", content: [{ type: "text", text: "Continue." }] });
    return { sent: compactRequest(messages.slice(0, -1), context) };
  } finally {
    await runtime.dispose();
  }
}

function toolPairs(messages: readonly CompactMessage[]): { calls: number; results: number } {
  let calls = 0;
  for (const message of messages) calls += message.toolCalls?.length ?? 0;
  return { calls, results: messages.filter((message) => message.role === "toolResult").length };
}

describe.each(corpusFiles())("pi session file %s", (file) => {
  const path = join(CORPUS, file);
  const expected = expectedOf(file);
  const request = piRequest(expected);

  it("imported and resumed, Arbor sends pi's context: same messages, same order, every call with its result", async () => {
    const home = temporaryDirectory();
    const imported = readSessionFileForImport(readFileSync(path, "utf8"), path);
    const store = new JsonlSessionStore({ home });
    const report = await importSessionFile(store, imported);
    await store.close();
    // The report counts every warning and prints one line per kind.
    const lines = importReportLines(path, report, false);
    const warnings = imported.notices.filter((notice) => notice.level === "warning");
    const kinds = new Set(warnings.map((notice) => notice.kind));
    expect(lines).toContain(
      warnings.length === 0
        ? "  no warnings"
        : `  ${warnings.length.toLocaleString("en-US")} warning${warnings.length === 1 ? "" : "s"}:`,
    );
    expect(summarizeSessionNotices(imported.notices, "warning")).toHaveLength(kinds.size);
    expect(lines.filter((line) => line.startsWith("    - "))).toHaveLength(
      kinds.size +
        new Set(imported.notices.filter((notice) => notice.level === "note").map((notice) => notice.kind))
          .size,
    );

    const { sent } = await continueSession(home, { kind: "open", reference: report.sessionId });
    expect(toolPairs(sent)).toEqual(toolPairs(request));
    expect(sent).toEqual(request);
  });

  it("forked from the file in place, Arbor sends pi's context too", async () => {
    const { sent } = await continueSession(temporaryDirectory(), { kind: "fork", reference: path });
    expect(sent).toEqual(request);
  });
});

describe("the corpus", () => {
  it("holds files of every format version", () => {
    const versions = corpusFiles().map((file) => {
      const header = JSON.parse(readFileSync(join(CORPUS, file), "utf8").split("\n", 1)[0] as string) as {
        version?: number;
      };
      return header.version ?? 1;
    });
    expect(new Set(versions)).toEqual(new Set([1, 2, 3]));
  });

  it("large-session.jsonl (v1, no usage.totalTokens): all 373 tool calls with their results, one note", () => {
    const imported = readSessionFileForImport(
      readFileSync(join(CORPUS, "v1/large-session.jsonl"), "utf8"),
      "large-session.jsonl",
    );
    expect(summarizeSessionNotices(imported.notices, "warning")).toEqual([]);
    expect(summarizeSessionNotices(imported.notices, "note")).toEqual([
      "453 assistant messages had no usage.totalTokens: filled from their token counts (e.g. entry dd1329f5; entry 94ce9e2d)",
    ]);
    expect(toolPairs(piRequest(expectedOf("v1/large-session.jsonl")))).toEqual({ calls: 373, results: 373 });
  });
});
