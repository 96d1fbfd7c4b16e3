/**
 * `arbor --mode rpc` accepts every command the demo server accepts, with the same result shapes: the same
 * script of commands is driven through the demo hub's `command()` and through an RPC server's lines (read
 * back by the protocol's line transport and typed client), each over a runtime set up the same way, and
 * the answers are compared by shape (keys and value types; ids and texts differ between the two runs).
 */
import { readFileSync, rmSync } from "node:fs";
import { PassThrough } from "node:stream";
import { fileURLToPath } from "node:url";
import {
  type AppRuntime,
  createLineTransport,
  createProtocolClient,
  createRpcServer,
  type ProtocolResponse,
  type ProtocolTransport,
  RPC_COMMAND_SCHEMAS,
  type RpcCommand,
} from "@arbor/app-runtime";
import { afterAll, describe, expect, test } from "vitest";
import { DemoHub } from "../src/index.js";
import { offlineRuntime } from "./helpers.js";

const PI_FILE = fileURLToPath(
  new URL("../../../fixtures/pi-sessions/08-branch-with-branch-summary.anthropic.jsonl", import.meta.url),
);

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function runtimeInTemporaryHome(): Promise<AppRuntime> {
  return offlineRuntime(folders, "arbor-parity-");
}

/** A value's shape: object keys (sorted) with their shapes, an array's first item, else `typeof` (null ≈ undefined). */
function shape(value: unknown): unknown {
  if (value === null || value === undefined) return "nothing";
  if (Array.isArray(value)) return value.length === 0 ? [] : [shape(value[0])];
  if (typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, shape((value as Record<string, unknown>)[key])]),
    );
  }
  return typeof value;
}

interface Side {
  transport: ProtocolTransport;
  idle: () => Promise<void>;
  close: () => Promise<void>;
}

async function demoSide(runtime: AppRuntime): Promise<Side> {
  const hub = new DemoHub(runtime, { coalesceMs: 0 });
  return {
    transport: {
      async send(command) {
        const answer = await hub.command(command);
        return answer.ok
          ? { success: true, data: answer.data }
          : {
              success: false,
              error: answer.error,
              ...(answer.code === undefined ? {} : { code: answer.code }),
            };
      },
    },
    idle: () => hub.idle(),
    close: async () => {
      hub.close();
      await runtime.dispose();
    },
  };
}

async function rpcSide(runtime: AppRuntime): Promise<Side> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const server = createRpcServer(runtime, (line) => fromServer.write(line));
  let buffered = "";
  toServer.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    let end = buffered.indexOf("\n");
    while (end >= 0) {
      server.handleLine(buffered.slice(0, end));
      buffered = buffered.slice(end + 1);
      end = buffered.indexOf("\n");
    }
  });
  const transport = createLineTransport({ input: fromServer, output: toServer });
  return {
    transport,
    idle: async () => {
      await new Promise((resolve) => setTimeout(resolve, 0));
      await runtime.session.waitForIdle();
    },
    close: async () => {
      await server.close();
      transport.close();
      await runtime.dispose();
    },
  };
}

/** The script: every command of the protocol once or more; resolves to each command's first answer. */
async function script(side: Side): Promise<Map<string, ProtocolResponse<unknown>>> {
  const client = createProtocolClient(side.transport);
  const answers = new Map<string, ProtocolResponse<unknown>>();
  const send = async <C extends RpcCommand>(command: C) => {
    const response = await client.send(command);
    if (!answers.has(command.type)) answers.set(command.type, response);
    if (!response.success) throw new Error(`${command.type}: ${response.error}`);
    return response.data;
  };
  await send({ type: "get_state" });
  for (const text of ["first question", "second question", "third question"]) {
    await send({ type: "prompt", text });
    await side.idle();
  }
  await send({ type: "steer", text: "later" });
  await send({ type: "follow_up", text: "afterwards" });
  await send({ type: "abort" });
  const graph = await send({ type: "get_graph" });
  const users = graph.nodes.filter((node) => node.kind === "user");
  await send({ type: "get_graph", expanded: [users[0]!.entryId] });
  await send({ type: "get_entry", entryId: users[0]!.entryId });
  await send({ type: "get_transcript" });
  await send({ type: "get_messages" });
  await send({ type: "label", entryId: users[0]!.entryId, label: "start" });
  const compacted = await send({ type: "compact", instructions: "keep the questions" });
  if (compacted.kind !== "compacted") throw new Error(`compact: ${compacted.kind}`);
  await send({ type: "get_summary", entryId: compacted.entryId });
  await send({ type: "get_context" });
  const state = await send({ type: "get_state" });
  const oldLeaf = state.leafId!;
  await send({ type: "navigate", entryId: users[1]!.entryId, summarize: true });
  const newLeaf = (await send({ type: "get_state" })).leafId!;
  await send({ type: "diff", a: oldLeaf, b: newLeaf });
  await send({ type: "edit", entryId: users[2]!.entryId, text: "an edited question" });
  await side.idle();
  await send({ type: "merge", sourceLeafId: oldLeaf, summarize: false });
  await send({ type: "set_thinking_level", level: "high" });
  await send({ type: "set_model", model: "scripted/demo" });
  await send({ type: "get_commands" });
  // No extension is loaded: the command is refused the same way on both sides.
  await client.send({ type: "run_command", name: "nothing" }).then((response) => {
    answers.set("run_command", response);
  });
  // No question waits: the reply is refused the same way on both sides.
  await client.send({ type: "permission_reply", requestId: "none", decision: "deny" }).then((response) => {
    answers.set("permission_reply", response);
  });
  const fork = await send({ type: "fork" });
  await send({ type: "list_sessions", limit: 1 });
  await send({ type: "open_session", sessionId: fork.parentSession });
  await send({ type: "new_session" });
  await send({ type: "delete_sessions", sessionIds: [fork.sessionId] });
  await send({ type: "import_session", text: readFileSync(PI_FILE, "utf8") });
  return answers;
}

describe("one protocol for the demo server and --mode rpc", () => {
  test("every command the demo accepts is accepted by rpc, with the same result shape", async () => {
    const demo = await demoSide(await runtimeInTemporaryHome());
    const rpc = await rpcSide(await runtimeInTemporaryHome());
    let fromDemo: Map<string, ProtocolResponse<unknown>>;
    let fromRpc: Map<string, ProtocolResponse<unknown>>;
    try {
      fromDemo = await script(demo);
      fromRpc = await script(rpc);
    } finally {
      await demo.close();
      await rpc.close();
    }
    expect([...fromDemo.keys()].sort()).toEqual(Object.keys(RPC_COMMAND_SCHEMAS).sort());
    for (const [type, answer] of fromDemo) {
      expect(shape(fromRpc.get(type)), type).toEqual(shape(answer));
    }
    expect(fromRpc.get("run_command")).toMatchObject({ success: false, code: "command_failed" });
    expect(fromRpc.get("permission_reply")).toMatchObject({ success: false, code: "not_found" });
    expect(fromRpc.get("import_session")).toMatchObject({ success: true, data: { entries: 16 } });
    expect(fromRpc.get("delete_sessions")).toMatchObject({ success: true, data: { refused: [] } });
    expect(fromDemo.get("delete_sessions")).toMatchObject({ success: true, data: { refused: [] } });
  }, 60_000);
});
