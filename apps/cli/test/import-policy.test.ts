/**
 * One import policy in every front end: importing the same session file twice keeps the file's id the
 * first time and makes a copy under a new id the second time (`copiedFrom` names the file's id) — through
 * `arbor sessions import`, the protocol's `import_session` over `--mode rpc` lines, and the demo server's
 * hub. The session stored first is never opened in the copy's place, even after it was continued.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import {
  type AppRuntime,
  createAppRuntime,
  createLineTransport,
  createProtocolClient,
  createRpcServer,
  type ImportSessionResult,
  type ProtocolTransport,
} from "@arbor/app-runtime";
import { DemoHub } from "@arbor/demo";
import { Session } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { describe, expect, it } from "vitest";
import { fixtureLines, fixturePath, runSessions, temporaryDirectory } from "./sessions-helpers.js";

const FILE = fixturePath("branch");
const FILE_ID = fixtureLines("branch")[0]!.id as string;

function runtimeIn(home: string): Promise<AppRuntime> {
  const cwd = temporaryDirectory();
  return createAppRuntime({
    cwd,
    env: { HOME: cwd },
    home,
    providers: { scripted: () => import("@arbor/app-runtime/demo") },
    stores: { jsonl: () => import("@arbor/session-store-jsonl") },
    flags: { provider: "scripted" },
    tools: false,
    extensions: false,
  });
}

/** Imports the file twice through a transport, continuing the first import in between. */
async function importTwice(
  transport: ProtocolTransport,
  runtime: AppRuntime,
  idle: () => Promise<void>,
): Promise<[ImportSessionResult, ImportSessionResult]> {
  const client = createProtocolClient(transport);
  const text = readFileSync(FILE, "utf8");
  const first = await client.request({ type: "import_session", text });
  expect(runtime.session.id).toBe(first.sessionId);
  await client.request({ type: "prompt", text: "continue the imported session" });
  await idle();
  const second = await client.request({ type: "import_session", text });
  expect(runtime.session.id).toBe(second.sessionId);
  expect(runtime.session.session.entryCount).toBe(second.entries);
  return [first, second];
}

/** The ids of the store's sessions and each one's entry count. */
async function storedSessions(home: string): Promise<Map<string, number>> {
  const store = new JsonlSessionStore({ home, readOnly: true });
  try {
    const { sessions } = await store.listSessions({ limit: 100 });
    const counts = new Map<string, number>();
    for (const summary of sessions)
      counts.set(summary.id, (await Session.open(store, summary.id)).entryCount);
    return counts;
  } finally {
    await store.close();
  }
}

function expectPolicy([first, second]: [ImportSessionResult, ImportSessionResult]): void {
  expect(first.sessionId).toBe(FILE_ID);
  expect(first.copiedFrom).toBeUndefined();
  expect(second.copiedFrom).toBe(FILE_ID);
  expect(second.sessionId).not.toBe(FILE_ID);
  expect(second.entries).toBe(first.entries);
}

describe("importing the same file twice", () => {
  it("arbor sessions import: the second import is a copy under a new id", async () => {
    const home = temporaryDirectory();
    const first = await runSessions(["import", FILE], { home });
    expect(first.stdout).toContain(`as session ${FILE_ID}.`);
    const second = await runSessions(["import", FILE], { home });
    expect(second.stdout).toContain(
      `already holds a session with the file's id ${FILE_ID}; this copy got a new id`,
    );
    const stored = await storedSessions(home);
    expect([...stored.keys()]).toHaveLength(2);
    expect(stored.get(FILE_ID)).toBe(16);
  });

  it("import_session over --mode rpc lines: the same", async () => {
    const home = temporaryDirectory();
    const runtime = await runtimeIn(home);
    const toServer = new PassThrough();
    const fromServer = new PassThrough();
    const server = createRpcServer(runtime, (line) => fromServer.write(line));
    let buffered = "";
    toServer.on("data", (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      for (let end = buffered.indexOf("\n"); end >= 0; end = buffered.indexOf("\n")) {
        server.handleLine(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
      }
    });
    const transport = createLineTransport({ input: fromServer, output: toServer });
    try {
      const results = await importTwice(transport, runtime, () => runtime.session.waitForIdle());
      expectPolicy(results);
    } finally {
      await server.close();
      transport.close();
      await runtime.dispose();
    }
    const stored = await storedSessions(home);
    // The first import, continued (a prompt and its answer, with the model and thinking level), and the copy.
    expect(stored.get(FILE_ID)).toBeGreaterThan(16);
    expect([...stored.values()].filter((count) => count === 16)).toHaveLength(1);
  });

  it("import_session of the demo server: the same", async () => {
    const home = temporaryDirectory();
    const runtime = await runtimeIn(home);
    const hub = new DemoHub(runtime, { coalesceMs: 0 });
    const transport: ProtocolTransport = {
      async send(command) {
        const answer = await hub.command(command);
        return answer.ok ? { success: true, data: answer.data } : { success: false, error: answer.error };
      },
    };
    try {
      expectPolicy(await importTwice(transport, runtime, () => hub.idle()));
    } finally {
      hub.close();
      await runtime.dispose();
    }
    expect((await storedSessions(home)).get(FILE_ID)).toBeGreaterThan(16);
  });

  it("refuses to import while the session runs, storing nothing", async () => {
    const home = temporaryDirectory();
    const runtime = await runtimeIn(home);
    try {
      const running = runtime.session.prompt("a long answer");
      await expect(runtime.importSession({ path: FILE })).rejects.toMatchObject({ code: "busy" });
      await running;
      const imported = await runtime.importSession({ path: join(FILE) }, { open: false });
      expect(imported.sessionId).toBe(FILE_ID);
      expect(runtime.session.id).not.toBe(FILE_ID);
    } finally {
      await runtime.dispose();
    }
  });
});
