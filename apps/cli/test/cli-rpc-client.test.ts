/**
 * The protocol's typed client over a real `arbor --mode rpc` child process: `createLineTransport` on the
 * child's stdout and stdin, `createProtocolClient` on top. The demo's commands (graph, entry, diff, label,
 * list, import) answer through `--mode rpc` as they do in the demo.
 */
import { readFileSync } from "node:fs";
import {
  createLineTransport,
  createProtocolClient,
  ProtocolCommandError,
  type SessionPage,
} from "@arbor/app-runtime";
import { describe, expect, it } from "vitest";
import { arborProcess, sandbox } from "./cli-helpers.js";
import { fixtureLines, fixturePath } from "./sessions-helpers.js";

describe("the typed protocol client over arbor --mode rpc", () => {
  it("sends the demo's commands to a child process and reads typed answers", async () => {
    const box = sandbox();
    const child = arborProcess(box, ["--mode", "rpc", "--provider", "scripted"]);
    const records: Record<string, unknown>[] = [];
    const settledAfter = (count: number) =>
      new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (records.slice(count).some((record) => record.type === "settled")) {
            clearInterval(check);
            resolve();
          }
        }, 10);
      });
    const transport = createLineTransport({
      input: child.stdout,
      output: child.stdin,
      onRecord: (record) => records.push(record),
    });
    const client = createProtocolClient(transport);
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    try {
      for (const text of ["first question", "second question"]) {
        const mark = records.length;
        await client.request({ type: "prompt", text });
        await settledAfter(mark);
      }
      const graph = await client.request({ type: "get_graph" });
      const users = graph.nodes.filter((node) => node.kind === "user");
      expect(users).toHaveLength(2);
      const entry = await client.request({ type: "get_entry", entryId: users[0]!.entryId });
      expect(entry.kind).toBe("user");
      expect(await client.request({ type: "label", entryId: users[0]!.entryId, label: "start" })).toEqual({
        entryId: users[0]!.entryId,
        label: "start",
      });
      const leaf = (await client.request({ type: "get_state" })).leafId!;
      const diff = await client.request({ type: "diff", a: leaf, b: users[1]!.entryId });
      expect(diff.commonAncestor?.id).toBe(users[1]!.entryId);
      expect(diff.a.entries).toBeGreaterThan(0);
      const refused = await client.send({ type: "get_summary", entryId: users[0]!.entryId });
      expect(refused).toMatchObject({ success: false, code: "invalid" });
      await expect(client.request({ type: "get_entry", entryId: "nope" })).rejects.toBeInstanceOf(
        ProtocolCommandError,
      );
      const text = readFileSync(fixturePath("branch"), "utf8");
      const imported = await client.request({ type: "import_session", text });
      expect(imported.sessionId).toBe(fixtureLines("branch")[0]!.id);
      expect(imported.copiedFrom).toBeUndefined();
      const again = await client.request({ type: "import_session", text });
      expect(again.copiedFrom).toBe(imported.sessionId);
      // Three sessions (the prompted one and the two imports), a page at a time.
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: SessionPage = await client.request({
          type: "list_sessions",
          all: true,
          limit: 2,
          ...(cursor === null ? {} : { cursor }),
        });
        seen.push(...page.sessions.map((session) => session.id));
        cursor = page.nextCursor;
      } while (cursor !== null);
      expect(seen).toHaveLength(3);
      expect(seen).toEqual(expect.arrayContaining([imported.sessionId, again.sessionId]));
      expect(records.filter((record) => record.type === "session").at(-1)).toMatchObject({
        sessionId: again.sessionId,
      });
    } finally {
      child.stdin.end();
      transport.close();
    }
    expect(await exited).toBe(0);
  }, 60_000);
});
