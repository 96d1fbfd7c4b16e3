/**
 * Shared by the CLI core's tests: spawning `arbor` from source (`node --conditions=@arbor/source --import tsx
 * src/cli.ts`, so no build is needed) in a temporary home with no API keys, an RPC client over a spawned
 * process, and readers of the session files it writes.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import {
  type Dirent,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Readable, Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterEach } from "vitest";

/** The CLI's entry point (TypeScript source). */
export const CLI_ENTRY = fileURLToPath(new URL("../src/cli.ts", import.meta.url));

/** tsx's loader, resolved from here (the workspace root's devDependency): `arborProcess` runs the sources with it. */
export const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

/** A URL nothing listens on: the local-server probe must never find a real Ollama on the test machine. */
export const CLOSED_LOCAL_URL = "http://127.0.0.1:9/v1";

const directories: string[] = [];

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A fresh temporary directory, removed after the test. */
export function temporaryDirectory(prefix = "arbor-cli-core-"): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  directories.push(directory);
  return directory;
}

/** A temporary Arbor home and a project directory to run in. */
export interface Sandbox {
  home: string;
  cwd: string;
  env: Record<string, string>;
}

/** A sandbox: `ARBOR_HOME` and `HOME` in a temp dir, no API keys, no colours, no local server. */
export function sandbox(): Sandbox {
  const root = temporaryDirectory();
  const home = join(root, "arbor-home");
  const cwd = join(root, "project");
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: root,
    ARBOR_HOME: home,
    ARBOR_LOCAL_SERVER_URL: CLOSED_LOCAL_URL,
    NO_COLOR: "1",
    TMPDIR: tmpdir(),
  };
  return { home, cwd, env };
}

/** What a finished `arbor` process printed and its exit code. */
export interface ArborRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Options of {@link runArbor}. */
export interface RunArborOptions {
  /** Written to stdin, which is then closed (closed at once when absent). */
  input?: string;
  /** Variables added to the sandbox's environment. */
  env?: Record<string, string>;
  /** Run in this directory instead of the sandbox's project. */
  cwd?: string;
}

/** Starts `arbor <args>` (stdin left open). */
export function arborProcess(
  box: Sandbox,
  args: readonly string[],
  options: RunArborOptions = {},
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, ["--conditions=@arbor/source", "--import", TSX_LOADER, CLI_ENTRY, ...args], {
    cwd: options.cwd ?? box.cwd,
    env: { ...box.env, ...options.env },
    stdio: ["pipe", "pipe", "pipe"],
  });
}

/** Runs `arbor <args>` to its end. */
export function runArbor(
  box: Sandbox,
  args: readonly string[],
  options: RunArborOptions = {},
): Promise<ArborRun> {
  const child = arborProcess(box, args, options);
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
  child.stdin.end(options.input ?? "");
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
      }),
    );
  });
}

/**
 * Runs `main()` in this process with captured streams (stdin: an empty stream, not a terminal) — the same code
 * path as the bin after its `--version` shortcut, without the cost of starting a process.
 */
export async function runMainInProcess(
  box: Sandbox,
  args: readonly string[],
  options: RunArborOptions = {},
): Promise<ArborRun> {
  const { main } = await import("../src/main.js");
  const out: string[] = [];
  const err: string[] = [];
  const sink = (chunks: string[]) =>
    new Writable({
      write(chunk: Buffer | string, _encoding, callback) {
        chunks.push(chunk.toString());
        callback();
      },
    });
  const code = await main(args, {
    stdin: Readable.from(options.input === undefined ? [] : [Buffer.from(options.input)]),
    stdout: sink(out),
    stderr: sink(err),
    env: { ...box.env, ...options.env },
    cwd: options.cwd ?? box.cwd,
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** The JSON lines of an output. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** An `arbor --mode rpc` process: send commands, wait for lines. */
export class RpcClient {
  readonly lines: Record<string, unknown>[] = [];
  private waiters: {
    test: (line: Record<string, unknown>) => boolean;
    resolve: (line: Record<string, unknown>) => void;
  }[] = [];
  private readonly exited: Promise<number | null>;
  stderr = "";

  constructor(private readonly child: ChildProcessWithoutNullStreams) {
    createInterface({ input: child.stdout }).on("line", (text) => {
      const line = JSON.parse(text) as Record<string, unknown>;
      this.lines.push(line);
      for (const waiter of [...this.waiters]) {
        if (waiter.test(line)) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderr += chunk.toString("utf8");
    });
    this.exited = new Promise((resolve) => child.on("close", resolve));
  }

  /** Starts `arbor --mode rpc <args>`. */
  static start(box: Sandbox, args: readonly string[] = [], options: RunArborOptions = {}): RpcClient {
    return new RpcClient(arborProcess(box, ["--mode", "rpc", ...args], options));
  }

  /** The first line (already received or coming) that passes `test`. */
  waitFor(test: (line: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    const found = this.lines.find(test);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.waiters.push({ test, resolve }));
  }

  /** Sends a command and resolves to its response. */
  async send(command: Record<string, unknown> & { id: string }): Promise<Record<string, unknown>> {
    const response = this.waitFor((line) => line.type === "response" && line.id === command.id);
    this.child.stdin.write(`${JSON.stringify(command)}\n`);
    return response;
  }

  /** Sends a raw line (for malformed input). */
  write(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  /** Closes stdin and resolves to the exit code. */
  end(): Promise<number | null> {
    this.child.stdin.end();
    return this.exited;
  }
}

/** The session files under a home, with their parsed lines. */
export function sessionFiles(
  home: string,
): { path: string; text: string; lines: Record<string, unknown>[] }[] {
  const root = join(home, "sessions");
  const files: string[] = [];
  const walk = (directory: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith(".jsonl")) files.push(path);
    }
  };
  walk(root);
  return files.map((path) => {
    const text = readFileSync(path, "utf8");
    return { path, text, lines: jsonLines(text).filter((line) => line.arbor !== "batch") };
  });
}

/** Writes a JSON file (creating its directory). */
export function writeJson(path: string, value: unknown): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}
