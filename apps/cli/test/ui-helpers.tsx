/**
 * Shared by the interactive-mode tests: a real `AppRuntime` built from the harness, the scripted provider
 * and `MemorySessionStore` (no network, no files but exports), the app rendered with ink-testing-library,
 * key sequences, and a small poller that waits for a frame.
 */
import { EventEmitter } from "node:events";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AgentTool } from "@arbor/agent-core";
import { createProviderRegistry, type Model } from "@arbor/ai-providers";
import {
  createScriptedProvider,
  type ScriptedProvider,
  type ScriptedStep,
} from "@arbor/ai-providers/testing";
import {
  type AppRuntime,
  createSessionOperations,
  type SessionOperations,
  UnsavedWork,
} from "@arbor/app-runtime";
import { ExtensionHost } from "@arbor/app-runtime/extensions";
import { type InteractiveController, runUserShellCommand, withFileMentions } from "@arbor/app-runtime/input";
import { PermissionGate, resolvePermissionPolicy } from "@arbor/app-runtime/permissions";
import { createHarness, type HarnessSession, type HarnessSettings } from "@arbor/harness";
import { createResourceLoader, createSystemPromptBuilder } from "@arbor/harness/resources";
import { MemorySessionStore, type SessionSummary } from "@arbor/session-store";
import { exportHtml, exportJsonl, exportMarkdown, type SessionViewModel } from "@arbor/session-view";
import { render } from "ink-testing-library";
import { afterEach } from "vitest";
import { App } from "../src/ui/app.js";
import { createTheme } from "../src/ui/theme.js";
import { createSessionView } from "../src/ui/use-session-view.js";

const cleanups: (() => void | Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A fresh temporary directory, removed after the test. */
export function temporaryDirectory(): string {
  const directory = mkdtempSync(join(tmpdir(), "arbor-ui-"));
  cleanups.push(() => rmSync(directory, { recursive: true, force: true }));
  return directory;
}

/** Options of {@link createTestRuntime}. */
export interface TestRuntimeOptions {
  /** The permission mode (default `auto`). */
  permissions?: "auto" | "ask" | "edits" | "plan";
  steps?: ScriptedStep[];
  tools?: AgentTool[];
  settings?: HarnessSettings;
  /** Fields of the scripted model to override. */
  model?: Partial<Model>;
  /** Delay between streamed chunks (default 0: one event-loop turn per chunk). */
  chunkDelayMs?: number;
  /**
   * Files written into the runtime's cwd before the harness starts (e.g. `.arbor/skills/x/SKILL.md`); with
   * them, the harness loads skills and prompt templates.
   */
  files?: Record<string, string>;
  /** The harness's wait between retries (default: the real one). */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  persistent?: boolean;
  /** Loaded extensions (bound to the runtime here; default none). */
  extensions?: ExtensionHost;
}

/** A runtime over real packages, with what the tests look at. */
export interface TestRuntime extends AppRuntime {
  readonly provider: ScriptedProvider;
  /** A second provider (`other/big-model`) for /model. */
  readonly other: ScriptedProvider;
  /** Failures the harness reported to `onError`. */
  readonly errors: unknown[];
  /** Sessions closed by switching. */
  readonly closed: string[];
}

/**
 * A `AppRuntime` built the way the CLI builds one, on the scripted provider and `MemorySessionStore`;
 * exports go to a temporary directory (the runtime's `cwd`).
 */
export async function createTestRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  const cwd = temporaryDirectory();
  for (const [path, text] of Object.entries(options.files ?? {})) {
    mkdirSync(dirname(join(cwd, path)), { recursive: true });
    writeFileSync(join(cwd, path), text);
  }
  const provider = createScriptedProvider(options.steps ?? [], {
    model: options.model,
    chunkDelayMs: options.chunkDelayMs,
  });
  const other = createScriptedProvider([], {
    id: "other",
    model: { id: "big-model", name: "Big model", contextWindow: 400_000, reasoning: false },
  });
  const registry = createProviderRegistry([provider, other]);
  const store = new MemorySessionStore();
  const errors: unknown[] = [];
  const unsavedWork = new UnsavedWork(() => undefined);
  const closed: string[] = [];
  const extensions = options.extensions ?? ExtensionHost.empty({ cwd, home: join(cwd, "arbor-home") });
  const harness = createHarness({
    registry,
    model: provider.model,
    store,
    tools: options.tools ?? [],
    settings: options.settings,
    cwd,
    // `@path` attaches files as createAppRuntime's sessions do.
    resources: withFileMentions(
      options.files === undefined ? undefined : createResourceLoader({ home: join(cwd, "arbor-home") }),
      cwd,
      (notice) => extensions.notice(notice.message, notice.level),
    ),
    systemPrompt: createSystemPromptBuilder(),
    recallTool: false,
    sleep: options.sleep,
    onError: (error) => {
      errors.push(error);
      unsavedWork.reportError(error);
    },
  });
  let current: HarnessSession = await harness.newSession();
  // The permission gate, as createAppRuntime() wires it (mode `auto` unless the test chooses).
  const permissions = new PermissionGate(resolvePermissionPolicy(undefined, options.permissions), {
    cwd,
    session: () => current,
  });
  harness.on("tool_call", (event, context) => permissions.check(event, context));
  const replace = async (next: HarnessSession) => {
    if (next === current) return;
    const previous = current;
    current = next;
    closed.push(previous.id);
    await previous.close();
    for (const listener of listeners) listener(current);
  };
  const listeners = new Set<(session: HarnessSession) => void>();
  const runtime: TestRuntime = {
    cwd,
    home: join(cwd, "arbor-home"),
    version: "0.0.0-test",
    sessionFile: undefined,
    harness,
    get session() {
      return current;
    },
    registry,
    model: provider.model,
    store,
    storeDescription: options.persistent === false ? undefined : "memory",
    persistent: options.persistent !== false,
    extensions,
    mcp: undefined,
    permissions,
    runShellCommand: (command, signal) => runUserShellCommand(cwd, command, signal),
    provider,
    other,
    errors,
    closed,
    async newSession() {
      await replace(await harness.newSession());
      return current;
    },
    async openSession(reference) {
      const { sessions } = await store.listSessions({ limit: 500 });
      const matches = sessions.filter((summary) => summary.id.startsWith(reference));
      if (matches.length !== 1) throw new Error(`no single session matches "${reference}"`);
      await replace(await harness.openSession(matches[0]!.id));
      return current;
    },
    async switchTo(session) {
      await replace(session);
    },
    async listSessions(query = {}): Promise<SessionSummary[]> {
      const page = await store.listSessions({ cwd: query.all ? undefined : cwd, limit: query.limit });
      return page.sessions;
    },
    async exportSession(format, file) {
      const path = join(cwd, file ?? `${current.id}.${format}`);
      const text =
        format === "html"
          ? exportHtml(current.session)
          : format === "md"
            ? exportMarkdown(current.session)
            : (await exportJsonl(store, current.id)).text;
      writeFileSync(path, text);
      return path;
    },
    async loadModel(reference) {
      return registry.resolveModel(reference);
    },
    onSessionChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    watchUnsavedWork(watchOptions) {
      return unsavedWork.watchAcross(runtime, watchOptions);
    },
    async dispose() {
      for (const session of harness.sessions) session.abort();
      await harness.close();
    },
  } as Omit<TestRuntime, keyof SessionOperations> as TestRuntime;
  // The session operations are app-runtime's own, over this hand-made runtime.
  Object.assign(runtime, createSessionOperations(runtime));
  cleanups.push(() => runtime.dispose());
  await options.extensions?.bind({
    session: () => runtime.session,
    loadModel: (reference) => runtime.loadModel(reference),
  });
  return runtime;
}

/** Keys as a terminal sends them. */
export const KEYS = {
  enter: "\r",
  altEnter: "\u001b\r",
  escape: "\u001b",
  ctrlC: "\u0003",
  up: "\u001b[A",
  down: "\u001b[B",
  tab: "\t",
  backspace: "\u007f",
} as const;

/** The app rendered for a test. */
export interface RenderedApp {
  readonly store: SessionViewModel;
  readonly frames: string[];
  lastFrame(): string;
  /** Types text (one paste-like chunk). */
  type(text: string): void;
  /** Sends one key (see {@link KEYS}). */
  press(key: string): Promise<void>;
  /** Types a line and presses Enter. */
  submit(text: string): Promise<void>;
  /** Waits until the last frame satisfies `predicate` (or contains the text). */
  waitForFrame(predicate: string | ((frame: string) => boolean), timeoutMs?: number): Promise<string>;
  /**
   * Waits until the session is idle, what the controller started has finished and the live part is empty;
   * returns the last frame then.
   */
  settle(): Promise<string>;
  /** The controller (available after the first render). */
  controller(): InteractiveController;
  /** Whether the app quit. */
  quit(): boolean;
  unmount(): void;
}

/** Waits one turn of the event loop (ink flushes a lone Esc on `setImmediate`). */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Waits until `condition()` holds, polling every few milliseconds. */
export async function waitUntil(
  condition: () => boolean,
  describe: () => string,
  timeoutMs = 4000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting: ${describe()}`);
    await new Promise((resolve) => setTimeout(resolve, 3));
  }
}

/** Renders the app over a runtime, as `runInteractive` does (without the banner). */
export function renderApp(
  runtime: AppRuntime,
  options: { color?: boolean; initialPrompt?: string } = {},
): RenderedApp {
  const store = createSessionView(runtime.persistent);
  store.attach(runtime.session);
  let controller: InteractiveController | undefined;
  let quit = false;
  const result = render(
    <App
      runtime={runtime}
      store={store}
      theme={createTheme(options.color ?? false)}
      initialPrompt={options.initialPrompt}
      onController={(value) => {
        controller = value;
      }}
      onQuit={() => {
        quit = true;
      }}
    />,
  );
  cleanups.push(() => {
    result.unmount();
    store.detach();
  });
  const app: RenderedApp = {
    store,
    frames: result.frames,
    lastFrame: () => result.lastFrame() ?? "",
    type: (text) => result.stdin.write(text),
    async press(key) {
      result.stdin.write(key);
      await tick();
    },
    async submit(text) {
      result.stdin.write(text);
      result.stdin.write(KEYS.enter);
      await tick();
    },
    async waitForFrame(predicate, timeoutMs) {
      const test = typeof predicate === "string" ? (frame: string) => frame.includes(predicate) : predicate;
      await waitUntil(
        () => test(app.lastFrame()),
        () => `frame matching ${String(predicate)}; last frame:\n${app.lastFrame()}`,
        timeoutMs,
      );
      return app.lastFrame();
    },
    async settle() {
      await waitUntil(
        () => controller !== undefined,
        () => "the app to render",
      );
      await controller!.settled();
      await runtime.session.waitForIdle();
      await waitUntil(
        () => !store.live.busy && store.live.streaming === undefined && store.live.tools.length === 0,
        () => `the live part to empty; last frame:\n${app.lastFrame()}`,
      );
      await tick();
      return app.lastFrame();
    },
    controller: () => {
      if (controller === undefined) throw new Error("the app has not rendered yet");
      return controller;
    },
    quit: () => quit,
    unmount: () => result.unmount(),
  };
  return app;
}

/** The part of a frame below the transcript: from the editor's top border on (editor and footer). */
export function bottomOf(frame: string): string {
  const index = frame.lastIndexOf("╭");
  return index === -1 ? frame : frame.slice(index);
}

/** A terminal for `runInteractive`: a TTY stdin to type into and a stdout that records what is drawn. */
export class FakeTerminal {
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  /** Everything written to stdout. */
  output = "";
  /** Everything written to stderr. */
  errors = "";

  constructor(options: { tty?: boolean } = {}) {
    const pending: string[] = [];
    const stdin = new EventEmitter() as EventEmitter & Record<string, unknown>;
    Object.assign(stdin, {
      isTTY: options.tty !== false,
      setRawMode: () => stdin,
      setEncoding: () => stdin,
      ref: () => stdin,
      unref: () => stdin,
      resume: () => stdin,
      pause: () => stdin,
      read: () => pending.shift() ?? null,
    });
    this.stdin = stdin as unknown as NodeJS.ReadStream;
    const stdout = new EventEmitter() as EventEmitter & Record<string, unknown>;
    Object.assign(stdout, {
      isTTY: true,
      columns: 100,
      rows: 40,
      write: (chunk: string) => {
        this.output += chunk;
        return true;
      },
    });
    this.stdout = stdout as unknown as NodeJS.WriteStream;
    const stderr = new EventEmitter() as EventEmitter & Record<string, unknown>;
    Object.assign(stderr, {
      write: (chunk: string) => {
        this.errors += chunk;
        return true;
      },
    });
    this.stderr = stderr as unknown as NodeJS.WriteStream;
    this.write = (data: string) => {
      pending.push(data);
      stdin.emit("readable");
    };
  }

  /** Sends keys. */
  readonly write: (data: string) => void;
}
