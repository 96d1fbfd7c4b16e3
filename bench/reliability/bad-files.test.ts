/**
 * Bad files: property-based mutations (fast-check) of the pi agent's session files and of files Arbor
 * wrote — truncation at any byte, bit flips, a deleted header, duplicated ids, parent cycles, missing
 * parents, invalid UTF-8, unknown versions and entry types, wrong field types, empty files — and
 * directories, FIFOs and symbolic link loops. `Session.open` + `buildContext` + an append and the three
 * exports never crash (only an `ArborError` with a code may end them) and keep the valid entries; the
 * CLI's `sessions show`, `export`, `import` and `-r` never crash or hang on them.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Session } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { exportHtml, exportJsonl, exportMarkdown } from "@arbor/session-view";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Box,
  CONCURRENCY,
  inParallel,
  record,
  runArbor,
  STACK_TRACE,
  type StrictServer,
  sandbox,
  serverFlags,
  startStrictServer,
  trials,
} from "./support.js";

const FIXTURES = new URL("./fixtures/", import.meta.url);
const piFiles = readdirSync(FIXTURES)
  .filter((name) => name.endsWith(".jsonl"))
  .map((name) => readFileSync(new URL(name, FIXTURES)));

let server: StrictServer;
let arborFile: Buffer;
beforeAll(async () => {
  server = await startStrictServer({ toolRounds: 2, answer: "Done." });
  // A file Arbor wrote: a prompt, two tool rounds, an answer (batched lines with trailers).
  const box = sandbox();
  const run = await runArbor(box, ["-p", "work", "--session", "arbor-written", ...serverFlags(server)]);
  expect(run.code).toBe(0);
  const directory = join(
    box.home,
    "sessions",
    readdirSync(join(box.home, "sessions")).find((name) => name.startsWith("--"))!,
  );
  arborFile = readFileSync(join(directory, readdirSync(directory).find((name) => name.endsWith(".jsonl"))!));
});
afterAll(async () => {
  await server?.close();
});

type Mutation = (bytes: Buffer, pick: number, value: unknown) => Buffer;

function lines(bytes: Buffer): string[] {
  return bytes.toString("utf8").split("\n");
}
function rejoin(parts: string[]): Buffer {
  return Buffer.from(parts.join("\n"), "utf8");
}
function mapLine(bytes: Buffer, pick: number, change: (value: Record<string, unknown>) => void): Buffer {
  const parts = lines(bytes);
  const candidates = parts
    .map((line, index) => [line, index] as const)
    .filter(([line], index) => index > 0 && line.trim().startsWith("{"));
  const chosen = candidates[pick % Math.max(1, candidates.length)];
  if (chosen === undefined) return bytes;
  const [line, index] = chosen;
  try {
    const value = JSON.parse(line) as Record<string, unknown>;
    change(value);
    parts[index] = JSON.stringify(value) + (line.endsWith("\t") ? "\t" : "");
  } catch {
    return bytes;
  }
  return rejoin(parts);
}
/** Replaces one value somewhere inside an object (depth-first, the `pick`-th leaf) by `value`. */
function replaceLeaf(object: Record<string, unknown>, pick: number, value: unknown): void {
  const leaves: [Record<string, unknown>, string][] = [];
  const visit = (node: unknown) => {
    if (node === null || typeof node !== "object") return;
    for (const [key, child] of Object.entries(node as Record<string, unknown>)) {
      if (child !== null && typeof child === "object") visit(child);
      else leaves.push([node as Record<string, unknown>, key]);
    }
  };
  visit(object);
  const leaf = leaves[pick % Math.max(1, leaves.length)];
  if (leaf !== undefined) leaf[0][leaf[1]] = value;
}

const MUTATIONS: Record<string, Mutation> = {
  truncate: (bytes, pick) => bytes.subarray(0, pick % (bytes.length + 1)),
  "bit flip": (bytes, pick) => {
    const copy = Buffer.from(bytes);
    if (copy.length > 0) copy[pick % copy.length] = (copy[pick % copy.length] as number) ^ (1 << (pick % 8));
    return copy;
  },
  "deleted header": (bytes) => rejoin(lines(bytes).slice(1)),
  "duplicated id": (bytes, pick) => {
    const parts = lines(bytes);
    const index = 1 + (pick % Math.max(1, parts.length - 2));
    parts.splice(index + 1, 0, parts[index] ?? "");
    return rejoin(parts);
  },
  "parent cycle": (bytes, pick) => {
    const ids = lines(bytes).flatMap((line) => /"id":"([^"]+)"/.exec(line)?.[1] ?? []);
    const last = ids.at(-1);
    return mapLine(bytes, pick, (value) => {
      if (last !== undefined && value.type !== "session") value.parentId = last;
    });
  },
  "missing parent": (bytes, pick) =>
    mapLine(bytes, pick, (value) => {
      if (value.type !== "session") value.parentId = "no-such-parent";
    }),
  "invalid UTF-8": (bytes, pick) =>
    Buffer.concat([
      bytes.subarray(0, pick % (bytes.length + 1)),
      Buffer.from([0xff, 0xfe, 0xc3]),
      bytes.subarray(pick % (bytes.length + 1)),
    ]),
  "unknown version": (bytes) => {
    const parts = lines(bytes);
    parts[0] = (parts[0] ?? "").replace(/"version":\d+/, '"version":99');
    return rejoin(parts);
  },
  "unknown entry type": (bytes, pick) =>
    mapLine(bytes, pick, (value) => {
      if (value.type !== "session") value.type = "mystery_entry";
    }),
  "wrong field type": (bytes, pick, value) =>
    mapLine(bytes, pick, (entry) => replaceLeaf(entry, pick, value)),
  "wrong header field type": (bytes, pick, value) => {
    const parts = lines(bytes);
    try {
      const header = JSON.parse(parts[0] ?? "") as Record<string, unknown>;
      const keys = ["cwd", "timestamp", "id", "parentSession"];
      header[keys[pick % keys.length] as string] = value;
      parts[0] = JSON.stringify(header);
    } catch {
      return bytes;
    }
    return rejoin(parts);
  },
  empty: () => Buffer.alloc(0),
};

const wrongValue = fc.oneof(
  fc.integer(),
  fc.constant(null),
  fc.constant([]),
  fc.constant({}),
  fc.boolean(),
  fc.constant("x\u0000y"),
);

/** Whether an error is one the library may end with (a typed ArborError), not a crash. */
function typed(error: unknown): boolean {
  const value = error as { code?: unknown; name?: string };
  return typeof value?.code === "string" && value.name !== "TypeError" && value.name !== "RangeError";
}

let counter = 0;
/** Opens, builds, appends to and exports one damaged file; returns a crash description or undefined. */
async function exercise(bytes: Buffer): Promise<string | undefined> {
  const box = sandbox();
  const path = join(box.root, `damaged-${counter++}.jsonl`);
  writeFileSync(path, bytes);
  let store: JsonlSessionStore | undefined;
  try {
    const opened = await JsonlSessionStore.openFile(path);
    store = opened.store;
    const session = await Session.open(store, opened.sessionId);
    session.buildContext();
    exportHtml(session);
    exportMarkdown(session);
    await exportJsonl(store, opened.sessionId);
    session.appendMessage({
      role: "user",
      content: [{ type: "text", text: "after the damage" }],
      timestamp: Date.now(),
    });
    await session.flush();
    const again = await Session.open(store, opened.sessionId);
    if (
      !again
        .getBranch()
        .some((entry) => entry.type === "message" && JSON.stringify(entry).includes("after the damage"))
    )
      return "the append is not on the branch after reopening";
    return undefined;
  } catch (error) {
    return typed(error) ? undefined : `${(error as Error).name}: ${(error as Error).message}`;
  } finally {
    await store?.close();
  }
}

describe("bad files", () => {
  it("mutated pi and Arbor files: the library never crashes and an append lands", async () => {
    const bases = [...piFiles, arborFile];
    const crashes: string[] = [];
    let cases = 0;
    // Every case runs (failures are collected, not shrunk), so the table counts them all.
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: bases.length - 1 }),
        fc.constantFrom(...Object.keys(MUTATIONS)),
        fc.nat(),
        wrongValue,
        async (base, name, pick, value) => {
          cases++;
          const mutated = (MUTATIONS[name] as Mutation)(bases[base] as Buffer, pick, value);
          const crash = await exercise(mutated);
          if (crash !== undefined) crashes.push(`${name} of file ${base} (pick ${pick}): ${crash}`);
          return true;
        },
      ),
      { numRuns: trials(300, 10_000), seed: 20261202 },
    );
    record({
      category: "bad files",
      kind: "library: Session.open + buildContext + exports + append on mutated files",
      trials: cases,
      failures: crashes.length,
      lost: crashes.length === 0 ? "nothing" : crashes.join("; "),
    });
    expect(crashes).toEqual([]);
  });

  it("truncation at any byte keeps every complete entry (in the session or moved to .torn)", async () => {
    const failures: string[] = [];
    let cases = 0;
    await fc.assert(
      fc.asyncProperty(fc.nat(), async (pick) => {
        cases++;
        const cut = pick % (arborFile.length + 1);
        const prefix = arborFile.subarray(0, cut).toString("utf8");
        const complete = prefix
          .split("\n")
          .slice(1, -1)
          .flatMap((line) => /^\{"type":"(?!session)[^"]+","id":"([^"]+)"/.exec(line)?.[1] ?? []);
        const box = sandbox();
        const path = join(box.root, "truncated.jsonl");
        writeFileSync(path, arborFile.subarray(0, cut));
        try {
          const opened = await JsonlSessionStore.openFile(path);
          const session = await Session.open(opened.store, opened.sessionId);
          const torn = existsSync(`${path}.torn`) ? readFileSync(`${path}.torn`, "utf8") : "";
          const lost = complete.filter((id) => !session.has(id) && !torn.includes(`"id":"${id}"`));
          if (lost.length > 0) failures.push(`cut at ${cut}: lost ${lost.join(", ")}`);
          await opened.store.close();
        } catch (error) {
          // Cut inside the header: nothing but the header could be read.
          if (!typed(error) || complete.length > 0) failures.push(`cut at ${cut}: ${String(error)}`);
        }
        return true;
      }),
      { numRuns: trials(150, 3000), seed: 7 },
    );
    record({
      category: "bad files",
      kind: "truncation at any byte of an Arbor file",
      trials: cases,
      failures: failures.length,
      lost: failures.length === 0 ? "nothing" : failures.join("; "),
    });
    expect(failures).toEqual([]);
  });

  it("the CLI's show, export, import and -r never crash or hang on damaged files, directories, FIFOs and loops", async () => {
    const box = sandbox();
    const directory = join(box.home, "sessions", "--damaged--");
    mkdirSync(directory, { recursive: true });
    // Each damaged file in its own home (two of them may share a session id), run CONCURRENCY at a time.
    const references: { box: Box; reference: string }[] = [];
    const samples = fc.sample(fc.tuple(fc.constantFrom(...Object.keys(MUTATIONS)), fc.nat(), wrongValue), {
      numRuns: trials(6, 100),
      seed: 99,
    });
    for (const [index, [name, pick, value]] of samples.entries()) {
      const own = sandbox();
      const path = join(own.root, `cli-${index}.jsonl`);
      writeFileSync(
        path,
        (MUTATIONS[name] as Mutation)(
          index % 2 === 0 ? arborFile : (piFiles[index % piFiles.length] as Buffer),
          pick,
          value,
        ),
      );
      references.push({ box: own, reference: path });
    }
    // A header whose cwd holds a NUL, a directory, a FIFO and a symlink loop where session files should be.
    const nul = join(box.root, "nul-cwd.jsonl");
    writeFileSync(
      nul,
      `${JSON.stringify({ type: "session", version: 3, id: "nul-cwd", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/tmp/a\u0000b" })}\n`,
    );
    references.push({ box, reference: nul });
    mkdirSync(join(directory, "2026-01-01T00-00-00-000Z_dir-session.jsonl"));
    execFileSync("mkfifo", [join(directory, "2026-01-01T00-00-00-000Z_fifo-session.jsonl")]);
    const loop = join(directory, "2026-01-01T00-00-00-000Z_loop-session.jsonl");
    symlinkSync(loop, loop);
    for (const reference of ["dir-session", "fifo-session", "loop-session"])
      references.push({ box, reference });
    const failures: string[] = [];
    let runs = 0;
    const tryCommands = async (box: Box, reference: string) => {
      const commands = [
        ["sessions", "show", reference],
        ["sessions", "export", reference, "--format", "html"],
        ["sessions", "export", reference, "--format", "md"],
        ...(reference.endsWith(".jsonl") ? [["sessions", "import", reference]] : []),
        ["-r", reference, "-p", "continue", ...serverFlags(server)],
      ];
      for (const args of commands) {
        runs++;
        const run = await runArbor(box, args, { timeoutMs: 60_000 });
        const problem = run.hung
          ? "hung"
          : STACK_TRACE.test(run.stderr)
            ? `crashed: ${run.stderr.slice(0, 300)}`
            : run.code !== 0 && run.code !== 1
              ? `exit ${run.code}`
              : run.code === 1 && !/^arbor( sessions \w+)?: /m.test(run.stderr)
                ? "exit 1 without a message"
                : undefined;
        if (problem !== undefined)
          failures.push(`${args.slice(0, 2).join(" ")} ${reference.split("/").at(-1)}: ${problem}`);
      }
    };
    // A home's references one after the other (the shared one's commands touch one sessions directory).
    const byBox = [...new Set(references.map((item) => item.box))].map((home) =>
      references.filter((item) => item.box === home),
    );
    await inParallel(byBox, CONCURRENCY, async (items) => {
      for (const { box, reference } of items) await tryCommands(box, reference);
    });
    failures.sort();
    record({
      category: "bad files",
      kind: "CLI: sessions show/export/import and -r on damaged files, a NUL cwd, a directory, a FIFO, a symlink loop",
      trials: runs,
      failures: failures.length,
      lost: failures.length === 0 ? "nothing" : failures.join("; "),
    });
    expect(failures).toEqual([]);
  });
});
