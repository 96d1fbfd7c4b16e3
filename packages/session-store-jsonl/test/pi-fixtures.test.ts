import { copyFileSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Session, type SessionEntry } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { header as makeHeader, openStore, temporaryHome } from "./helpers.js";

const fixtures = join(import.meta.dirname, "../../../fixtures/pi-sessions");

interface Fixture {
  file: string;
  /** Roles (or summary kinds) of the built context, in order. */
  context: string[];
}

const FIXTURES: Fixture[] = [
  { file: "01-plain-chat.anthropic.jsonl", context: ["user", "assistant"] },
  {
    file: "03-tool-calls-write-read-bash.openai-completions.jsonl",
    context: ["user", "assistant", "toolResult", "assistant", "toolResult", "toolResult", "assistant"],
  },
  {
    file: "05-compaction-manual-rpc.anthropic.jsonl",
    // firstKeptEntryId names the assistant message just before the compaction.
    context: ["compactionSummary", "assistant", "user", "assistant", "toolResult", "assistant"],
  },
  {
    file: "08-branch-with-branch-summary.anthropic.jsonl",
    context: [
      "user",
      "assistant",
      "toolResult",
      "assistant",
      "branchSummary",
      "user",
      "assistant",
      "toolResult",
      "assistant",
    ],
  },
];

/** Copies a fixture into `<home>/sessions/<encoded cwd>/<timestamp>_<id>.jsonl`, as pi names its files. */
function install(home: string, file: string): { id: string; path: string; lines: string[] } {
  const text = readFileSync(join(fixtures, file), "utf8");
  const lines = text.split("\n").filter((line) => line !== "");
  const head = JSON.parse(lines[0]!) as { id: string; timestamp: string };
  const directory = join(home, "sessions", "--home-user-project--");
  mkdirSync(directory, { recursive: true });
  const path = join(directory, `${head.timestamp.replace(/[:.]/g, "-")}_${head.id}.jsonl`);
  copyFileSync(join(fixtures, file), path);
  return { id: head.id, path, lines };
}

/**
 * Loads a file the way pi 0.73 does (`loadEntriesFromFile` + `_buildIndex`): every line JSON.parse'd,
 * bad lines skipped; every `type: "session"` line skipped by the tree; the leaf is the last entry.
 */
function loadLikePi(text: string): { header: unknown; entries: SessionEntry[]; leafId: string | null } {
  const parsed: Record<string, unknown>[] = [];
  for (const line of text.trim().split("\n")) {
    if (!line.trim()) continue;
    try {
      parsed.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // pi skips malformed lines
    }
  }
  const entries = parsed.filter((entry) => entry.type !== "session") as unknown as SessionEntry[];
  return {
    header: parsed.find((entry) => entry.type === "session"),
    entries,
    leafId: entries.at(-1)?.id ?? null,
  };
}

function roleOf(message: unknown): string {
  return (message as { role: string }).role;
}

describe("the pi agent's own session files", () => {
  for (const fixture of FIXTURES) {
    it(`opens, builds the context of, continues and reopens ${fixture.file}`, async () => {
      const home = temporaryHome();
      const { id, path, lines } = install(home, fixture.file);
      const original = readFileSync(path);

      // Raw read: every line an entry, tree fields right, bodies parsed lazily and exactly.
      const store = openStore({ home });
      const stored = await store.readSession(id);
      expect(stored.warnings).toEqual([]);
      expect(stored.header).toEqual(JSON.parse(lines[0]!));
      expect(stored.entries).toHaveLength(lines.length - 1);
      for (const [index, entry] of stored.entries.entries()) {
        const expected = JSON.parse(lines[index + 1]!) as SessionEntry;
        expect([entry.type, entry.id, entry.parentId]).toEqual([
          expected.type,
          expected.id,
          expected.parentId,
        ]);
        expect(entry.entry()).toEqual(expected);
      }

      // The tree and the context, through Session.
      const session = await Session.open(store, id);
      expect(session.warnings).toEqual([]);
      expect(session.getTree()).toHaveLength(1);
      expect(session.leafId).toBe(stored.entries.at(-1)!.id);
      const context = session.buildContext();
      expect(context.messages.map(roleOf)).toEqual(fixture.context);
      expect(context.repairs).toEqual([]);

      // Continue it, then reopen with a new store: the old bytes are untouched, the new entry follows.
      const added = session.appendMessage({
        role: "user",
        content: [{ type: "text", text: "Continued by Arbor." }],
        timestamp: Date.parse("2026-12-01T00:00:00.000Z"),
      });
      await session.flush();
      await store.close();
      const after = readFileSync(path);
      expect(after.subarray(0, original.length)).toEqual(original);
      const reopened = await Session.open(openStore({ home }), id);
      expect(reopened.leafId).toBe(added.id);
      expect(reopened.getEntry(added.id)?.parentId).toBe(stored.entries.at(-1)!.id);
      expect(reopened.buildContext().messages.map(roleOf)).toEqual([...fixture.context, "user"]);

      // pi can still read it: same header, same tree, and its leaf is the entry Arbor added.
      const pi = loadLikePi(after.toString("utf8"));
      expect(pi.header).toEqual(JSON.parse(lines[0]!));
      expect(pi.entries.map((entry) => entry.id)).toEqual([
        ...stored.entries.map((entry) => entry.id),
        added.id,
      ]);
      expect(pi.leafId).toBe(added.id);
    });
  }

  it("labels and branch points of the branch fixture are visible through Session", async () => {
    const home = temporaryHome();
    const { id } = install(home, "08-branch-with-branch-summary.anthropic.jsonl");
    const session = await Session.open(openStore({ home, readOnly: true }), id);
    expect(session.getLabel("5b4acce3")).toBe("branch-point");
    expect(session.children("bbd4e133").map((child) => child.id)).toEqual(["14c6c82a", "5b4acce3"]);
  });

  it("pi reads the files Arbor writes from scratch: header first, trailers skipped, same leaf", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    const session = await Session.create(store, { cwd: "/home/user/project", id: "fresh" });
    session.appendModelChange("anthropic", "claude");
    session.appendMessage({ role: "user", content: [{ type: "text", text: "hi" }], timestamp: 1 });
    await session.flush();
    session.appendSessionInfo("Fresh");
    await session.flush();
    const pi = loadLikePi(readFileSync(store.pathOf("fresh")!, "utf8"));
    expect(pi.header).toMatchObject({ ...makeHeader("fresh"), timestamp: expect.any(String) });
    expect(pi.entries.map((entry) => entry.type)).toEqual(["model_change", "message", "session_info"]);
    expect(pi.leafId).toBe(session.leafId);
  });
});
