import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AgentTool, defineTool, Type } from "@arbor/agent-core";
import type { Model, StreamFn } from "@arbor/ai-providers";
import {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedStep,
  script,
} from "@arbor/ai-providers/testing";
import { MemorySessionStore, type SessionEntry, type SessionStore } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import {
  type AgentHarness,
  createHarness,
  type HarnessEvent,
  type HarnessOptions,
  type HarnessSession,
} from "../src/index.js";
import { createResourceLoader, createSystemPromptBuilder } from "../src/resources/index.js";

/** A store under test: created in a temp ARBOR_HOME (JSONL) or in memory, and reopenable as a fresh instance. */
export interface StoreFixture {
  readonly name: string;
  readonly home: string;
  readonly cwd: string;
  store: SessionStore;
  /** A new store instance over the same data (for JSONL: closes the old one and reads the files again). */
  reopen(): Promise<SessionStore>;
  /** The raw stored lines of a session, when the store has files (JSONL), else undefined. */
  fileText(sessionId: string): Promise<string | undefined>;
  cleanup(): Promise<void>;
}

/** The two stores every end-to-end test runs over. */
export const STORE_KINDS = ["memory", "jsonl"] as const;

export async function createStoreFixture(kind: (typeof STORE_KINDS)[number]): Promise<StoreFixture> {
  const root = await mkdtemp(join(tmpdir(), "arbor-harness-"));
  const home = join(root, "home");
  const cwd = join(root, "project");
  if (kind === "memory") {
    const store = new MemorySessionStore();
    return {
      name: kind,
      home,
      cwd,
      store,
      reopen: async () => store,
      fileText: async () => undefined,
      cleanup: () => rm(root, { recursive: true, force: true }),
    };
  }
  const fixture: StoreFixture = {
    name: kind,
    home,
    cwd,
    store: new JsonlSessionStore({ home, durability: "flush" }),
    async reopen() {
      await (fixture.store as JsonlSessionStore).close();
      fixture.store = new JsonlSessionStore({ home, durability: "flush" });
      return fixture.store;
    },
    async fileText(sessionId) {
      const path = (fixture.store as JsonlSessionStore).pathOf(sessionId);
      return path === undefined ? undefined : readFile(path, "utf8");
    },
    async cleanup() {
      await (fixture.store as JsonlSessionStore).close();
      await rm(root, { recursive: true, force: true });
    },
  };
  return fixture;
}

/** The ids of a session's entries as the store holds them now (what a reader of the file would see). */
export async function storedEntries(store: SessionStore, sessionId: string): Promise<SessionEntry[]> {
  const stored = await store.readSession(sessionId);
  return stored.entries.map((entry) => entry.entry());
}

/** A summarizer model that answers every call with a numbered summary, forever. */
export function createSummarizer(): ScriptedProvider & { count(): number } {
  let calls = 0;
  const provider = createScriptedProvider(
    () => {
      calls++;
      return script.text(`## Goal\n- Summary number ${calls}`);
    },
    {
      id: "summarizer",
      model: { id: "summarizer-model", contextWindow: 200_000, maxTokens: 8192 },
      chunkSize: 1000,
    },
  );
  return Object.assign(provider, { count: () => calls });
}

/** A tool that returns `size` characters of text (to fill the context). */
export function bulkTool(size = 2000): AgentTool {
  return defineTool({
    name: "bulk",
    description: "Returns a block of text",
    parameters: Type.Object({ part: Type.Integer() }),
    execute: ({ part }) => ({ content: [{ type: "text", text: `part ${part}: ${"x".repeat(size)}` }] }),
  }) as unknown as AgentTool;
}

/** A tool that echoes its argument. */
export function echoTool(): AgentTool {
  return defineTool({
    name: "echo",
    description: "Echo the text back",
    parameters: Type.Object({ text: Type.String() }),
    execute: ({ text }) => ({ content: [{ type: "text", text: `echo: ${text}` }] }),
  }) as unknown as AgentTool;
}

/** Everything a test harness is made of. */
export interface TestHarness {
  harness: AgentHarness;
  provider: ScriptedProvider;
  summarizer: ReturnType<typeof createSummarizer>;
  errors: unknown[];
  sleeps: number[];
  /** Every model call in order: `main` or `summarizer`. */
  calls: string[];
}

/** Builds a harness over a fixture with a scripted main model and a scripted summarizer. */
export function createTestHarness(
  fixture: StoreFixture,
  options: {
    steps?: ScriptedStep[];
    model?: Partial<Model>;
    harness?: Partial<HarnessOptions>;
    wrapStream?: (stream: StreamFn) => StreamFn;
  } = {},
): TestHarness {
  const provider = createScriptedProvider(options.steps ?? [], {
    model: { contextWindow: 100_000, maxTokens: 4096, ...options.model },
    chunkSize: 64,
  });
  const summarizer = createSummarizer();
  const errors: unknown[] = [];
  const sleeps: number[] = [];
  const calls: string[] = [];
  const main: StreamFn = (model, context, streamOptions) => {
    calls.push("main");
    return provider.stream(model, context, streamOptions);
  };
  const summarize: StreamFn = (model, context, streamOptions) => {
    calls.push("summarizer");
    return summarizer.stream(model, context, streamOptions);
  };
  const harness = createHarness({
    streamFn: options.wrapStream ? options.wrapStream(main) : main,
    model: provider.model,
    store: fixture.store,
    cwd: fixture.cwd,
    resources: createResourceLoader({ home: fixture.home }),
    systemPrompt: createSystemPromptBuilder(),
    summarizer: { model: summarizer.model, streamFn: summarize },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    onError: (error) => errors.push(error),
    ...options.harness,
    settings: { retry: { jitter: 0 }, ...options.harness?.settings },
  });
  return { harness, provider, summarizer, errors, sleeps, calls };
}

/** Collects a session's events. */
export function recordEvents(session: HarnessSession): HarnessEvent[] {
  const events: HarnessEvent[] = [];
  session.subscribe((event) => {
    events.push(event);
  });
  return events;
}

/** The text of a message's content (text blocks joined). */
export function textOf(message: unknown): string {
  if (typeof message !== "object" || message === null) return "";
  const content = (message as { content?: unknown }).content;
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((block: { type: string; text?: string }) => (block.type === "text" ? block.text : ""))
    .join("");
}

/** The entry id of the first message on the session's path whose text is `text`. */
export function messageEntryId(session: HarnessSession, text: string): string {
  for (const ref of session.session.getPath()) {
    const entry = ref.entry();
    if (entry?.type === "message" && textOf(entry.message) === text) return entry.id;
  }
  throw new Error(`no message "${text}" on the path`);
}
