/**
 * The published bin, as built (`dist/arbor.js` loading `dist/arbor-main.cjs` through the compile cache):
 * what running from source cannot show. The cache is made and then accepted by V8; the interactive UI gets
 * ink, an ES module the CommonJS bundle cannot `require`, through the bin's stand-ins; extensions load
 * through jiti with real `import()`s.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chatFrames, chatTextChunks, chatToolCallChunks, startOpenAIWireServer } from "@internal/conformance";
import { describe, expect, it } from "vitest";
import { type Sandbox, sandbox } from "./cli-helpers.js";
import { BUILT_BIN, HAS_SCRIPT, plain, spawnOnPty } from "./pty.js";

function runBuilt(box: Sandbox, args: string[], env: Record<string, string> = {}) {
  expect(existsSync(BUILT_BIN), `${BUILT_BIN} is missing: build the CLI first`).toBe(true);
  return spawnSync(process.execPath, [BUILT_BIN, ...args], {
    cwd: box.cwd,
    env: { ...box.env, ...env },
    encoding: "utf8",
  });
}

describe("the built arbor", () => {
  it("says its version and the commit it was built from", () => {
    const result = runBuilt(sandbox(), ["--version"]);
    const version = (
      JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
    ).version;
    const line = new RegExp(`^arbor ${version.replaceAll(".", "\\.")} \\(commit ([0-9a-f]{7,})\\)\n$`);
    expect(result.stdout).toMatch(line);
    // In a clone, the checkout's HEAD (read at run time: a build replayed from turbo's cache says it too).
    const head = spawnSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8" }).stdout.trim();
    expect(line.exec(result.stdout)![1]).toBe(head);
  });

  it("makes its compile cache on the first run, and V8 takes it on the next ones", () => {
    const box = sandbox();
    const cache = join(box.home, "..", "compile-cache");
    for (let run = 0; run < 4; run++) {
      const result = runBuilt(box, ["-p", "hi", "--provider", "scripted"], { ARBOR_COMPILE_CACHE: cache });
      expect(result.stderr).toBe("");
      expect(result.stdout).toContain("scripted model");
    }
    const files = readdirSync(cache);
    expect(files).toEqual([expect.stringMatching(/^arbor-main\.cjs-[0-9a-f]{16}-v8-.+\.bin$/)]);
    // Made on run 1 (uses 0), then used: made again on uses 1 and 2, counted on use 3. Data V8 rejected
    // would be made again at 0 every time.
    expect(readFileSync(join(cache, files[0]!)).readUInt32LE(4)).toBe(3);
  });

  it("runs without a cache when it is turned off or cannot be written", () => {
    const box = sandbox();
    const blocked = join(box.home, "..", "not-a-directory");
    writeFileSync(blocked, "");
    for (const setting of ["off", blocked]) {
      const result = runBuilt(box, ["-p", "hi", "--provider", "scripted"], { ARBOR_COMPILE_CACHE: setting });
      expect(result.stderr).toBe("");
      expect(result.status).toBe(0);
    }
  });

  it("loads an extension that imports Node's modules (jiti's import() is a real one)", () => {
    const box = sandbox();
    const directory = join(box.cwd, ".arbor", "extensions");
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      join(directory, "hash.ts"),
      [
        'import { createHash } from "node:crypto";',
        "export default function hash(arbor: any) {",
        '  arbor.registerCommand("hash", {',
        '    description: "sha1 of the argument",',
        "    run(text: string) {",
        '      arbor.ui.notify(createHash("sha1").update(text).digest("hex"));',
        "    },",
        "  });",
        "}",
      ].join("\n"),
    );
    const result = runBuilt(box, ["--provider", "scripted", "-p", "/hash abc"]);
    expect(result.stderr).toContain("arbor: a9993e364706816aba3e25717850c26c9cd0d89d");
    expect(result.status).toBe(0);
  });

  it("hands an extension TypeBox and Arbor's packages from the bundle (nothing installed beside it); its tool runs", async () => {
    const box = sandbox();
    const directory = join(box.home, "extensions");
    mkdirSync(directory, { recursive: true });
    writeFileSync(
      join(directory, "greet.ts"),
      [
        'import { Type } from "@sinclair/typebox";',
        'import { Value } from "@sinclair/typebox/value";',
        'import type { AgentTool } from "@arbor/agent-core";',
        'import { ArborError } from "@arbor/ai-providers";',
        'import type { ExtensionApi } from "@arbor/app-runtime";',
        "const parameters = Type.Object({ name: Type.String() });",
        "const greet: AgentTool<typeof parameters> = {",
        '  name: "greet", label: "greet", description: "greets someone", parameters,',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the extension's own template string
        '  execute: async (args) => ({ content: [{ type: "text", text: `Hello, ${args.name}!` }], details: undefined }),',
        "};",
        "export default function (arbor: ExtensionApi) {",
        "  arbor.registerTool(greet);",
        '  arbor.registerCommand("check", { description: "validates", run(text) {',
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the extension's own template string
        '    arbor.ui.notify(`valid: ${Value.Check(parameters, { name: text })}, ${new ArborError("x", "y").code}`);',
        "  } });",
        "}",
      ].join("\n"),
    );
    const check = runBuilt(box, ["--provider", "scripted", "-p", "/check Ada"]);
    expect(check.stderr).toBe("arbor: valid: true, x\n");
    const server = await startOpenAIWireServer([
      {
        kind: "sse",
        frames: chatFrames(chatToolCallChunks([{ id: "call_1", name: "greet", arguments: { name: "Ada" } }])),
      },
      { kind: "sse", frames: chatFrames(chatTextChunks("Greeted.")) },
    ]);
    try {
      const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(
          process.execPath,
          [BUILT_BIN, "--base-url", server.url, "--model", "m", "-p", "greet Ada"],
          {
            cwd: box.cwd,
            env: box.env,
          },
        );
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (chunk: Buffer) => {
          stdout += chunk.toString();
        });
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.stdin.end();
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim()).toBe("Greeted.");
      const messages = (server.requests[1]?.body?.messages ?? []) as { role: string; content?: unknown }[];
      expect(messages.filter((message) => message.role === "tool").map((message) => message.content)).toEqual(
        ["Hello, Ada!"],
      );
    } finally {
      await server.close();
    }
  });

  it.skipIf(!HAS_SCRIPT)(
    "starts the interactive UI on a terminal (ink through the bundle's stand-in); a command typed while it starts runs once it is up",
    async () => {
      expect(existsSync(BUILT_BIN), `${BUILT_BIN} is missing: build the CLI first`).toBe(true);
      const box = sandbox();
      const child = spawnOnPty(["--provider", "scripted"], {
        cwd: box.cwd,
        env: { ...box.env, TERM: "xterm" },
      });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      child.stderr.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      let killed = false;
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      const timer = setTimeout(() => {
        killed = true;
        child.kill();
      }, 20_000);
      // Typed once, before the UI is drawn: held while arbor starts (`holdTypeahead` in src/ui/typeahead.ts), then read by the UI.
      child.stdin.write("/quit\r");
      const code = await closed;
      clearTimeout(timer);
      expect(killed, plain(output)).toBe(false);
      expect(plain(output)).toContain("Ask anything · / for commands");
      expect(plain(output)).not.toContain("internal");
      expect(code).toBe(0);
    },
    30_000,
  );

  it.runIf(HAS_SCRIPT)(
    "completes @path on the first Tab in the interactive editor",
    async () => {
      const box = sandbox();
      writeFileSync(join(box.cwd, "notes.txt"), "milk\n");
      const child = spawnOnPty(["--provider", "scripted"], {
        cwd: box.cwd,
        env: { ...box.env, TERM: "xterm" },
      });
      let output = "";
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString("utf8");
      });
      const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
      const until = async (text: string) => {
        const deadline = Date.now() + 15_000;
        while (!plain(output).includes(text)) {
          if (Date.now() > deadline) throw new Error(`no "${text}" in:\n${plain(output)}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      try {
        await until("Ask anything");
        child.stdin.write("see @no");
        await until("see @no");
        child.stdin.write("\t");
        await until("see @notes.txt");
        expect(plain(output)).not.toContain("no file matches");
        child.stdin.write("\x03");
        await new Promise((resolve) => setTimeout(resolve, 200));
        child.stdin.write("/quit\r");
        expect(await closed).toBe(0);
      } finally {
        child.kill();
      }
    },
    30_000,
  );
});
