import { InvalidArgumentError } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import { MemorySessionStore, type SessionEntry } from "../src/index.js";

const header = {
  type: "session" as const,
  version: 3,
  id: "m",
  timestamp: "2026-01-01T00:00:00.000Z",
  cwd: "/",
};

describe("MemorySessionStore", () => {
  it("rejects misuse with InvalidArgumentError and stores nothing", async () => {
    const store = new MemorySessionStore();
    await store.createSession(header);
    const good = {
      type: "custom",
      id: "aaaa0001",
      parentId: null,
      timestamp: "t",
      customType: "x",
    } as SessionEntry;
    const noId = {
      type: "custom",
      parentId: null,
      timestamp: "t",
      customType: "x",
    } as unknown as SessionEntry;
    await expect(store.appendEntries("m", [good, noId])).rejects.toBeInstanceOf(InvalidArgumentError);
    expect((await store.readSession("m")).entries).toEqual([]);
    await expect(store.listSessions({ limit: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
    await expect(store.listSessions({ cursor: "not-a-cursor" })).rejects.toThrow(
      /Invalid listSessions cursor/,
    );
    await expect(store.createSession({ ...header, id: "n", metadata: { bad: 1n } })).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
  });

  it("keeps the listing summary current as entries arrive, without parsing on listing", async () => {
    const store = new MemorySessionStore();
    await store.createSession(header);
    const info = (id: string, name: string): SessionEntry => ({
      type: "session_info",
      id,
      parentId: null,
      timestamp: `2026-01-0${id.at(-1)}T00:00:00.000Z`,
      name,
    });
    await store.appendEntries("m", [info("aaaa0002", " Named ")]);
    expect((await store.listSessions()).sessions[0]).toMatchObject({
      name: "Named",
      updatedAt: "2026-01-02T00:00:00.000Z",
    });
    await store.appendEntries("m", [info("aaaa0003", "")]);
    expect((await store.listSessions()).sessions[0]?.name).toBeUndefined();
  });
});
