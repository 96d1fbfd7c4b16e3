/**
 * The real `arbor` binary, as a new user meets it: an unknown `sessions` subcommand is an error that lists
 * the subcommands, and a transient failure that was retried is left out of `sessions show --tree` unless
 * `--all` (against the OpenAI wire server, which fails the first request with a 503).
 */
import {
  chatFrames,
  chatTextChunks,
  type OpenAIWireServer,
  openAIErrorReply,
  startOpenAIWireServer,
} from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { runArbor, sandbox, sessionFiles } from "./cli-helpers.js";

let openai: OpenAIWireServer | undefined;

afterEach(async () => {
  await openai?.close();
  openai = undefined;
});

describe("arbor: first contact", () => {
  it("an unknown sessions subcommand is an error that lists the subcommands", async () => {
    const box = sandbox();
    const run = await runArbor(box, ["sessions", "frobnicate"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('unknown subcommand "frobnicate"');
    expect(run.stderr).toContain("list, show, export, import, diff, merge, copy");
    expect(run.stderr).not.toContain("too many arguments");
    // The default subcommand still runs without a word.
    const list = await runArbor(box, ["sessions"]);
    expect(list.code, list.stderr).toBe(0);
  }, 60_000);

  it("sessions show --tree hides a retried failure; --all shows it", async () => {
    openai = await startOpenAIWireServer([
      openAIErrorReply(503, "the upstream is overloaded", { headers: { "retry-after": "0" } }),
      { kind: "sse", frames: chatFrames(chatTextChunks("Answered on the second try.")) },
    ]);
    const box = sandbox();
    const run = await runArbor(box, ["-p", "hello", "--base-url", openai.url, "--model", "local-model"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("Answered on the second try.\n");
    const [file] = sessionFiles(box.home);
    const id = file!.lines[0]!.id as string;

    const hidden = await runArbor(box, ["sessions", "show", id, "--tree"]);
    expect(hidden.code, hidden.stderr).toBe(0);
    expect(hidden.stdout).toContain("Answered on the second try.");
    expect(hidden.stdout).not.toContain("leaf (moved to");
    expect(hidden.stdout.match(/assistant:/g)).toHaveLength(1);
    expect(hidden.stdout).toContain("(1 retried failure hidden: 2 entries; --all shows them)");

    const all = await runArbor(box, ["sessions", "show", id, "--tree", "--all"]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout).toContain("leaf (moved to");
    expect(all.stdout.match(/assistant:/g)).toHaveLength(2);
    expect(all.stdout).toContain("Answered on the second try.");
  }, 90_000);
});
