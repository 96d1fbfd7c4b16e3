import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { arborProcess, runArbor, type Sandbox, sandbox } from "./cli-helpers.js";

/** `arbor demo` started in the sandbox's project: its URL, its stdout so far and the process. */
async function startDemo(box: Sandbox, args: readonly string[]) {
  const child = arborProcess(box, ["demo", "--port", "0", "--no-session", "--provider", "scripted", ...args]);
  child.stdin.end();
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /Arbor demo on (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)[\s\S]*Ctrl-C stops it/.exec(out);
      if (match !== null) resolve(match[1]!);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.on("close", (code) => reject(new Error(`arbor demo exited ${code}: ${err}`)));
  });
  const token = new URL(url).searchParams.get("token")!;
  const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
  return { child, url, token, closed, stdout: () => out };
}

/** `GET /api/info` of a running demo. */
async function infoOf(url: string, token: string) {
  const info = await fetch(new URL("/api/info", url), { headers: { "x-arbor-token": token } });
  return (
    (await info.json()) as { data: { model: string; persistent: boolean; cwd: string; freshCwd: boolean } }
  ).data;
}

/** Sends a prompt to a running demo. */
async function prompt(url: string, token: string, text: string): Promise<void> {
  const response = await fetch(new URL("/api/command", url), {
    method: "POST",
    headers: { "content-type": "application/json", "x-arbor-token": token },
    body: JSON.stringify({ type: "prompt", text }),
  });
  expect(response.status).toBe(200);
}

describe("arbor demo", () => {
  it("starts the web demo on 127.0.0.1 with the root command's flags, and stops on SIGTERM", async () => {
    const demo = await startDemo(sandbox(), []);
    expect(await infoOf(demo.url, demo.token)).toMatchObject({ model: "scripted/demo", persistent: false });
    demo.child.kill("SIGTERM");
    expect(await demo.closed).toBe(0);
  });

  it("runs the tools in a fresh temporary folder, never in the folder it was started in, and says so", async () => {
    const box = sandbox();
    const demo = await startDemo(box, []);
    try {
      const info = await infoOf(demo.url, demo.token);
      expect(info.freshCwd).toBe(true);
      expect(info.cwd).not.toBe(realpathSync(box.cwd));
      expect(demo.stdout()).toContain(
        `tools run in ${info.cwd} (a fresh temporary folder; --cwd <dir> to choose)`,
      );
      await prompt(demo.url, demo.token, "write written.txt: by the demo's model");
      await expect.poll(() => existsSync(join(info.cwd, "written.txt")), { timeout: 20_000 }).toBe(true);
      expect(readFileSync(join(info.cwd, "written.txt"), "utf8").trim()).toBe("by the demo's model");
      expect(existsSync(join(box.cwd, "written.txt"))).toBe(false);
    } finally {
      demo.child.kill("SIGTERM");
      await demo.closed;
    }
    // What the model wrote stays (the last line says where); the folder is the caller's to remove here.
    const info = /tools run in (\S+)/.exec(demo.stdout())![1]!;
    expect(demo.stdout()).toContain(`The tools' folder stays: ${info}`);
    rmSync(info, { recursive: true, force: true });
  });

  it("--cwd names the tools' folder; a missing one is one message", async () => {
    const box = sandbox();
    const folder = join(box.cwd, "work");
    mkdirSync(folder);
    const demo = await startDemo(box, ["--cwd", "work"]);
    try {
      const info = await infoOf(demo.url, demo.token);
      expect(info).toMatchObject({ cwd: realpathSync(folder), freshCwd: false });
      expect(demo.stdout()).toContain(`tools run in ${realpathSync(folder)} (--cwd)`);
      await prompt(demo.url, demo.token, "write here.txt: asked for");
      await expect.poll(() => existsSync(join(folder, "here.txt")), { timeout: 20_000 }).toBe(true);
    } finally {
      demo.child.kill("SIGTERM");
      await demo.closed;
    }
    const missing = await runArbor(box, ["demo", "--port", "0", "--no-session", "--cwd", "nowhere"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("--cwd nowhere: not an existing folder");
    expect(missing.stderr).not.toContain("    at ");
  });

  it("Ctrl-C closes it and exits 0, also when the SIGINT comes twice at once (as under pnpm)", async () => {
    const demo = await startDemo(sandbox(), []);
    const folder = (await infoOf(demo.url, demo.token)).cwd;
    demo.child.kill("SIGINT");
    setTimeout(() => demo.child.kill("SIGINT"), 20);
    expect(await demo.closed).toBe(0);
    // Nothing was written there: the fresh folder is gone.
    expect(existsSync(folder)).toBe(false);
  });

  it("refuses a bad --port with a message, not a stack trace", async () => {
    const run = await runArbor(sandbox(), ["demo", "--port", "http"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("--port");
    expect(run.stderr).not.toContain("    at ");
  });
});
