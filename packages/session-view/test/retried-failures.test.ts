import { MemorySessionStore, Session } from "@arbor/session-store";
import { describe, expect, test } from "vitest";
import { isRetriedFailure, treeRows, withoutRetriedFailures } from "../src/index.js";
import { assistantMessage } from "./helpers.js";

/** user → failed reply (+ leaf back to the user) → the retried reply; and a failure left as the leaf. */
async function retriedSession() {
  const session = await Session.create(new MemorySessionStore(), { cwd: "/project" });
  const prompt = session.appendMessage({ role: "user", content: "Hello", timestamp: 1 });
  const failed = session.appendMessage(
    assistantMessage([], { stopReason: "error", errorMessage: "503 overloaded" }),
  );
  session.moveTo(prompt.id);
  const retried = session.appendMessage(assistantMessage("Hi!"));
  return { session, prompt, failed, retried };
}

describe("retried failures", () => {
  test("a failed reply that was retried is hidden with its leaf entry; the retry stays", async () => {
    const { session, failed, retried } = await retriedSession();
    const tree = session.getTree();
    const pruned = withoutRetriedFailures(tree);
    expect(pruned).toMatchObject({ hiddenFailures: 1, hiddenEntries: 2 });
    const ids = treeRows(session, pruned.roots).items.map((item) => item.key);
    expect(ids).toContain(retried.id);
    expect(ids).not.toContain(failed.id);
    expect(treeRows(session).items).toHaveLength(4);
    // The session's own tree is not changed.
    expect(session.getTree()[0]!.children).toHaveLength(2);
  });

  test("a failure nobody retried, a successful branch left by /tree and a lone failure stay", async () => {
    const session = await Session.create(new MemorySessionStore(), { cwd: "/project" });
    const prompt = session.appendMessage({ role: "user", content: "Hello", timestamp: 1 });
    const good = session.appendMessage(assistantMessage("One answer"));
    session.moveTo(prompt.id);
    session.appendMessage(assistantMessage([], { stopReason: "error", errorMessage: "gave up" }));
    const [root] = session.getTree();
    const [goodNode, failedNode] = root!.children;
    expect(goodNode!.id).toBe(good.id);
    // The good reply has a leaf child (the move) but did not fail; the failure has no leaf entry.
    expect(isRetriedFailure(goodNode!, root!.children)).toBe(false);
    expect(isRetriedFailure(failedNode!, root!.children)).toBe(false);
    expect(withoutRetriedFailures(session.getTree()).hiddenEntries).toBe(0);
  });
});
