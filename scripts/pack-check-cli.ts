/**
 * What `pack:check` runs on the globally installed CLI beyond `--version` and `-p` (scripts/pack-check.ts):
 * the things a user installing it meets first, each against the real binary.
 *
 * - Under `HTTPS_PROXY`, a provider request goes to the proxy: a logging proxy on 127.0.0.1 sees the
 *   `CONNECT api.openai.com:443` (it refuses the tunnel; the run ends in one error line, no stack trace).
 * - An extension in `$ARBOR_HOME/extensions` importing `@sinclair/typebox` and `@arbor/agent-core`
 *   (nothing installed beside it) loads, and its tool runs when a model (a local wire server) calls it.
 * - `arbor sessions delete <id> --yes` deletes the session `-p` wrote; `arbor completion bash` prints a
 *   script bash accepts.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { chatTextChunks, chatToolCallChunks } from "../packages/conformance/src/wire/openai-chat-chunks.ts";
import { chatFrames, startOpenAIWireServer } from "../packages/conformance/src/wire/openai-server.ts";

/** What the checks need from pack-check: the installed binary, where to work, and how to report. */
export interface InstalledCli {
  /** The `arbor` executable of the global install. */
  arbor: string;
  /** A scratch directory (the working directory of the runs). */
  cwd: string;
  /** The environment of every run: `HOME` and `ARBOR_HOME` point into the scratch directory. */
  env: NodeJS.ProcessEnv;
  /** `ARBOR_HOME` of `env`. */
  home: string;
  fail(message: string): void;
  log(message: string): void;
}

interface Ran {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the binary without blocking this process (a server of ours answers it meanwhile). */
function runArbor(cli: InstalledCli, args: string[], env: NodeJS.ProcessEnv = cli.env): Promise<Ran> {
  return new Promise((done) => {
    const child = spawn(cli.arbor, args, { cwd: cli.cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill(), 120_000);
    child.on("close", (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
}

const describe = (ran: Ran) => `exit ${ran.status}\n${ran.stdout}${ran.stderr}`.trimEnd();

/** A provider request under `HTTPS_PROXY` reaches the proxy as a CONNECT. */
async function checkProxy(cli: InstalledCli): Promise<void> {
  const seen: string[] = [];
  const proxy = createServer((_request, response) => response.writeHead(502).end());
  proxy.on("connect", (request, socket) => {
    seen.push(request.url ?? "");
    socket.end("HTTP/1.1 502 Bad Gateway\r\n\r\n");
  });
  await new Promise<void>((listening) => proxy.listen(0, "127.0.0.1", listening));
  const { port } = proxy.address() as AddressInfo;
  try {
    const ran = await runArbor(
      cli,
      ["--provider", "openai", "--model", "gpt-4.1", "--no-session", "-p", "hi"],
      {
        ...cli.env,
        HTTPS_PROXY: `http://127.0.0.1:${port}`,
        OPENAI_API_KEY: "sk-pack-check",
      },
    );
    if (!seen.includes("api.openai.com:443")) {
      cli.fail(
        `under HTTPS_PROXY the proxy saw ${JSON.stringify(seen)}, not CONNECT api.openai.com:443\n${describe(ran)}`,
      );
    } else if (ran.status === 0 || ran.stderr.includes("    at ")) {
      cli.fail(`a refused proxy tunnel should end in an error line: ${describe(ran)}`);
    } else cli.log(`under HTTPS_PROXY the proxy saw CONNECT api.openai.com:443 (${seen.length} attempts)`);
  } finally {
    proxy.close();
  }
}

/** The extension of {@link checkExtension}: TypeBox and Arbor's types, a tool and a command. */
const EXTENSION = `import { Type } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { AgentTool } from "@arbor/agent-core";
import type { ExtensionApi } from "@arbor/app-runtime";

const parameters = Type.Object({ name: Type.String() });
const greet: AgentTool<typeof parameters> = {
  name: "greet",
  label: "greet",
  description: "greets someone",
  parameters,
  execute: async (args) => ({ content: [{ type: "text", text: "Hello from the extension, " + args.name + "!" }], details: undefined }),
};

export default function (arbor: ExtensionApi) {
  arbor.registerTool(greet);
  arbor.registerCommand("check", {
    description: "validates with TypeBox",
    run(text) {
      arbor.ui.notify("valid: " + Value.Check(parameters, { name: text }));
    },
  });
}
`;

/** An extension importing TypeBox and Arbor's packages loads under the global install; its tool runs. */
async function checkExtension(cli: InstalledCli): Promise<void> {
  const directory = join(cli.home, "extensions");
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, "greet.ts"), EXTENSION);
  const command = await runArbor(cli, ["--provider", "scripted", "--no-session", "-p", "/check Ada"]);
  if (command.status !== 0 || !command.stderr.includes("valid: true")) {
    cli.fail(`an extension importing @sinclair/typebox did not load: ${describe(command)}`);
    return;
  }
  const server = await startOpenAIWireServer([
    {
      kind: "sse",
      frames: chatFrames(chatToolCallChunks([{ id: "call_1", name: "greet", arguments: { name: "Ada" } }])),
    },
    { kind: "sse", frames: chatFrames(chatTextChunks("Greeted.")) },
  ]);
  try {
    const ran = await runArbor(cli, [
      "--base-url",
      server.url,
      "--model",
      "m",
      "--no-session",
      "-p",
      "greet Ada",
    ]);
    const toolResult = JSON.stringify(server.requests.at(1)?.body ?? {});
    if (ran.status !== 0 || !toolResult.includes("Hello from the extension, Ada!")) {
      cli.fail(
        `the extension's tool did not run: ${describe(ran)}\nsecond request: ${toolResult.slice(0, 400)}`,
      );
    } else cli.log("an extension importing @sinclair/typebox and @arbor/agent-core loaded; its tool ran");
  } finally {
    await server.close();
  }
}

/** `sessions delete --yes` deletes a session `-p` wrote; `completion bash` is a script bash accepts. */
async function checkSessionsAndCompletion(cli: InstalledCli): Promise<void> {
  const made = await runArbor(cli, ["--provider", "scripted", "-p", "a session to delete"]);
  const listed = await runArbor(cli, ["sessions", "list", "--json"]);
  let ids: string[] = [];
  try {
    ids = (JSON.parse(listed.stdout) as { id: string }[]).map((session) => session.id);
  } catch {
    cli.fail(`arbor sessions list --json printed no JSON: ${describe(listed)}`);
    return;
  }
  const id = ids[0];
  if (made.status !== 0 || id === undefined) {
    cli.fail(`no session to delete after arbor -p: ${describe(made)}`);
    return;
  }
  const deleted = await runArbor(cli, ["sessions", "delete", id.slice(0, 8), "--yes"]);
  const after = await runArbor(cli, ["sessions", "list", "--json"]);
  if (deleted.status !== 0 || after.stdout.includes(id)) {
    cli.fail(
      `arbor sessions delete ${id.slice(0, 8)} --yes: ${describe(deleted)}\nlisted after: ${after.stdout}`,
    );
  } else cli.log(`arbor sessions delete --yes deleted ${id.slice(0, 8)}`);

  const completion = await runArbor(cli, ["completion", "bash"]);
  const bash = spawnSync("bash", ["-c", `${completion.stdout}\ncomplete -p arbor`], { encoding: "utf8" });
  if (completion.status !== 0 || bash.status !== 0 || !bash.stdout.includes("arbor")) {
    cli.fail(`arbor completion bash: ${describe(completion)}\nbash: ${bash.stdout}${bash.stderr}`);
  } else cli.log(`arbor completion bash: ${bash.stdout.trim()}`);
}

/** Runs every check of the module comment on the installed CLI. */
export async function checkInstalledCli(cli: InstalledCli): Promise<void> {
  await checkSessionsAndCompletion(cli);
  await checkExtension(cli);
  await checkProxy(cli);
}
