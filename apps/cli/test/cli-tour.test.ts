import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { TOUR_LABEL } from "@arbor/app-runtime/demo";
import { describe, expect, it } from "vitest";
import { runArbor, sandbox, sessionFiles } from "./cli-helpers.js";

describe("arbor tour", () => {
  it("runs the scripted session end to end, then prints the tree, the file and how to continue", async () => {
    const box = sandbox();
    const run = await runArbor(box, ["tour", "--pace", "0"]);
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    const out = run.stdout;
    // Streamed like a session: prompts, tool calls with results, compaction, the label, the branch summary.
    expect(out).toContain("› Create a tiny Node.js script");
    for (const tool of [
      "⚙ write greet.mjs",
      "⚙ bash node greet.mjs Arbor",
      "⚙ read greet.mjs",
      "⚙ edit greet.mjs",
      "⚙ grep warning",
    ]) {
      expect(out).toContain(tool);
    }
    expect(out).toContain("↳ Hello, Arbor! Nice to meet you.");
    expect(out).toMatch(/◆ Compacted: [\d,]+ → [\d,]+ tokens \([\d,]+ freed\)/);
    expect(out).toContain(`Labelled entry`);
    expect(out).toMatch(/◇ Branch summary \(entry \w+\):/);
    expect(out).toContain("The session tree");
    expect(out).toContain(`[${TOUR_LABEL}]`);
    expect(out).toContain("← leaf");
    expect(out).toMatch(/Tour finished in [\d.]+ s\./);
    expect(out).not.toContain("\u001b["); // NO_COLOR

    // The session is in the store, with every kind of entry the tour is about.
    const [file] = sessionFiles(box.home);
    expect(out).toContain(`is saved in ${file!.path}`);
    const types = new Set(file!.lines.map((line) => line.type));
    for (const type of ["message", "compaction", "branch_summary", "label", "model_change", "session_info"]) {
      expect(types.has(type)).toBe(true);
    }
    const id = file!.lines[0]!.id as string;
    const folder = /The files the model wrote are in (\S+)/.exec(out)![1]!;
    expect(out).toContain(`cd ${folder} && arbor -r ${id.slice(0, 8)} --provider anthropic`);
    // The real tools ran in the project folder.
    expect(readFileSync(join(folder, "greet.mjs"), "utf8")).toContain('process.argv.includes("--shout")');
    expect(existsSync(join(folder, "build.log"))).toBe(true);

    // The hint works: the session resumes by its short id (here with the scripted model, offline).
    const resumed = await runArbor(
      box,
      ["-r", id.slice(0, 8), "-p", "hello again", "--provider", "scripted"],
      {
        cwd: folder,
      },
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("Hello!");
    rmSync(folder, { recursive: true, force: true });
  }, 60_000);
});
