/** Second processes for the SQLite tests: a holder (a lease or a write transaction) and a reader. */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach } from "vitest";

const packageDirectory = join(import.meta.dirname, "..");
const fixtures = join(import.meta.dirname, "fixtures");
const children: ChildProcess[] = [];

afterEach(() => {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

function tsx(script: string, args: string[], user?: { uid: number; gid: number }): ChildProcess {
  const child = spawn(
    process.execPath,
    ["--conditions=@arbor/source", "--import", "tsx", join(fixtures, script), ...args],
    { cwd: packageDirectory, stdio: ["pipe", "pipe", "pipe"], ...user },
  );
  children.push(child);
  return child;
}

/**
 * Starts a process that takes the writer lease of `sessionId` (`lease`) or holds a write transaction
 * (`transaction`), and resolves once it holds it. Write "exit" (leave without closing) or "close" to its
 * stdin to end it.
 */
export function startHolder(
  file: string,
  sessionId: string,
  mode: "lease" | "transaction",
): Promise<ChildProcess> {
  const child = tsx("holder.ts", [file, sessionId, mode]);
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout!.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("ready")) resolve(child);
    });
    child.on("exit", (code) => reject(new Error(`holder exited (${code}) before it was ready: ${stderr}`)));
  });
}

/** Resolves when the process has ended. */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once("exit", () => resolve()));
}

/** What the reader process saw. */
export interface ReaderOutcome {
  mode?: string;
  listed?: string[];
  entries?: string[];
  append?: "stored" | { code?: string; reason?: string; transient?: boolean; message?: string };
  error?: { code?: string; message?: string };
}

/** The uid the reader runs as: `nobody` when the tests run as root (whom file modes do not stop). */
export const READER_USER: { uid: number; gid: number } | undefined =
  process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : undefined;

/** Runs the reader process on `file` (as {@link READER_USER}). */
export function runReader(file: string, sessionId: string): Promise<ReaderOutcome> {
  const child = tsx("reader.ts", [file, sessionId], READER_USER);
  child.stdin!.end();
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => {
      const line = stdout.trim().split("\n").at(-1) ?? "";
      if (code === 0 && line.startsWith("{")) resolve(JSON.parse(line) as ReaderOutcome);
      else reject(new Error(`reader exited ${code}: ${stderr}`));
    });
  });
}
