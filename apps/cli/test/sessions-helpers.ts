/**
 * Shared by the `arbor sessions` tests: a temporary Arbor home per test, running the command with
 * captured streams, the pi fixtures, and builders of session files.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { openStore } from "@arbor/app-runtime";
import type { SessionEntry, SessionHeader } from "@arbor/session-store";
import { encodeCwd } from "@arbor/session-store-jsonl";
import { type Command, CommanderError } from "commander";
import { afterEach } from "vitest";
import { type SessionsCommandDeps, sessionsCommand } from "../src/commands/sessions/index.js";
import { STORE_FACTORIES } from "../src/factories.js";

const directories: string[] = [];

afterEach(() => {
  for (const directory of directories.splice(0)) rmSync(directory, { recursive: true, force: true });
});

/** A fresh temporary directory, removed after the test. */
export function temporaryDirectory(prefix = "arbor-cli-"): string {
  const directory = mkdtempSync(join(tmpdir(), prefix));
  directories.push(directory);
  return directory;
}

/** The project directory the pi fixtures were recorded in. */
export const FIXTURE_CWD = "/home/user/project";

/** The pi agent fixture files, by short name. */
export const FIXTURES = {
  plain: "01-plain-chat.anthropic.jsonl",
  tools: "03-tool-calls-write-read-bash.openai-completions.jsonl",
  compaction: "05-compaction-manual-rpc.anthropic.jsonl",
  branch: "08-branch-with-branch-summary.anthropic.jsonl",
} as const;

/** The absolute path of a pi fixture. */
export function fixturePath(name: keyof typeof FIXTURES): string {
  return fileURLToPath(new URL(`../../../fixtures/pi-sessions/${FIXTURES[name]}`, import.meta.url));
}

/** The parsed lines of a pi fixture (header first). */
export function fixtureLines(name: keyof typeof FIXTURES): Record<string, unknown>[] {
  return readFileSync(fixturePath(name), "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** What one run of the command printed and the exit code it reported (undefined: success). */
export interface CliRun {
  stdout: string;
  stderr: string;
  exitCode: number | undefined;
}

function collector(chunks: string[]): Writable {
  return new Writable({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
}

function exitOverrideEverywhere(command: Command): void {
  command.exitOverride();
  for (const sub of command.commands) exitOverrideEverywhere(sub);
}

/** Options of {@link runSessions}. */
export interface RunOptions {
  /** The Arbor home (`ARBOR_HOME` as the default store sees it). */
  home: string;
  /** The working directory (default: the fixtures' project directory). */
  cwd?: string;
  resolveSummarizer?: SessionsCommandDeps["resolveSummarizer"];
  /** Answers `delete` / `prune`'s question (absent: no terminal, as in a script). */
  confirm?: (question: string) => Promise<boolean>;
}

/** Runs `arbor sessions <args>` in-process with captured streams. */
export async function runSessions(args: string[], options: RunOptions): Promise<CliRun> {
  const out: string[] = [];
  const err: string[] = [];
  let exitCode: number | undefined;
  const deps: SessionsCommandDeps = {
    openStore: (url, storeOptions) =>
      openStore(url, { ...storeOptions, env: { ARBOR_HOME: options.home }, stores: STORE_FACTORIES }),
    cwd: options.cwd ?? FIXTURE_CWD,
    home: options.home,
    stdout: collector(out),
    stderr: collector(err),
    resolveSummarizer: options.resolveSummarizer,
    ...(options.confirm === undefined ? {} : { confirm: options.confirm }),
    setExitCode: (code) => {
      exitCode = code;
    },
  };
  const command = sessionsCommand(deps);
  exitOverrideEverywhere(command);
  try {
    await command.parseAsync(args, { from: "user" });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    exitCode = error.exitCode;
  }
  return { stdout: out.join(""), stderr: err.join(""), exitCode };
}

/** Imports a pi fixture into the store of `home` and returns the session id it reports. */
export async function importFixture(name: keyof typeof FIXTURES, home: string): Promise<string> {
  const run = await runSessions(["import", fixturePath(name)], { home });
  if (run.exitCode !== undefined) throw new Error(`import failed: ${run.stderr}`);
  const match = /as session (\S+)\./.exec(run.stdout);
  if (match === null) throw new Error(`no session id in: ${run.stdout}`);
  return match[1]!;
}

/** A version-3 header. */
export function sessionHeader(
  id: string,
  cwd = FIXTURE_CWD,
  timestamp = "2026-01-02T03:04:05.000Z",
): SessionHeader {
  return { type: "session", version: 3, id, timestamp, cwd };
}

/** A user message entry. */
export function userEntry(
  id: string,
  parentId: string | null,
  text: string,
  time = 1_767_000_000_000,
): SessionEntry {
  return {
    type: "message",
    id,
    parentId,
    timestamp: new Date(time).toISOString(),
    message: { role: "user", content: [{ type: "text", text }], timestamp: time },
  };
}

/** An assistant message entry with text and, optionally, tool calls. */
export function assistantEntry(
  id: string,
  parentId: string | null,
  text: string,
  options: {
    time?: number;
    toolCalls?: { id: string; name: string; arguments: Record<string, unknown> }[];
  } = {},
): SessionEntry {
  const time = options.time ?? 1_767_000_000_000;
  const content: Record<string, unknown>[] = [];
  if (text !== "") content.push({ type: "text", text });
  for (const call of options.toolCalls ?? []) content.push({ type: "toolCall", ...call });
  return {
    type: "message",
    id,
    parentId,
    timestamp: new Date(time).toISOString(),
    message: {
      role: "assistant",
      content,
      api: "anthropic-messages",
      provider: "test",
      model: "test-model",
      usage: {
        input: 10,
        output: 5,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 15,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: (options.toolCalls?.length ?? 0) > 0 ? "toolUse" : "stop",
      timestamp: time,
    },
  } as SessionEntry;
}

/**
 * Writes a session file straight into a JSONL store's layout (as the pi agent writes it: no batch framing)
 * and returns its path.
 */
export function writeSessionFile(
  home: string,
  header: SessionHeader,
  entries: readonly SessionEntry[],
): string {
  const directory = join(home, "sessions", encodeCwd(header.cwd));
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `${header.timestamp.replace(/[:.]/g, "-")}_${header.id}.jsonl`);
  const lines = [JSON.stringify(header), ...entries.map((entry) => JSON.stringify(entry))];
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

/** What {@link writeLargeSession} wrote. */
export interface LargeSession {
  id: string;
  path: string;
  /** Entries in the file. */
  entries: number;
  /** The tip of the main chain (the leaf, after the final `leaf` entry). */
  leafId: string;
  /** The branch point and the tip of the side branch. */
  branchPointId: string;
  sideTipId: string;
}

/**
 * Writes a long session straight into the store: a main chain of `length` alternating user / assistant
 * messages with a label entry at 1/4 (labelling the entry before it "midpoint") and a compaction at 3/4, a
 * side branch of 300 entries from the middle, and a final `leaf` entry that moves back to the main tip.
 */
export function writeLargeSession(home: string, length: number, id = "large-session"): LargeSession {
  const entries: SessionEntry[] = [];
  const mainId = (index: number) => `m${index.toString(16).padStart(7, "0")}`;
  const time = (index: number) => 1_767_000_000_000 + index * 1000;
  const labelAt = Math.floor(length / 4);
  const compactionAt = Math.floor((length * 3) / 4);
  for (let index = 0; index < length; index++) {
    const parent = index === 0 ? null : mainId(index - 1);
    const entryId = mainId(index);
    if (index === labelAt) {
      entries.push({
        type: "label",
        id: entryId,
        parentId: parent,
        timestamp: new Date(time(index)).toISOString(),
        targetId: mainId(index - 1),
        label: "midpoint",
      });
    } else if (index === compactionAt) {
      entries.push({
        type: "compaction",
        id: entryId,
        parentId: parent,
        timestamp: new Date(time(index)).toISOString(),
        summary: "## Goal\n- keep going",
        firstKeptEntryId: mainId(index - 10),
        tokensBefore: 150_000,
      });
    } else if (index % 2 === 0) {
      entries.push(userEntry(entryId, parent, `question number ${index}`, time(index)));
    } else {
      entries.push(assistantEntry(entryId, parent, `answer number ${index}`, { time: time(index) }));
    }
  }
  const branchPoint = Math.floor(length / 2);
  let parent = mainId(branchPoint);
  for (let index = 0; index < 300; index++) {
    const entryId = `s${index.toString(16).padStart(7, "0")}`;
    entries.push(userEntry(entryId, parent, `side question ${index}`, time(length + index)));
    parent = entryId;
  }
  entries.push({
    type: "leaf",
    id: "leafmove",
    parentId: parent,
    timestamp: new Date(time(length + 400)).toISOString(),
    targetId: mainId(length - 1),
  });
  const path = writeSessionFile(home, sessionHeader(id), entries);
  return {
    id,
    path,
    entries: entries.length,
    leafId: mainId(length - 1),
    branchPointId: mainId(branchPoint),
    sideTipId: parent,
  };
}
