/**
 * `arbor completion bash|zsh|fish`: the bash script, sourced in a real bash, completes subcommands, flags,
 * flag values and session ids (through an `arbor` on PATH); zsh and fish scripts carry the same commands.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI_ENTRY, runMainInProcess, sandbox, TSX_LOADER } from "./cli-helpers.js";

/** Completes the words of a command line (the last one being typed) with the script in bash. */
function complete(script: string, env: Record<string, string>, words: string[]): string[] {
  const program = `${script}
COMP_WORDS=(${words.map((word) => `'${word}'`).join(" ")}); COMP_CWORD=${words.length - 1}; COMPREPLY=()
_arbor; printf '%s\\n' "\${COMPREPLY[@]}"`;
  const output = execFileSync("bash", ["-c", program], { env, encoding: "utf8" });
  return output.split("\n").filter((line) => line !== "");
}

describe("arbor completion", () => {
  it("completes subcommands, flags, their values and session ids in bash", { timeout: 60_000 }, async () => {
    const box = sandbox();
    const bash = await runMainInProcess(box, ["completion", "bash"]);
    expect(bash.code).toBe(0);
    const prompt = await runMainInProcess(box, ["--provider", "scripted", "-p", "hello"]);
    expect(prompt.code).toBe(0);
    // An `arbor` on PATH for the session ids the script asks for.
    const bin = join(box.home, "bin");
    mkdirSync(bin);
    const shim = join(bin, "arbor");
    writeFileSync(
      shim,
      `#!/bin/sh\nexec "${process.execPath}" --conditions=@arbor/source --import "${TSX_LOADER}" "${CLI_ENTRY}" "$@"\n`,
    );
    chmodSync(shim, 0o755);
    const env = { ...box.env, PATH: `${bin}:${box.env.PATH}` };
    expect(complete(bash.stdout, env, ["arbor", "ses"])).toEqual(["sessions"]);
    expect(complete(bash.stdout, env, ["arbor", "sessions", "pr"])).toEqual(["prune"]);
    expect(complete(bash.stdout, env, ["arbor", "sessions", "prune", "--d"])).toEqual(["--dry-run"]);
    expect(complete(bash.stdout, env, ["arbor", "--mode", ""])).toEqual(["text", "json", "rpc"]);
    expect(complete(bash.stdout, env, ["arbor", "--thinking", "h"])).toEqual(["high"]);
    expect(complete(bash.stdout, env, ["arbor", "completion", ""])).toEqual(["bash", "zsh", "fish"]);
    const ids = complete(bash.stdout, { ...env }, ["arbor", "-r", ""]);
    expect(ids).toHaveLength(1);
    expect(ids[0]).toMatch(/^[0-9a-f]{8}/);
  });

  it("writes zsh (bash's through bashcompinit) and fish scripts, and refuses another shell", async () => {
    const box = sandbox();
    const zsh = await runMainInProcess(box, ["completion", "zsh"]);
    expect(zsh.stdout).toContain("bashcompinit");
    expect(zsh.stdout).toContain("complete -o default -F _arbor arbor");
    const fish = await runMainInProcess(box, ["completion", "fish"]);
    expect(fish.stdout).toContain("complete -c arbor -n '__fish_use_subcommand' -a 'sessions'");
    expect(fish.stdout).toContain("-l mode -x -a 'text json rpc'");
    expect(fish.stdout).toContain("complete -c arbor -n '__fish_seen_subcommand_from sessions' -a 'delete'");
    const other = await runMainInProcess(box, ["completion", "tcsh"]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("Allowed choices are bash, zsh, fish.");
  });
});
