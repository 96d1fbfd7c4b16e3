import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runArbor, sandbox } from "./cli-helpers.js";

describe("an unusable ARBOR_HOME", { timeout: 60_000 }, () => {
  it("under /proc: one clear message and exit 1, before anything runs (never a spinning mkdir)", async () => {
    const box = sandbox();
    const run = await runArbor(box, ["-p", "hi", "--provider", "scripted"], {
      env: { ARBOR_HOME: "/proc/arbor-home" },
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe(
      "arbor: ARBOR_HOME (/proc/arbor-home) cannot hold Arbor's files: /proc is on a virtual file system (proc) " +
        "that holds no files. Point it at a writable directory, or run with --no-session to write nothing.\n",
    );
  });

  it("a file, or under a file: the same, for a session and for the tour", async () => {
    const box = sandbox();
    const file = join(box.cwd, "not-a-dir");
    writeFileSync(file, "x");
    const session = await runArbor(box, ["-p", "hi", "--provider", "scripted"], {
      env: { ARBOR_HOME: file },
    });
    expect(session.code).toBe(1);
    expect(session.stderr).toContain(
      `ARBOR_HOME (${file}) cannot hold Arbor's files: ${file} is a file, not a directory.`,
    );
    const tour = await runArbor(box, ["tour", "--pace", "0"], { env: { ARBOR_HOME: join(file, "home") } });
    expect(tour.code).toBe(1);
    expect(tour.stderr).toContain(`cannot hold Arbor's files: ${file} is a file.`);
    expect(tour.stdout).not.toContain("Tour finished");
    // --no-session writes nothing, so it needs no home.
    const memory = await runArbor(box, ["-p", "hi", "--provider", "scripted", "--no-session"], {
      env: { ARBOR_HOME: "/proc/arbor-home" },
    });
    expect(memory.code).toBe(0);
    expect(existsSync(join(file, "home"))).toBe(false);
  });
});
