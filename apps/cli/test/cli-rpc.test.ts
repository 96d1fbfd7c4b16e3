import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RpcClient, sandbox, sessionFiles, writeJson } from "./cli-helpers.js";

/** Waits for the prompt started by the command with this id to settle. */
function settled(client: RpcClient, after: number): Promise<Record<string, unknown>> {
  return client.waitFor((line) => line.type === "settled" && client.lines.indexOf(line) > after);
}

describe("arbor --mode rpc", () => {
  it("answers every command exactly once, with events interleaved, and ends after the work in flight", async () => {
    const box = sandbox();
    const client = RpcClient.start(box, ["--provider", "scripted"]);
    const session = await client.waitFor((line) => line.type === "session");
    expect(session).toMatchObject({ type: "session", version: 2, model: "scripted/demo" });

    const state = await client.send({ id: "s1", type: "get_state" });
    expect(state).toMatchObject({ type: "response", id: "s1", command: "get_state", success: true });
    expect(state.data).toMatchObject({
      sessionId: session.sessionId,
      model: "scripted/demo",
      isBusy: false,
      messageCount: 0,
    });

    const mark = client.lines.length;
    const prompt = await client.send({ id: "p1", type: "prompt", text: "run echo rpc-tool-ran" });
    expect(prompt).toMatchObject({
      success: true,
      command: "prompt",
      data: { sessionId: session.sessionId },
    });
    await settled(client, mark);
    const run = client.lines.slice(mark);
    expect(run.some((line) => line.type === "tool_start" && line.name === "bash")).toBe(true);
    expect(run.some((line) => line.type === "text_delta")).toBe(true);
    const toolResult = run.find(
      (line) => line.type === "message_end" && (line.message as { role: string }).role === "toolResult",
    );
    expect(JSON.stringify(toolResult)).toContain("rpc-tool-ran");

    const messages = await client.send({ id: "m1", type: "get_messages" });
    const roles = (messages.data as { messages: { role: string }[] }).messages.map((message) => message.role);
    expect(roles).toEqual(["user", "assistant", "toolResult", "assistant"]);

    // A malformed line and an unknown command each get one failed response.
    client.write("{not json");
    const broken = await client.waitFor((line) => line.type === "response" && line.command === null);
    expect(broken).toMatchObject({ success: false });
    expect(String(broken.error)).toContain("Invalid JSON");
    const unknown = await client.send({ id: "u1", type: "dance" });
    expect(unknown).toMatchObject({ success: false, command: "dance" });
    expect(String(unknown.error)).toContain("Unknown command");

    const thinking = await client.send({ id: "t1", type: "set_thinking_level", level: "high" });
    expect(thinking).toMatchObject({ success: true, data: { thinkingLevel: "high" } });
    const badModel = await client.send({ id: "x1", type: "set_model", model: "scripted/nope" });
    expect(badModel.success).toBe(false);
    const model = await client.send({ id: "x2", type: "set_model", model: "scripted/demo" });
    expect(model).toMatchObject({ success: true, data: { model: "scripted/demo" } });

    // A prompt sent last still finishes: end of input waits for it.
    await client.send({ id: "p2", type: "prompt", text: "wait 200 finished after EOF" });
    expect(await client.end()).toBe(0);
    const responses = client.lines.filter((line) => line.type === "response");
    const ids = responses.map((line) => line.id);
    expect(new Set(ids.filter((id) => id !== undefined)).size).toBe(
      ids.filter((id) => id !== undefined).length,
    );
    expect(responses).toHaveLength(9);
    expect(
      client.lines.some((line) => line.type === "text_delta" && String(line.delta).includes("finished")),
    ).toBe(true);
    const [file] = sessionFiles(box.home);
    expect(file!.text).toContain("finished after EOF");
  });

  it("steers and aborts a run in flight", async () => {
    const box = sandbox();
    const client = RpcClient.start(box, ["--provider", "scripted"]);
    await client.waitFor((line) => line.type === "session");
    const mark = client.lines.length;
    await client.send({ id: "p1", type: "prompt", text: "wait 300 first answer" });
    const busy = await client.send({ id: "p2", type: "prompt", text: "too early" });
    expect(busy.success).toBe(false);
    expect(String(busy.error)).toContain("busy");
    expect(await client.send({ id: "s1", type: "steer", text: "hello again" })).toMatchObject({
      success: true,
    });
    await settled(client, mark);
    const users = client.lines
      .slice(mark)
      .filter((line) => line.type === "message_end" && (line.message as { role: string }).role === "user")
      .map((line) => JSON.stringify(line.message));
    expect(users).toHaveLength(2);
    expect(users[1]).toContain("hello again");

    const before = client.lines.length;
    await client.send({ id: "p3", type: "prompt", text: "wait 20000 never" });
    const aborted = await client.send({ id: "a1", type: "abort" });
    expect(aborted).toMatchObject({ success: true, data: { aborted: true } });
    const last = client.lines
      .slice(before)
      .filter(
        (line) => line.type === "message_end" && (line.message as { role: string }).role === "assistant",
      )
      .at(-1);
    expect((last!.message as { stopReason: string }).stopReason).toBe("aborted");
    // What a user (the demo's Stop button) reads: what happened, not the transport's name.
    const reason = (last!.message as { errorMessage?: string }).errorMessage;
    expect(reason).toMatch(/stopped \(abort requested\)$/);
    expect(reason).not.toContain("rpc");
    expect(await client.end()).toBe(0);
  });

  it("compacts, navigates with a branch summary and forks", async () => {
    const box = sandbox();
    // Keep almost nothing verbatim, so that a short conversation has something to compact.
    writeJson(join(box.cwd, ".arbor", "settings.json"), { compaction: { keepRecentTokens: 10 } });
    const client = RpcClient.start(box, ["--provider", "scripted"]);
    const session = await client.waitFor((line) => line.type === "session");
    for (const [index, text] of ["write notes.md: first note", "read notes.md", "say something"].entries()) {
      const mark = client.lines.length;
      await client.send({ id: `p${index}`, type: "prompt", text });
      await settled(client, mark);
    }
    // The first save point writes the first prompt's entries, the user message first.
    const firstSaved = client.lines.find((line) => line.type === "save_point")!.entryIds as string[];

    const compact = await client.send({ id: "c1", type: "compact", instructions: "keep the file names" });
    expect(compact).toMatchObject({ success: true, command: "compact", data: { kind: "compacted" } });
    const outcome = compact.data as {
      tokensBefore: number;
      tokensAfter: number;
      summary: string;
      entryId: string;
    };
    expect(outcome.tokensAfter).toBeLessThan(outcome.tokensBefore);
    // So short a history leaves a summary no room (it must be smaller than what it replaces): the digest.
    expect(outcome.summary).toMatch(/## Goal|Condensed without a model/);
    expect(client.lines.some((line) => line.type === "compaction_end" && line.outcome === "compacted")).toBe(
      true,
    );

    // Back to the first user message: the branch left behind is summarized.
    const target = firstSaved[0]!;
    const moved = await client.send({ id: "n1", type: "navigate", entryId: target, summarize: true });
    expect(moved).toMatchObject({ success: true, data: { kind: "moved" } });
    expect(String((moved.data as { summary: string }).summary)).toContain("## Goal");
    expect(client.lines.some((line) => line.type === "branch_summary")).toBe(true);

    const fork = await client.send({ id: "f1", type: "fork" });
    expect(fork).toMatchObject({ success: true, data: { parentSession: session.sessionId } });
    const forkId = (fork.data as { sessionId: string }).sessionId;
    expect(forkId).not.toBe(session.sessionId);
    const state = await client.send({ id: "s1", type: "get_state" });
    expect((state.data as { sessionId: string }).sessionId).toBe(forkId);
    // Events now come from the fork.
    const mark = client.lines.length;
    await client.send({ id: "p9", type: "prompt", text: "in the fork" });
    await settled(client, mark);
    expect(await client.end()).toBe(0);

    const files = sessionFiles(box.home);
    expect(files).toHaveLength(2);
    const original = files.find((file) => file.lines[0]!.id === session.sessionId)!;
    const forked = files.find((file) => file.lines[0]!.id === forkId)!;
    expect(original.lines.some((line) => line.type === "compaction")).toBe(true);
    expect(original.lines.some((line) => line.type === "branch_summary")).toBe(true);
    expect(forked.lines[0]).toMatchObject({ parentSession: session.sessionId });
    expect(forked.text).toContain("in the fork");
    expect(original.text).not.toContain("in the fork");
  });
});
