import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { jsonLines, runArbor, runMainInProcess, type Sandbox, sandbox, sessionFiles } from "./cli-helpers.js";

const PI_FIXTURE = fileURLToPath(
  new URL(
    "../../../fixtures/pi-sessions/03-tool-calls-write-read-bash.openai-completions.jsonl",
    import.meta.url,
  ),
);

/** Runs one scripted prompt in json mode (in-process: quick) and returns the session id. */
async function prompt(box: Sandbox, text: string, flags: string[] = []): Promise<string> {
  const run = await runMainInProcess(box, ["--mode", "json", "-p", text, "--provider", "scripted", ...flags]);
  expect(run.code, run.stderr).toBe(0);
  return jsonLines(run.stdout)[0]!.sessionId as string;
}

function userTexts(lines: readonly Record<string, unknown>[]): string[] {
  return lines.flatMap((line) => {
    const message = line.message as { role?: string; content?: { text?: string }[] | string } | undefined;
    if (line.type !== "message" || message?.role !== "user") return [];
    return [typeof message.content === "string" ? message.content : (message.content?.[0]?.text ?? "")];
  });
}

describe("arbor: resuming, continuing and forking sessions", () => {
  it("-c continues the newest session of the directory, -r a named one, --session creates one by id", async () => {
    const box = sandbox();
    const first = await prompt(box, "one");
    const second = await prompt(box, "two");
    expect(second).not.toBe(first);
    expect(await prompt(box, "three", ["-c"])).toBe(second);
    expect(await prompt(box, "four", ["-r", first.slice(0, 8)])).toBe(first);
    expect(await prompt(box, "five", ["--session", "my-named-session"])).toBe("my-named-session");
    // (the first time, a note on stderr says the session is being started)
    expect(await prompt(box, "six", ["--session", "my-named-session"])).toBe("my-named-session");

    const files = sessionFiles(box.home);
    const byId = new Map(files.map((file) => [file.lines[0]!.id as string, file]));
    expect(userTexts(byId.get(first)!.lines)).toEqual(["one", "four"]);
    expect(userTexts(byId.get(second)!.lines)).toEqual(["two", "three"]);
    expect(userTexts(byId.get("my-named-session")!.lines)).toEqual(["five", "six"]);

    const missing = await runMainInProcess(box, [
      "-p",
      "x",
      "--provider",
      "scripted",
      "-r",
      "no-such-session",
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('No session "no-such-session"');
    const conflict = await runMainInProcess(box, ["-p", "x", "--provider", "scripted", "-c", "--no-session"]);
    expect(conflict.code).toBe(1);
    expect(conflict.stderr).toContain("--no-session");
  });

  it("--fork starts a new session with the other's branch; sessions diff shows where they diverge", async () => {
    const box = sandbox();
    const source = await prompt(box, "shared start");
    const fork = await prompt(box, "only in the fork", ["--fork", source]);
    expect(fork).not.toBe(source);
    await prompt(box, "only in the source", ["-r", source]);
    const files = sessionFiles(box.home);
    const forked = files.find((file) => file.lines[0]!.id === fork)!;
    expect(forked.lines[0]).toMatchObject({ parentSession: source });
    expect(userTexts(forked.lines)).toEqual(["shared start", "only in the fork"]);

    const diff = await runArbor(box, ["sessions", "diff", source, fork, "--json"]);
    expect(diff.stderr).toBe("");
    expect(diff.code).toBe(0);
    const result = JSON.parse(diff.stdout) as Record<string, unknown>;
    expect(JSON.stringify(result)).toContain("only in the source");
    expect(JSON.stringify(result)).toContain("only in the fork");
  });

  // In process, like the other steps: each spawned `arbor` costs seconds of start-up under load.
  it("exports a session, and imports and continues a pi agent session", async () => {
    const box = sandbox();
    const id = await prompt(box, "export me");
    const exported = await runMainInProcess(box, [
      "sessions",
      "export",
      id,
      "--format",
      "md",
      "-o",
      "out.md",
    ]);
    expect(exported.code).toBe(0);
    expect(readFileSync(join(box.cwd, "out.md"), "utf8")).toContain("export me");

    const imported = await runMainInProcess(box, ["sessions", "import", PI_FIXTURE, "--cwd", box.cwd]);
    expect(imported.stderr).toBe("");
    expect(imported.code).toBe(0);
    const piId = /as session (\S+)\./.exec(imported.stdout)![1]!;
    const resumed = await runMainInProcess(box, [
      "-r",
      piId,
      "-p",
      "hello pi session",
      "--provider",
      "scripted",
    ]);
    // The model was chosen on purpose (--provider): the one the session recorded is no mistake to warn about.
    expect(resumed.stderr).not.toContain("not known here");
    expect(resumed.stderr).not.toContain("mock-gpt");
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toContain("Hello!");
    const file = sessionFiles(box.home).find((candidate) => candidate.lines[0]!.id === piId)!;
    expect(userTexts(file.lines).at(-1)).toBe("hello pi session");
    // The explicit --provider switched the resumed session's model, recorded as an entry.
    expect(file.lines.some((line) => line.type === "model_change" && line.provider === "scripted")).toBe(
      true,
    );

    // A file outside the store is not continued in place: the message says how to use it.
    const outside = await runMainInProcess(box, ["-r", PI_FIXTURE, "-p", "x", "--provider", "scripted"]);
    expect(outside.code).toBe(1);
    expect(outside.stderr).toContain("arbor sessions import");
    const forkOutside = await runMainInProcess(box, [
      "--fork",
      PI_FIXTURE,
      "--mode",
      "json",
      "-p",
      "forked pi",
      "--provider",
      "scripted",
    ]);
    expect(forkOutside.code).toBe(0);
    const forkId = jsonLines(forkOutside.stdout)[0]!.sessionId as string;
    const forked = sessionFiles(box.home).find((candidate) => candidate.lines[0]!.id === forkId)!;
    expect(forked.text).toContain("forked pi");
    expect(forked.lines.filter((line) => line.type === "message").length).toBeGreaterThan(2);
  });
});
