import { existsSync } from "node:fs";
import { createRecoveryKeeper } from "@arbor/app-runtime";
import { Session } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { describe, expect, it } from "vitest";
import { runSessions, temporaryDirectory } from "./sessions-helpers.js";

/** A stored session with one message, and a recovery file holding the two entries that follow it. */
async function sessionWithRecoveryFile(home: string): Promise<{ id: string; file: string; ids: string[] }> {
  const store = new JsonlSessionStore({ home });
  try {
    const session = await Session.create(store, { cwd: "/project" });
    session.appendMessage({ role: "user", content: "stored", timestamp: 1 });
    await session.flush();
    const expected = session.leafId;
    const entries = [
      session.appendMessage({ role: "user", content: "ran but not saved", timestamp: 2 }),
      session.appendCustom("note", { kept: true }),
    ];
    const kept = await createRecoveryKeeper({ home, store: `the JSONL store in ${home}` }).keep(
      {
        sessionId: session.id,
        header: session.header,
        sessionStored: true,
        expectedLastEntryId: expected,
        entries,
        reason: "ENOSPC: no space left on device, write",
        conflict: false,
        failedAt: "2026-03-01T10:00:00.000Z",
      },
      undefined,
    );
    return {
      id: session.id,
      file: kept.location,
      ids: [expected as string, ...entries.map((entry) => entry.id)],
    };
  } finally {
    await store.close();
  }
}

async function storedIds(home: string, id: string): Promise<string[]> {
  const store = new JsonlSessionStore({ home, readOnly: true });
  try {
    return (await store.readSession(id)).entries.map((entry) => entry.id);
  } finally {
    await store.close();
  }
}

describe("arbor sessions recover", () => {
  it("lists the recovery files, applies a session's by id prefix and removes them", async () => {
    const home = temporaryDirectory();
    expect((await runSessions(["recover"], { home })).stdout).toMatch(
      /^No recovery files \(.*recovery\)\.\n$/,
    );
    const { id, file, ids } = await sessionWithRecoveryFile(home);
    const listed = await runSessions(["recover"], { home });
    expect(listed.stdout).toContain(`${id}  2 entries not saved 2026-03-01T10:00:00.000Z  ${file}`);
    const applied = await runSessions(["recover", id.slice(0, 8)], { home });
    expect(applied.exitCode).toBeUndefined();
    expect(applied.stdout).toBe(
      `Applied 2 entries to session ${id} from ${file} (not saved on 2026-03-01T10:00:00.000Z).\n`,
    );
    expect(await storedIds(home, id)).toEqual(ids);
    expect(existsSync(file)).toBe(false);
  });

  it("--discard removes a file without applying it; an unknown reference is an error", async () => {
    const home = temporaryDirectory();
    const { id, file, ids } = await sessionWithRecoveryFile(home);
    const discarded = await runSessions(["recover", file, "--discard"], { home });
    expect(discarded.stdout).toBe(
      `Discarded ${file}: 2 entries of session ${id} not saved on 2026-03-01T10:00:00.000Z.\n`,
    );
    expect(await storedIds(home, id)).toEqual(ids.slice(0, 1));
    const unknown = await runSessions(["recover", "nope"], { home });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toMatch(/^arbor sessions recover: No recovery file for "nope" in .*recovery/);
  });
});
