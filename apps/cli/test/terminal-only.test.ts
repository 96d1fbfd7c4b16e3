/**
 * The CLI holds terminal code only (docs/architecture.md): every source file imports ink, react, commander, signal-exit
 * or marked, or does process I/O (the process's streams, arguments or exit, directly or through the CLI's
 * `io.ts`), and the whole of `src` stays under 6,000 lines. Logic a second front end could use belongs in
 * `@arbor/app-runtime` or `@arbor/session-view`.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";

const SOURCE = fileURLToPath(new URL("../src", import.meta.url));

/**
 * The most lines `apps/cli/src` may hold (every file but tests). 5,000 after Step 18; raised by 1,000 when
 * the terminal gained what only a terminal draws — diffs, the permission question, key parsing, and the
 * `sessions delete/prune` subcommands (whose logic is app-runtime's `deleteSessions`, `sessionsToPrune`).
 */
const LINE_LIMIT = 6_000;

/**
 * Files that are neither, with the reason they stay. Only the app chooses concrete providers and stores
 * (DESIGN's rule), so their list is the CLI's and no package's.
 */
const EXCEPTIONS: Readonly<Record<string, string>> = {
  "factories.ts": "the concrete providers and stores arbor offers: only an app makes that choice",
  "compile-cache.ts":
    "how the arbor executable compiles its own bundle: start-up of this process, not app logic",
  "esm-externals.ts": "how the executable's bundle reaches ink: a detail of how this app is packaged",
  "main-bundle.ts": "the entry of the executable's bundle",
  "version.ts":
    "the version of this app, written from its package.json at build time (`pnpm write-versions`)",
  "version-line.ts":
    "what `arbor --version` prints: this app's version and the commit its bundle was built from",
};

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return /\.test\.tsx?$/.test(entry.name) ? [] : [path];
  });
}

const TERMINAL_IMPORT = /from "(ink|ink-[a-z-]+|react|react\/[a-z-]+|commander|marked|signal-exit)"/;
const PROCESS_IO = /\bprocess\.(stdout|stderr|stdin|argv|exit|exitCode)\b/;
const CLI_IO_IMPORT = /from "(\.\.?\/)+(\.\.\/)*io\.js"/;
const CLI_IO_USE = /\b(CliIo|CliOutput|CliInput|processIo|writeLine|colorEnabled)\b/;

/** Why a file counts as terminal code, or undefined when it does not. */
function terminalReason(text: string): string | undefined {
  const imported = TERMINAL_IMPORT.exec(text);
  if (imported !== null) return `imports ${imported[1]}`;
  const io = PROCESS_IO.exec(text);
  if (io !== null) return `uses process.${io[1]}`;
  if (CLI_IO_IMPORT.test(text) && CLI_IO_USE.test(text)) return "does process I/O through io.ts";
  return undefined;
}

describe("apps/cli/src is terminal code only", () => {
  const files = filesUnder(SOURCE);
  const sources = files.filter((path) => /\.tsx?$/.test(path));

  test("the rule recognises terminal code and rejects the rest", () => {
    expect(terminalReason('import { Box } from "ink";')).toBe("imports ink");
    expect(terminalReason('import type { Command } from "commander";')).toBe("imports commander");
    expect(terminalReason("process.stdout.write('x');")).toBe("uses process.stdout");
    expect(terminalReason('import type { CliIo } from "../io.js";\nexport function f(io: CliIo) {}')).toBe(
      "does process I/O through io.ts",
    );
    expect(terminalReason('import { treeRows } from "@arbor/session-view";\nexport const x = 1;')).toBe(
      undefined,
    );
  });

  test("every source file imports ink, react, commander or marked, or does process I/O", () => {
    expect(sources.length).toBeGreaterThan(20);
    const offenders = sources
      .map((path) => relative(SOURCE, path).split("\\").join("/"))
      .filter((name) => EXCEPTIONS[name] === undefined)
      .filter((name) => terminalReason(readFileSync(join(SOURCE, name), "utf8")) === undefined);
    expect(offenders, "move these to @arbor/app-runtime or @arbor/session-view").toEqual([]);
  });

  test("the exceptions exist (a stale exception is removed)", () => {
    for (const name of Object.keys(EXCEPTIONS))
      expect(sources.map((path) => relative(SOURCE, path))).toContain(name);
  });

  test(`src holds fewer than ${LINE_LIMIT} lines`, () => {
    const lines = files.reduce((total, path) => total + readFileSync(path, "utf8").split("\n").length - 1, 0);
    expect(lines).toBeLessThan(LINE_LIMIT);
  });
});
