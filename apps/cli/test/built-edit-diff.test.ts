/**
 * An edit as a diff, in the built bin: the interactive UI on a pseudo-terminal shows the edit's lines in red
 * and green with their numbers, Ctrl-O shows a cut tool output whole, and `arbor sessions export --format
 * html` of the same session holds the diff table.
 */
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  chatFrames,
  chatTextChunks,
  chatToolCallChunks,
  type OpenAIWireServer,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { sandbox, sessionFiles } from "./cli-helpers.js";
import { BUILT_BIN, HAS_SCRIPT, plain, spawnOnPty } from "./pty.js";

const ESCAPE = "\u001b";

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("an edit in the built arbor", () => {
  it.skipIf(!HAS_SCRIPT)(
    "shows an edit and a write as red/green diffs in the terminal, expands a cut output with Ctrl-O, and exports the diff as HTML",
    async () => {
      expect(existsSync(BUILT_BIN), `${BUILT_BIN} is missing: build the CLI first`).toBe(true);
      server = await startOpenAIWireServer([
        {
          kind: "sse",
          frames: chatFrames(
            chatToolCallChunks([
              {
                id: "call_edit",
                name: "edit",
                arguments: { path: "math.js", edits: [{ oldText: "const a = 1;", newText: "const a = 2;" }] },
              },
              {
                id: "call_write",
                name: "write",
                arguments: { path: "notes.txt", content: "one\nTWO\nthree\n" },
              },
              { id: "call_seq", name: "bash", arguments: { command: "seq 101 130" } },
            ]),
          ),
        },
        { kind: "sse", frames: chatFrames(chatTextChunks("Done editing.")) },
      ]);
      const box = sandbox();
      writeFileSync(join(box.cwd, "math.js"), "// math\nconst a = 1;\nexport { a };\n");
      writeFileSync(join(box.cwd, "notes.txt"), "one\ntwo\nthree\n");
      const { NO_COLOR: _off, ...env } = box.env;
      const child = spawnOnPty(["--base-url", server.url, "--model", "m", "set a to 2"], {
        cwd: box.cwd,
        env: { ...env, TERM: "xterm-256color", FORCE_COLOR: "1" },
        cols: 120,
        rows: 40,
      });
      let output = "";
      const waiters: { text: string; resolve: () => void }[] = [];
      const onData = (chunk: Buffer) => {
        output += chunk.toString("utf8");
        for (const waiter of waiters.splice(0)) {
          if (plain(output).includes(waiter.text)) waiter.resolve();
          else waiters.push(waiter);
        }
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      const seen = (text: string) =>
        new Promise<void>((resolve) => {
          if (plain(output).includes(text)) resolve();
          else waiters.push({ text, resolve });
        });
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      const timer = setTimeout(() => child.kill(), 40_000);

      await seen("Done editing.");
      const cut = output.length;
      child.stdin.write("\u000f"); // Ctrl-O
      await seen("full output");
      const expanded = plain(output.slice(cut));
      child.stdin.write("/quit\r");
      const code = await closed;
      clearTimeout(timer);

      const screen = plain(output);
      expect(screen).toContain("✓ edit math.js (+1 −1)");
      expect(screen).toMatch(/⎿ 1 {3}\/\/ math/);
      expect(screen).toContain("2 - const a = 1;");
      expect(screen).toContain("2 + const a = 2;");
      // Removed lines red, added lines green (SGR 31 and 32), context grey.
      expect(output).toMatch(new RegExp(`${ESCAPE}\\[31m +2 - const a = 1;`));
      expect(output).toMatch(new RegExp(`${ESCAPE}\\[32m +2 \\+ const a = 2;`));
      // A write over a file shows what it changed.
      expect(screen).toContain("✓ write notes.txt (+1 −1)");
      expect(screen).toContain("2 - two");
      expect(screen).toContain("2 + TWO");
      // The bash output was cut, with the hint; Ctrl-O printed it whole.
      expect(screen).toContain("more lines (Ctrl-O to expand)");
      expect(expanded).toContain("✓ bash command: seq 101 130 · full output");
      expect(expanded).toContain("130");
      expect(code).toBe(0);
      expect(readFileSync(join(box.cwd, "math.js"), "utf8")).toBe("// math\nconst a = 2;\nexport { a };\n");

      const [file] = sessionFiles(box.home);
      const exported = spawnSync(
        process.execPath,
        [BUILT_BIN, "sessions", "export", file!.path, "--format", "html"],
        {
          cwd: box.cwd,
          env: box.env,
          encoding: "utf8",
        },
      );
      expect(exported.status, exported.stderr).toBe(0);
      expect(exported.stdout).toContain(
        '<div class="diff-head">math.js <span class="diff-counts">+1 −1</span>',
      );
      expect(exported.stdout).toContain(
        '<tr class="remove"><td class="ln">2</td><td class="ln"></td><td><span class="sign">-</span>const a = 1;</td></tr>',
      );
      expect(exported.stdout).toContain(
        '<tr class="add"><td class="ln"></td><td class="ln">2</td><td><span class="sign">+</span>const a = 2;</td></tr>',
      );
    },
    60_000,
  );
});
