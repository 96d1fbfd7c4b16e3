import { closeSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFirstMessage } from "../src/first-message.js";
import { header, openStore, temporaryHome, userEntry } from "./helpers.js";

describe("SessionSummary.firstMessage of the JSONL store", () => {
  it("is the first user message's text, for sessions with messages; none for an empty session", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("with-prompt"));
    await store.appendEntries("with-prompt", [
      {
        type: "model_change",
        id: "m1",
        parentId: null,
        timestamp: "2026-01-02T03:04:06.000Z",
        provider: "scripted",
        modelId: "demo",
      },
      userEntry("u1", "m1", "plan the parser\n  rewrite"),
      userEntry("u2", "u1", "a later prompt"),
    ]);
    await store.createSession(header("empty", "/home/user/project", "2026-01-02T03:04:07.000Z"));
    const { sessions } = await store.listSessions();
    const byId = new Map(sessions.map((summary) => [summary.id, summary]));
    expect(byId.get("with-prompt")?.firstMessage).toBe("plan the parser\n  rewrite");
    expect(byId.get("empty")?.firstMessage).toBeUndefined();
    // A second store reads it from the listing index.
    const again = await openStore({ home }).listSessions();
    expect(again.sessions.find((summary) => summary.id === "with-prompt")?.firstMessage).toBe(
      "plan the parser\n  rewrite",
    );
  });

  it("passes over lines that are not a user message, and a line cut by the end of the span", () => {
    const path = join(temporaryHome(), "file.jsonl");
    const head = `${JSON.stringify(header("s"))}\n`;
    const lines = [
      JSON.stringify({ type: "message", message: { role: "assistant", content: "the user said" } }),
      '{not json but says "user" and "message"',
      JSON.stringify({
        type: "message",
        message: { role: "user", content: [{ type: "text", text: "Hello" }] },
      }),
    ];
    writeFileSync(path, `${head}${lines.join("\n")}\n`);
    const fd = openSync(path, "r");
    try {
      expect(readFirstMessage(fd, Buffer.byteLength(`${head}${lines.join("\n")}\n`), head.length)).toBe(
        "Hello",
      );
      // The span ends inside the user line: nothing is found (the line may be torn).
      expect(readFirstMessage(fd, head.length + lines[0]!.length + lines[1]!.length + 20, head.length)).toBe(
        undefined,
      );
    } finally {
      closeSync(fd);
    }
  });
});
