/**
 * Keys that reach the built `arbor` in one chunk, as tmux, SSH or mosh send them, act as if typed one by one;
 * a bracketed paste stays text. The real bin (`dist/arbor.js`) runs on a pseudo-terminal (util-linux
 * `script`) with the offline scripted model; each chunk is one write to the terminal.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { type Sandbox, sandbox, sessionFiles } from "./cli-helpers.js";
import { BUILT_BIN, HAS_SCRIPT, plain, spawnOnPty } from "./pty.js";

/** `arbor` on a pseudo-terminal: what it drew, chunks written to it, its exit. */
class Terminal {
  output = "";
  /** Where the screen's output starts for the next {@link waitFor}. */
  private mark = 0;
  readonly closed: Promise<number | null>;
  private readonly child: ChildProcessWithoutNullStreams;

  constructor(box: Sandbox, args: string[]) {
    this.child = spawnOnPty(args, { cwd: box.cwd, env: { ...box.env, TERM: "xterm" } });
    const take = (chunk: Buffer) => {
      this.output += chunk.toString("utf8");
    };
    this.child.stdout.on("data", take);
    this.child.stderr.on("data", take);
    this.closed = new Promise((resolve) => this.child.on("close", resolve));
  }

  /** Writes one chunk; the next {@link waitFor} looks only at what is drawn after it. */
  write(chunk: string): void {
    this.mark = this.output.length;
    this.child.stdin.write(chunk);
  }

  /** Waits until what was drawn since the last write matches. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(plain(this.output.slice(this.mark)))) {
      if (Date.now() > deadline) {
        throw new Error(
          `timed out waiting for ${pattern}; the screen since the last write:\n${plain(this.output.slice(this.mark))}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Waits for the exit code (null when it had to be killed). */
  async exit(timeoutMs = 30_000): Promise<number | null> {
    const timer = setTimeout(() => this.kill(), timeoutMs);
    try {
      return await this.closed;
    } finally {
      clearTimeout(timer);
    }
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill("SIGKILL");
  }
}

const terminals: Terminal[] = [];

afterEach(() => {
  for (const terminal of terminals.splice(0)) terminal.kill();
});

/** The texts of the user messages saved under a home. */
function userMessages(home: string): string[] {
  const texts: string[] = [];
  for (const file of sessionFiles(home)) {
    for (const line of file.lines) {
      const message = line.message as { role?: string; content?: { text?: string }[] } | undefined;
      if (line.type !== "message" || message?.role !== "user") continue;
      texts.push((message.content ?? []).map((block) => block.text ?? "").join(""));
    }
  }
  return texts;
}

// The editor's line: the prompt mark, the text, the cursor (an inverse space, plain here) and the border.
const editorShows = (text: string) => new RegExp(`│ › ${text.replace(/[/\\^$.*+?()[\]{}|]/g, "\\$&")} +│`);

describe.skipIf(!HAS_SCRIPT && process.env.CI === undefined)("the built arbor on a terminal", () => {
  it("takes editing keys sent in one chunk with text, pastes, the / menu, and /quit after Ctrl-U", async () => {
    expect(existsSync(BUILT_BIN), `${BUILT_BIN} is missing: build the CLI first`).toBe(true);
    const box = sandbox();
    const terminal = new Terminal(box, ["--provider", "scripted"]);
    terminals.push(terminal);
    await terminal.waitFor(/Ask anything/, 60_000);

    terminal.write("abc\u007f\u007fZ"); // abc, Backspace, Backspace, Z
    await terminal.waitFor(editorShows("aZ"));
    terminal.write("\u0003"); // Ctrl-C clears the editor
    await terminal.waitFor(/Ask anything/);

    terminal.write("abc\u0001Q"); // Ctrl-A: to the line's start
    await terminal.waitFor(editorShows("Qabc"));
    terminal.write("\u0003");
    await terminal.waitFor(/Ask anything/);

    // The / menu takes the rest of a chunk as its filter, then Enter chooses.
    terminal.write("/");
    await terminal.waitFor(/type to filter/);
    terminal.write("con\r");
    await terminal.waitFor(editorShows("/context"));
    terminal.write("\u0003");
    await terminal.waitFor(/Ask anything/);

    // A bracketed paste: its line breaks are text, nothing is sent until Enter.
    terminal.write("\u001b[200~first line\rsecond line\u001b[201~");
    await terminal.waitFor(/│ › first line +│[\s\S]*│ {3}second line +│/);
    terminal.write("\r");
    await terminal.waitFor(/You said: "first line/);

    terminal.write("hello\r"); // typed with its Enter: the text, then Enter
    await terminal.waitFor(/› hello[\s\S]*offline scripted model/);

    terminal.write("some draft text\u0015/quit\r"); // Ctrl-U clears the draft: /quit quits
    expect(await terminal.exit(), plain(terminal.output)).toBe(0);

    expect(userMessages(box.home)).toEqual(["first line\nsecond line", "hello"]);
    // Bracketed paste was turned on for the UI and off again after it.
    expect(terminal.output).toContain("\u001b[?2004h");
    expect(terminal.output.lastIndexOf("\u001b[?2004l")).toBeGreaterThan(
      terminal.output.lastIndexOf("\u001b[?2004h"),
    );
  }, 180_000);
});
