/**
 * Writes session files of `fixtures/pi-sessions/v2/` and `v3/` with a REAL pi agent: the version given
 * (`@mariozechner/pi-coding-agent`; pi wrote format version 2 from 0.31.0 to 0.34.2 — 0.32.3 for `v2/` —
 * and version 3 since 0.35.0 — 0.73.1 for `v3/`), driven through its SDK (`createAgentSession`, its public
 * API) against a local mock of the Anthropic Messages API that this script serves on 127.0.0.1 (replies
 * chosen from the prompt: `[[tool:NAME {json}]]` asks for tool calls, `[[think]]` for a thinking block,
 * `[[fail]]` for an HTTP 400, `[[slow]]` for a reply the driver aborts; a summarization request gets a
 * summary). The project folder is a temporary one; its path is rewritten to `/home/user/project` in the
 * files (nothing else is changed).
 *
 * Needs the npm registry: pi is installed into a folder of os.tmpdir() on first use. Tests never run this
 * script. Run it, then `scripts/pi-session-contexts.ts` for the expected contexts:
 *
 *   pnpm exec tsx scripts/pi-session-corpus.ts 0.32.3
 *   pnpm exec tsx scripts/pi-session-corpus.ts 0.73.1
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { installPiAgent } from "../bench/src/pi-agent.ts";

const VERSION = process.argv[2] ?? "0.32.3";
const CORPUS = join(import.meta.dirname, "../fixtures/pi-sessions");
const PROJECT_PATH = "/home/user/project";

// ---- the mock model: Anthropic Messages, streamed ----------------------------------------------------------

type Block = Record<string, unknown>;
let sequence = 0;

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return (content as Block[])
    .map((block) =>
      block.type === "text" ? String(block.text) : block.type === "tool_result" ? "[result]" : "",
    )
    .join("\n");
}

/** The blocks of the reply and its stop reason, chosen from the request. */
function replyTo(body: Record<string, unknown>): { blocks: Block[]; stop: string } | "fail" | "slow" {
  const messages = body.messages as { role: string; content: unknown }[];
  const last = messages.at(-1);
  const lastText = textOf(last?.content);
  const system = JSON.stringify(body.system ?? "");
  if (system.includes("context summarization assistant")) {
    return {
      blocks: [
        {
          type: "text",
          text: "## Goal\nCheck that Arbor continues the sessions pi writes.\n\n## Progress\n- notes.txt written and read back\n\n## Next steps\n- continue the conversation",
        },
      ],
      stop: "end_turn",
    };
  }
  if (
    Array.isArray(last?.content) &&
    (last.content as Block[]).some((block) => block.type === "tool_result")
  ) {
    const results = (last.content as Block[]).filter((block) => block.type === "tool_result");
    const first = textOf(results[0]?.content).slice(0, 60);
    return {
      blocks: [
        {
          type: "text",
          text: `Received ${results.length} tool result(s); the first: ${JSON.stringify(first)}`,
        },
      ],
      stop: "end_turn",
    };
  }
  if (lastText.includes("[[fail]]")) return "fail";
  if (lastText.includes("[[slow]]")) return "slow";
  const blocks: Block[] = [];
  if (lastText.includes("[[think]]")) {
    blocks.push({
      type: "thinking",
      thinking: "The user wants me to think first. I will answer briefly.",
      signature: `sig-${++sequence}`,
    });
  }
  const calls = [...lastText.matchAll(/\[\[tool:(\w+) (\{.*?\})\]\]/g)];
  if (calls.length > 0) {
    blocks.push({ type: "text", text: `Calling ${calls.map((call) => call[1]).join(", ")}.` });
    for (const call of calls) {
      blocks.push({
        type: "tool_use",
        id: `toolu_mock_${String(++sequence).padStart(4, "0")}`,
        name: call[1],
        input: JSON.parse(call[2] as string),
      });
    }
    return { blocks, stop: "tool_use" };
  }
  blocks.push({ type: "text", text: `You said: ${lastText.replace(/\[\[\w+\]\]/g, "").trim()}` });
  return { blocks, stop: "end_turn" };
}

function sse(response: ServerResponse, type: string, data: Record<string, unknown>): void {
  response.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
}

async function answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString("utf8");
  const body = JSON.parse(raw) as Record<string, unknown>;
  const reply = replyTo(body);
  if (reply === "fail") {
    response.writeHead(400, { "content-type": "application/json" });
    response.end(
      JSON.stringify({
        type: "error",
        error: { type: "invalid_request_error", message: "The mock refuses [[fail]] prompts." },
      }),
    );
    return;
  }
  response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const input = Math.ceil(raw.length / 4);
  const message = {
    id: `msg_mock_${++sequence}`,
    type: "message",
    role: "assistant",
    model: body.model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: {
      input_tokens: input,
      output_tokens: 1,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
    },
  };
  sse(response, "message_start", { message });
  if (reply === "slow") {
    sse(response, "content_block_start", { index: 0, content_block: { type: "text", text: "" } });
    sse(response, "content_block_delta", {
      index: 0,
      delta: { type: "text_delta", text: "Starting a long answer" },
    });
    return; // never finished: the driver aborts
  }
  let output = 0;
  reply.blocks.forEach((block, index) => {
    if (block.type === "text") {
      sse(response, "content_block_start", { index, content_block: { type: "text", text: "" } });
      sse(response, "content_block_delta", { index, delta: { type: "text_delta", text: block.text } });
      output += Math.ceil(String(block.text).length / 4);
    } else if (block.type === "thinking") {
      sse(response, "content_block_start", { index, content_block: { type: "thinking", thinking: "" } });
      sse(response, "content_block_delta", {
        index,
        delta: { type: "thinking_delta", thinking: block.thinking },
      });
      sse(response, "content_block_delta", {
        index,
        delta: { type: "signature_delta", signature: block.signature },
      });
      output += Math.ceil(String(block.thinking).length / 4);
    } else {
      const json = JSON.stringify(block.input);
      sse(response, "content_block_start", {
        index,
        content_block: { type: "tool_use", id: block.id, name: block.name, input: {} },
      });
      const half = Math.ceil(json.length / 2);
      sse(response, "content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: json.slice(0, half) },
      });
      sse(response, "content_block_delta", {
        index,
        delta: { type: "input_json_delta", partial_json: json.slice(half) },
      });
      output += Math.ceil(json.length / 4);
    }
    sse(response, "content_block_stop", { index });
  });
  sse(response, "message_delta", {
    delta: { stop_reason: reply.stop, stop_sequence: null },
    usage: { output_tokens: output },
  });
  sse(response, "message_stop", {});
  response.end();
}

// ---- pi ------------------------------------------------------------------------------------------------------

/** The parts of pi's SDK (0.31–0.34 and 0.73) this script uses. */
interface PiSession {
  prompt(text: string): Promise<void>;
  executeBash(
    command: string,
    onChunk?: unknown,
    options?: { excludeFromContext?: boolean },
  ): Promise<unknown>;
  compact(): Promise<unknown>;
  navigateTree(targetId: string, options?: { summarize?: boolean }): Promise<unknown>;
  setModel(model: unknown): Promise<void>;
  setThinkingLevel(level: string): void;
  setAutoRetryEnabled(enabled: boolean): void;
  abort(): Promise<void>;
  newSession(options?: { parentSession?: string }): Promise<boolean>;
  switchSession(path: string): Promise<boolean>;
  /** 0.73 */
  setSessionName?(name: string): void;
  /** 0.73 */
  sendCustomMessage?(
    message: { customType: string; content: string; display: boolean; details?: unknown },
    options?: { triggerTurn?: boolean },
  ): Promise<void>;
  sessionFile: string | undefined;
  sessionManager: SessionManagerApi;
}
interface SessionManagerApi {
  getEntries(): { id: string; type: string; message?: { role: string } }[];
  appendLabelChange(targetId: string, label: string | undefined): string;
  appendMessage(message: Record<string, unknown>): string;
  newSession(options?: { parentSession?: string }): string | undefined;
}
interface PiSdk {
  createAgentSession(options: Record<string, unknown>): Promise<{ session: PiSession }>;
  SessionManager: { create(cwd: string, dir: string): SessionManagerApi };
  CURRENT_SESSION_VERSION: number;
  /** 0.31–0.34 */
  discoverAuthStorage?(agentDir: string): unknown;
  /** 0.31–0.34 */
  discoverModels?(auth: unknown, agentDir: string): Registry;
  /** 0.73 */
  AuthStorage?: { create(path: string): unknown };
  /** 0.73 */
  ModelRegistry?: { create(auth: unknown, modelsPath: string): Registry };
  /** 0.73 */
  DefaultResourceLoader?: new (
    options: Record<string, unknown>,
  ) => { reload(): Promise<void> };
}
interface Registry {
  find(provider: string, id: string): unknown;
}

async function loadPi(): Promise<PiSdk> {
  const dir = installPiAgent(VERSION);
  if (typeof dir !== "string") throw new Error(dir.skipped);
  return (await import(pathToFileURL(join(dir, "dist", "index.js")).href)) as PiSdk;
}

/**
 * A hook (pi's hook API of 0.31–0.34; an extension's `before_agent_start` has the same shape in 0.73): before
 * each prompt with `[[remind]]`, it injects a reminder message.
 */
function reminderHook(api: {
  on(event: string, handler: (event: { prompt: string }) => unknown): void;
}): void {
  api.on("before_agent_start", async (event) =>
    event.prompt.includes("[[remind]]")
      ? {
          message: {
            customType: "reminder",
            content: "Reminder from a hook: keep notes.txt short.",
            display: true,
          },
        }
      : undefined,
  );
}

/** What driving one pi needs: its SDK, the folders, a session factory. */
interface Drive {
  pi: PiSdk;
  project: string;
  registry: Registry;
  /** A new agent session over `manager` (default: a new session file), with the reminder hook or extension. */
  open(manager?: SessionManagerApi): Promise<PiSession>;
  sessionDir: string;
}

/** The common part of the main files: chat, tools, shell commands, thinking, a hook's message, failures. */
async function firstTurns(session: PiSession): Promise<void> {
  session.setAutoRetryEnabled(false);
  await session.prompt("Hello pi, this is a plain chat about the mock server");
  await session.prompt('Make a file. [[tool:write {"path":"notes.txt","content":"hello from pi\\n"}]]');
  await session.prompt('Check it. [[tool:read {"path":"notes.txt"}]] [[tool:bash {"command":"ls"}]]');
  await session.executeBash("echo from the user");
  await session.executeBash("echo not for the model", undefined, { excludeFromContext: true });
  await session.prompt("[[think]] Think first, then answer");
  await session.prompt("[[remind]] What is the plan?");
  await session.prompt("[[fail]] This request fails");
  const aborted = session.prompt("[[slow]] Tell me a long story");
  await new Promise((resolve) => setTimeout(resolve, 300));
  await session.abort();
  await aborted;
  await session.prompt("Sorry, go on with the short version");
}

/** Then a compaction, a label, a branch with a summary, a model and thinking change. */
async function lastTurns(drive: Drive, session: PiSession): Promise<void> {
  await session.compact();
  const compaction = session.sessionManager.getEntries().findLast((entry) => entry.type === "compaction")!;
  await session.prompt('After compaction: list the files. [[tool:ls {"path":"."}]]');
  session.sessionManager.appendLabelChange(compaction.id, "after-compaction");
  await session.navigateTree(compaction.id, { summarize: true });
  await session.prompt('On the new branch. [[tool:bash {"command":"cat notes.txt"}]]');
  await session.setModel(drive.registry.find("mock-anthropic", "mock-claude-2"));
  session.setThinkingLevel("low");
  await session.prompt("Last question with the other model");
}

/** pi 0.31–0.34: format version 2. */
async function version2(drive: Drive): Promise<[string, string][]> {
  // File 1: everything of {@link firstTurns} and {@link lastTurns}.
  const session = await drive.open();
  await firstTurns(session);
  await lastTurns(drive, session);
  const first = session.sessionFile!;

  // File 2: a hand-off. A new session (header parentSession: file 1) whose second message is a `hookMessage`
  // written by pi's SessionManager.appendMessage (what a hook's newSession setup does), then a turn.
  const manager = drive.pi.SessionManager.create(drive.project, drive.sessionDir);
  manager.newSession({ parentSession: first });
  const handoff = await drive.open(manager);
  await handoff.prompt("Start of the hand-off session");
  const hookMessage = manager.appendMessage({
    role: "hookMessage",
    customType: "handoff",
    content: "Hand-off from the previous session: notes.txt holds one line.",
    display: true,
    timestamp: Date.now(),
  });
  manager.appendLabelChange(hookMessage, "handoff");
  const second = handoff.sessionFile!;
  await handoff.switchSession(second);
  await handoff.prompt("Continue from the hand-off");

  // File 3: pi before 2026-01-12 (fix "make /new create a new session file") appended the session that
  // `/new` (AgentSession.newSession) starts to the same file: a second header, then a second root.
  const renewed = await drive.open();
  await renewed.prompt("A first session");
  await renewed.newSession();
  await renewed.prompt('After /new. [[tool:bash {"command":"echo again"}]]');
  return [
    [first, `v2/01-chat-tools-compaction-branch.pi-${VERSION}.jsonl`],
    [second, `v2/02-handoff-hook-message.pi-${VERSION}.jsonl`],
    [renewed.sessionFile!, `v2/03-new-session-in-the-same-file.pi-${VERSION}.jsonl`],
  ];
}

/** pi 0.35 and later: format version 3, with what version 3 added (session names, custom messages). */
async function version3(drive: Drive): Promise<[string, string][]> {
  const session = await drive.open();
  session.setSessionName!("Corpus session");
  await firstTurns(session);
  await session.sendCustomMessage!(
    {
      customType: "status",
      content: "A hidden status message from an extension.",
      display: false,
      details: { n: 1 },
    },
    { triggerTurn: false },
  );
  await lastTurns(drive, session);
  return [[session.sessionFile!, `v3/01-chat-tools-compaction-branch.pi-${VERSION}.jsonl`]];
}

async function main(): Promise<void> {
  const pi = await loadPi();
  const version = pi.CURRENT_SESSION_VERSION;
  if (version !== 2 && version !== 3) throw new Error(`pi ${VERSION} writes format version ${version}`);
  const server = createServer((request, response) => void answer(request, response));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const scratch = mkdtempSync(join(tmpdir(), "arbor-pi-corpus-"));
  const project = join(scratch, "project");
  const agentDir = join(scratch, "agent");
  const sessionDir = join(scratch, "sessions");
  mkdirSync(project);
  mkdirSync(agentDir);
  const model = (id: string) => ({
    id,
    name: id,
    reasoning: true,
    input: ["text", "image"],
    cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
    contextWindow: 200000,
    maxTokens: 8192,
  });
  const modelsPath = join(agentDir, "models.json");
  writeFileSync(
    modelsPath,
    JSON.stringify({
      providers: {
        "mock-anthropic": {
          baseUrl: `http://127.0.0.1:${port}`,
          apiKey: "mock-key",
          api: "anthropic-messages",
          models: [model("mock-claude"), model("mock-claude-2")],
        },
      },
    }),
  );
  process.chdir(project);
  try {
    const auth =
      version === 2 ? pi.discoverAuthStorage!(agentDir) : pi.AuthStorage!.create(join(agentDir, "auth.json"));
    const registry =
      version === 2 ? pi.discoverModels!(auth, agentDir) : pi.ModelRegistry!.create(auth, modelsPath);
    const drive: Drive = {
      pi,
      project,
      registry,
      sessionDir,
      async open(manager) {
        const common = {
          cwd: project,
          agentDir,
          authStorage: auth,
          modelRegistry: registry,
          model: registry.find("mock-anthropic", "mock-claude"),
          thinkingLevel: "off",
          sessionManager: manager ?? pi.SessionManager.create(project, sessionDir),
        };
        if (version === 2) {
          const options = {
            ...common,
            hooks: [{ factory: reminderHook }],
            customTools: [],
            skills: [],
            contextFiles: [],
            slashCommands: [],
          };
          return (await pi.createAgentSession(options)).session;
        }
        const resourceLoader = new pi.DefaultResourceLoader!({
          cwd: project,
          agentDir,
          extensionFactories: [reminderHook],
          noSkills: true,
          noPromptTemplates: true,
          noThemes: true,
          noContextFiles: true,
        });
        await resourceLoader.reload();
        return (await pi.createAgentSession({ ...common, resourceLoader })).session;
      },
    };
    const files = version === 2 ? await version2(drive) : await version3(drive);
    for (const [path, name] of files) {
      const text = readFileSync(path, "utf8")
        .replaceAll(project, PROJECT_PATH)
        .replaceAll(sessionDir, `${PROJECT_PATH}/.pi-sessions`);
      mkdirSync(join(CORPUS, `v${version}`), { recursive: true });
      writeFileSync(join(CORPUS, name), text);
      console.log(`${name}: ${text.split("\n").length - 1} lines`);
    }
  } finally {
    server.close();
    server.closeAllConnections();
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
