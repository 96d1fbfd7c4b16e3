/**
 * Print mode runs the terminal's built-in slash commands (`arbor -c -p "/name x"` names the session), and a
 * session is found by its name (`arbor -r "x"`).
 */
import { describe, expect, it } from "vitest";
import { runMainInProcess, sandbox, sessionFiles } from "./cli-helpers.js";

describe("slash commands in print mode, sessions by name", () => {
  it("/name names the session; -r finds it by that name; an unknown /word is still a prompt", async () => {
    const box = sandbox();
    const first = await runMainInProcess(box, ["--provider", "scripted", "-p", "the first question"]);
    expect(first.code).toBe(0);
    const named = await runMainInProcess(box, ["--provider", "scripted", "-c", "-p", "/name Refactor plan"]);
    expect(named).toMatchObject({ code: 0, stdout: "" });
    expect(named.stderr).toContain('named the session "Refactor plan"');
    const files = sessionFiles(box.home);
    expect(files).toHaveLength(1);
    expect(files[0]!.lines.filter((line) => line.type === "session_info")).toEqual([
      expect.objectContaining({ name: "Refactor plan" }),
    ]);
    // No message went to the model for the command.
    expect(files[0]!.lines.filter((line) => line.type === "message")).toHaveLength(2);

    const resumed = await runMainInProcess(box, [
      "--provider",
      "scripted",
      "-r",
      "refactor plan",
      "-p",
      "again",
    ]);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(sessionFiles(box.home)).toHaveLength(1);
    expect(sessionFiles(box.home)[0]!.lines.filter((line) => line.type === "message")).toHaveLength(4);

    const missing = await runMainInProcess(box, ["--provider", "scripted", "-r", "no such name", "-p", "x"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no id starts so and no session has that name");

    const path = await runMainInProcess(box, [
      "--provider",
      "scripted",
      "--no-session",
      "-p",
      "/tmp is full, why?",
    ]);
    expect(path.stdout).toContain('You said: "/tmp is full, why?"');
  });
});
