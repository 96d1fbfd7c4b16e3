import { Session } from "@arbor/session-store";
import { expect, it, vi } from "vitest";
import { PostgresSessionStore } from "../src/index.js";
import { describeWithPostgres, temporarySchema } from "./database.js";

describeWithPostgres("README", (url) => {
  const schema = temporarySchema(url);
  it("runs the README example", async () => {
    const store = PostgresSessionStore.fromUrl(url, { pool: { max: 10 }, schema });
    await store.connect();
    const cwd = `/readme/${schema}`;
    const session = await Session.create(store, { cwd });
    session.appendMessage({
      role: "user",
      content: [{ type: "text", text: "Hello" }],
      timestamp: Date.now(),
    });
    await session.flush();

    const seen: number[] = [];
    const watch = await store.watch(session.id, (entries) => seen.push(entries.length));
    const { sessions } = await store.listSessions({ cwd, limit: 20 });
    const reopened = await Session.open(store, sessions[0]!.id);
    expect(reopened.buildContext().messages.length).toBe(1);
    reopened.appendMessage({
      role: "user",
      content: [{ type: "text", text: "Again" }],
      timestamp: Date.now(),
    });
    await reopened.flush();
    await vi.waitFor(() => expect(seen).toEqual([1]));
    await watch.close();
    await store.close();
  });
});
