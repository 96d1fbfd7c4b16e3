import { describe, expect, it } from "vitest";
import { arborProcess, runArbor, sandbox } from "./cli-helpers.js";

describe("arbor demo", () => {
  it("starts the web demo on 127.0.0.1 with the root command's flags, and stops on SIGTERM", async () => {
    const box = sandbox();
    const child = arborProcess(box, ["demo", "--port", "0", "--no-session", "--provider", "scripted"]);
    child.stdin.end();
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      let err = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const match = /Arbor demo on (http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)/.exec(out);
        if (match !== null) resolve(match[1]!);
      });
      child.stderr.on("data", (chunk: Buffer) => {
        err += chunk.toString();
      });
      child.on("close", (code) => reject(new Error(`arbor demo exited ${code}: ${err}`)));
    });
    const token = new URL(url).searchParams.get("token")!;
    const info = await fetch(new URL("/api/info", url), { headers: { "x-arbor-token": token } });
    const body = (await info.json()) as { data: { model: string; persistent: boolean } };
    expect(body.data).toMatchObject({ model: "scripted/demo", persistent: false });
    const closed = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.kill("SIGTERM");
    expect(await closed).toBe(0);
  });

  it("refuses a bad --port with a message, not a stack trace", async () => {
    const run = await runArbor(sandbox(), ["demo", "--port", "http"]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain("--port");
    expect(run.stderr).not.toContain("    at ");
  });
});
