import { Session } from "@arbor/session-store";
import { expect, it } from "vitest";
import { JsonlSessionStore } from "../src/index.js";
import { temporaryHome } from "./helpers.js";

it("runs the README quick start", async () => {
  const store = new JsonlSessionStore({ home: temporaryHome() });
  const session = await Session.create(store, { cwd: process.cwd() });
  session.appendMessage({ role: "user", content: [{ type: "text", text: "Hello" }], timestamp: Date.now() });
  await session.flush();

  const { sessions } = await store.listSessions({ cwd: process.cwd(), limit: 20 });
  const reopened = await Session.open(store, sessions[0]!.id);
  expect(reopened.buildContext().messages.length).toBe(1);
  await store.close();
});
