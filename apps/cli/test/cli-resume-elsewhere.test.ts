/**
 * Resuming a session recorded in another directory: it continues in the current one as a fork (its header
 * records the current directory, `parentSession` the original), the tools run here, the original is
 * unchanged, and stderr says so with the command that resumes the original where it was recorded.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsonLines, RpcClient, runArbor, sandbox, sessionFiles } from "./cli-helpers.js";

describe("resuming a session recorded in another directory", () => {
  it("continues here as a fork, says so in print and json mode, and leaves the original", {
    timeout: 90_000,
  }, async () => {
    const box = sandbox();
    const first = await runArbor(box, ["-p", "hello", "--provider", "scripted"]);
    expect(first.code, first.stderr).toBe(0);
    const [original] = sessionFiles(box.home);
    const originalId = String(original!.lines[0]!.id);
    const before = readFileSync(original!.path, "utf8");

    const elsewhere = join(box.cwd, "..", "elsewhere");
    mkdirSync(elsewhere);
    const resumed = await runArbor(box, ["-p", "run pwd", "--provider", "scripted", "--resume", originalId], {
      cwd: elsewhere,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `session ${originalId} was recorded in ${box.cwd}, not here (${elsewhere})`,
    );
    expect(resumed.stderr).toContain(
      `To resume it where it was recorded: cd ${box.cwd} && arbor --resume ${originalId}`,
    );
    // The tools ran here.
    expect(resumed.stdout).toContain(elsewhere);

    expect(readFileSync(original!.path, "utf8")).toBe(before);
    const fork = sessionFiles(box.home).find((file) => file.path !== original!.path)!;
    expect(fork.lines[0]).toMatchObject({ type: "session", cwd: elsewhere, parentSession: originalId });
    expect(fork.text).toContain("hello");
    expect(resumed.stderr).toContain(`it continues here as ${String(fork.lines[0]!.id)}`);

    // json mode says it on stderr too; stdout stays JSON lines.
    const json = await runArbor(
      box,
      ["--mode", "json", "-p", "hi", "--provider", "scripted", "-r", originalId],
      {
        cwd: elsewhere,
      },
    );
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toContain(`was recorded in ${box.cwd}`);
    expect(() => jsonLines(json.stdout)).not.toThrow();
    // Resumed here again: the fork made here before continues (no second fork).
    expect(json.stderr).toContain(
      `it continues here as ${String(fork.lines[0]!.id)}, its fork made here before`,
    );
    expect(sessionFiles(box.home)).toHaveLength(2);

    // --fork of a session recorded elsewhere: the fork is recorded here too.
    const forked = await runArbor(box, ["-p", "hi", "--provider", "scripted", "--fork", originalId], {
      cwd: elsewhere,
    });
    expect(forked.code, forked.stderr).toBe(0);
    const forks = sessionFiles(box.home).filter((file) => file.lines[0]!.parentSession === originalId);
    expect(forks).toHaveLength(2);
    for (const file of forks) expect(file.lines[0]).toMatchObject({ cwd: elsewhere });

    // Opened from a running session (rpc's open_session, the terminal's /resume): a notice, the same fork.
    const client = RpcClient.start(box, ["--provider", "scripted"], { cwd: elsewhere });
    await client.waitFor((line) => line.type === "session");
    const opened = await client.send({ id: "o", type: "open_session", sessionId: originalId });
    expect(opened.success, JSON.stringify(opened)).toBe(true);
    const notice = await client.waitFor((line) => line.type === "notice");
    expect(notice).toMatchObject({ level: "warning" });
    expect(String(notice.message)).toContain(`cd ${box.cwd} && arbor --resume ${originalId}`);
    const state = await client.send({ id: "s", type: "get_state" });
    expect((state.data as { sessionId: string }).sessionId).not.toBe(originalId);
    expect(await client.end()).toBe(0);
  });
});
