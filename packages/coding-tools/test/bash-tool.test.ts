import { readFile, rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { type BashToolDetails, createBashTool } from "../src/index.js";
import { callTool, tempDirectory, textOf } from "./helpers.js";
import { isAlive, processesInGroup, waitFor } from "./processes.js";

const linux = process.platform === "linux";

describe("bash: results", () => {
  it("runs in cwd and reports the exit code in the text and details", async () => {
    const cwd = await tempDirectory();
    const result = await callTool<BashToolDetails>(createBashTool(cwd), { command: "pwd; echo hi" });
    expect(result.isError).toBeUndefined();
    expect(result.text).toBe(`${cwd}\nhi\n\n[Exit code: 0]`);
    expect(result.details).toMatchObject({ exitCode: 0, totalLines: 2, truncated: false });
    expect(result.details).not.toHaveProperty("fullOutputPath");
  });

  it("interleaves stderr with stdout and makes a non-zero exit an error", async () => {
    const cwd = await tempDirectory();
    const result = await callTool<BashToolDetails>(createBashTool(cwd), {
      command: "echo out; sleep 0.05; echo err >&2; sleep 0.05; echo out2; exit 3",
    });
    expect(result.isError).toBe(true);
    expect(result.text).toBe("out\nerr\nout2\n\n[Exit code: 3]");
    expect(result.details?.exitCode).toBe(3);
  });

  it("says when there is no output, closes stdin, and reports a kill by signal", async () => {
    const cwd = await tempDirectory();
    const tool = createBashTool(cwd);
    const quiet = await callTool(tool, { command: "cat" }); // stdin is /dev/null: cat ends at once
    expect(quiet.text).toBe("(no output)\n\n[Exit code: 0]");
    const killed = await callTool<BashToolDetails>(tool, { command: "kill -9 $$" });
    expect(killed.isError).toBe(true);
    expect(killed.text).toBe("(no output)\n\n[Killed by signal SIGKILL]");
    expect(killed.details).toMatchObject({ exitCode: null, signal: "SIGKILL" });
  });

  it("uses the given shell and environment, and reports a shell that cannot start", async () => {
    const cwd = await tempDirectory();
    const withEnv = await callTool(
      createBashTool(cwd, { shell: "/bin/sh", env: { ARBOR_TEST_VALUE: "42" } }),
      {
        command: 'echo "$ARBOR_TEST_VALUE"',
      },
    );
    expect(withEnv.text).toBe("42\n\n[Exit code: 0]");
    const broken = await callTool(createBashTool(cwd, { shell: "/nonexistent/shell" }), { command: "true" });
    expect(broken.isError).toBe(true);
    expect(broken.text).toMatch(/^Cannot start the shell \(\/nonexistent\/shell\): .*ENOENT/);
  });

  it("does not wait for background processes that keep stdout open", async () => {
    const cwd = await tempDirectory();
    const result = await callTool(createBashTool(cwd), { command: "sleep 30 & echo $!; echo done" });
    const [pid] = result.text.split("\n");
    expect(result.text).toMatch(/^\d+\ndone\n\n\[Exit code: 0\]$/);
    process.kill(Number(pid), "SIGKILL");
  });
});

describe("bash: truncation", () => {
  it("keeps the last 2,000 lines and the full output in a temp file", async () => {
    const cwd = await tempDirectory();
    const tempDirectoryPath = await tempDirectory();
    const result = await callTool<BashToolDetails>(
      createBashTool(cwd, { tempDirectory: tempDirectoryPath }),
      {
        command: "seq 1 5000",
      },
    );
    const path = result.details?.fullOutputPath;
    expect(path).toBeDefined();
    expect(path?.startsWith(tempDirectoryPath)).toBe(true);
    const lines = result.text.split("\n");
    expect(lines[0]).toBe("3001");
    expect(lines[1999]).toBe("5000");
    expect(
      result.text.endsWith(`\n\n[Showing lines 3001-5000 of 5000. Full output: ${path}]\n\n[Exit code: 0]`),
    ).toBe(true);
    expect(result.details).toMatchObject({ totalLines: 5000, truncated: true, exitCode: 0 });
    const full = await readFile(path!, "utf8");
    expect(full.split("\n").length).toBe(5001);
    expect(full.startsWith("1\n2\n3\n")).toBe(true);
    await rm(path!);
  });

  it("keeps output of exactly 2,000 lines whole, without a temp file", async () => {
    const cwd = await tempDirectory();
    const result = await callTool<BashToolDetails>(createBashTool(cwd), { command: "seq 1 2000" });
    expect(result.details).toMatchObject({ totalLines: 2000, truncated: false });
    expect(result.details).not.toHaveProperty("fullOutputPath");
    expect(result.text.startsWith("1\n2\n")).toBe(true);
  });

  it("cuts by bytes, and keeps the end of a single huge line", async () => {
    const cwd = await tempDirectory();
    const tool = createBashTool(cwd, { maxBytes: 1000 });
    const wide = await callTool<BashToolDetails>(tool, {
      command: "for i in $(seq 1 100); do printf '%099d\\n' $i; done",
    });
    // 100-byte lines (99 digits + newline): 10 lines minus one newline fit in 1,000 bytes.
    expect(wide.text).toMatch(/\[Showing lines 91-100 of 100 \(last 1000 B\)\. Full output: .+\]/);
    const single = await callTool<BashToolDetails>(tool, {
      command: "head -c 5000 /dev/zero | tr '\\0' a; echo b",
    });
    expect(single.text.startsWith(`${"a".repeat(999)}b\n\n[Showing the last 1000 B of line 1 (of 1).`)).toBe(
      true,
    );
    for (const result of [wide, single]) await rm(result.details!.fullOutputPath!);
  });
});

describe("bash: streaming", () => {
  it("streams output through onUpdate while the command runs", async () => {
    const cwd = await tempDirectory();
    const seen: string[] = [];
    let resultArrived = false;
    const pending = callTool<BashToolDetails>(
      createBashTool(cwd, { updateIntervalMs: 10 }),
      {
        command: "echo first; sleep 0.3; echo second; sleep 0.3",
      },
      {
        onUpdate: (update) => {
          if (!resultArrived) seen.push(textOf({ content: update.content ?? [] }));
        },
      },
    );
    const result = await pending.then((value) => {
      resultArrived = true;
      return value;
    });
    expect(seen[0]).toBe("first");
    expect(seen.some((text) => text === "first\nsecond")).toBe(true);
    expect(result.updates[0]?.details).toMatchObject({ exitCode: null, totalLines: 1 });
  });
});

describe.runIf(linux)("bash: killing the process tree", () => {
  it("kills every process of the tree on abort, and rejects", async () => {
    const cwd = await tempDirectory();
    const controller = new AbortController();
    let group = 0;
    const pending = callTool(
      createBashTool(cwd, { updateIntervalMs: 10 }),
      { command: 'echo "group $$"; sh -c "sleep 30 & sleep 30"' },
      {
        signal: controller.signal,
        onUpdate: (update) => {
          const match = /group (\d+)/.exec(textOf({ content: update.content ?? [] }));
          if (match) group = Number(match[1]);
        },
      },
    );
    pending.catch(() => {});
    await waitFor(() => group !== 0 && sleepers(group).length === 2, "both sleeps to start");
    const pids = sleepers(group);
    controller.abort();
    await expect(pending).rejects.toThrow("The command was aborted; its process tree was killed.");
    await waitFor(() => pids.every((pid) => !isAlive(pid)), "the sleeps to die");
    expect(processesInGroup(group)).toEqual([]);
  });

  it("kills the tree on timeout and says how to give more time", async () => {
    const cwd = await tempDirectory();
    const result = await callTool<BashToolDetails>(createBashTool(cwd), {
      command: 'echo "group $$"; sh -c "sleep 30 & sleep 30"',
      timeout: 0.5,
    });
    const group = Number(/group (\d+)/.exec(result.text)?.[1]);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(
      "[Timed out after 0.5 s; the command and its child processes were killed. Pass a larger timeout",
    );
    expect(result.details).toMatchObject({ timedOut: true });
    await waitFor(() => processesInGroup(group).length === 0, "the group to die");
  });

  it("escalates to SIGKILL when the command ignores SIGTERM", async () => {
    const cwd = await tempDirectory();
    const result = await callTool<BashToolDetails>(createBashTool(cwd, { killGraceMs: 200 }), {
      command: "trap '' TERM; echo \"group $$\"; sleep 30 & wait; wait",
      timeout: 0.3,
    });
    const group = Number(/group (\d+)/.exec(result.text)?.[1]);
    expect(result.details).toMatchObject({ timedOut: true });
    await waitFor(() => processesInGroup(group).length === 0, "the group to die");
  });
});

function sleepers(group: number): number[] {
  return processesInGroup(group)
    .filter((entry) => entry.command === "sleep")
    .map((entry) => entry.pid);
}
