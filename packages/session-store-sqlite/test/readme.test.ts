import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Session } from "@arbor/session-store";
import { expect, it, vi } from "vitest";
import { SqliteSessionStore } from "../src/index.js";

it("runs the README example", async () => {
  const directory = mkdtempSync(join(tmpdir(), "arbor-sqlite-readme-"));
  const store = SqliteSessionStore.fromUrl(`sqlite:${join(directory, "sessions.db")}`);
  const session = await Session.create(store, { cwd: process.cwd() });
  session.appendMessage({ role: "user", content: [{ type: "text", text: "Hello" }], timestamp: Date.now() });
  await session.flush();

  const seen: number[] = [];
  const watch = await store.watch(session.id, (entries) => seen.push(entries.length));
  const { sessions } = await store.listSessions({ cwd: process.cwd(), limit: 20 });
  const reopened = await Session.open(store, sessions[0]!.id);
  expect(reopened.buildContext().messages.length).toBe(1);
  reopened.appendMessage({ role: "user", content: [{ type: "text", text: "Again" }], timestamp: Date.now() });
  await reopened.flush();
  await vi.waitFor(() => expect(seen).toEqual([1]));
  await watch.close();
  await store.close();
  rmSync(directory, { recursive: true, force: true });
});
