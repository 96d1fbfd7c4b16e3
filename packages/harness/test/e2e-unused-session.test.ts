import { script } from "@arbor/ai-providers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createStoreFixture,
  createTestHarness,
  STORE_KINDS,
  type StoreFixture,
  storedEntries,
} from "./helpers.js";

describe.each(STORE_KINDS)("a new session's first entries wait for its first use (%s store)", (kind) => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture(kind);
  });
  afterEach(async () => fixture.cleanup());

  it("a session started and closed without a prompt writes no entry", async () => {
    const { harness } = createTestHarness(fixture);
    const session = await harness.newSession();
    expect(session.session.leafId).toBeNull();
    await session.close();
    expect(await storedEntries(fixture.store, session.id)).toEqual([]);
    const text = await fixture.fileText(session.id);
    if (text !== undefined) expect(text.trim().split("\n")).toHaveLength(1); // the header only
  });

  it("the first prompt writes the model and thinking level first, then the turn; a reopen restores them", async () => {
    const { harness, provider } = createTestHarness(fixture, { steps: [script.text("Hello.")] });
    const session = await harness.newSession();
    await session.setThinkingLevel("high");
    await session.prompt("Hi");
    await session.close();
    const types = (await storedEntries(fixture.store, session.id)).map((entry) =>
      entry.type === "message" ? (entry.message as { role: string }).role : entry.type,
    );
    expect(types).toEqual([
      "model_change",
      "thinking_level_change",
      "thinking_level_change",
      "user",
      "assistant",
    ]);
    await fixture.reopen();
    const { harness: again } = createTestHarness(fixture);
    const reopened = await again.openSession(session.id);
    expect(reopened.state.thinkingLevel).toBe("high");
    expect(reopened.state.model.id).toBe(provider.model.id);
    await reopened.close();
  });

  it("a name given at creation is a use: the session is written with it", async () => {
    const { harness } = createTestHarness(fixture);
    const session = await harness.newSession({ name: "Refactor" });
    await session.close();
    const types = (await storedEntries(fixture.store, session.id)).map((entry) => entry.type);
    expect(types).toEqual(["model_change", "thinking_level_change", "session_info"]);
  });

  it("a session opened with a model continues with it: the recorded one is not looked up or warned about", async () => {
    const { harness } = createTestHarness(fixture, {
      steps: [script.text("Hello.")],
      model: { id: "old-model" },
    });
    const session = await harness.newSession();
    await session.prompt("Hi");
    await session.close();
    await fixture.reopen();
    // A harness whose models do not include the recorded one: a plain open falls back with a warning.
    const { harness: again, provider } = createTestHarness(fixture, { model: { id: "new-model" } });
    const plain = await again.openSession(session.id);
    expect(plain.warnings.join("\n")).toContain('"scripted/old-model" is not known here');
    await plain.close();
    const chosen = await again.openSession(session.id, { model: provider.model });
    expect(chosen.state.model.id).toBe("new-model");
    expect(chosen.warnings.join("\n")).not.toContain("not known here");
    await chosen.close();
  });
});
