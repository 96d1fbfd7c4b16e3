import { script } from "@arbor/ai-providers/testing";
import { afterEach, describe, expect, test } from "vitest";
import { HarnessBusyError } from "../src/index.js";
import {
  createStoreFixture,
  createTestHarness,
  STORE_KINDS,
  type StoreFixture,
  storedEntries,
} from "./helpers.js";

const fixtures: StoreFixture[] = [];
afterEach(async () => {
  for (const fixture of fixtures.splice(0)) await fixture.cleanup();
});

describe.each(STORE_KINDS)("appendBashExecution (%s store)", (kind) => {
  test("records the command as a bashExecution message the next call sees; excluded ones are not sent", async () => {
    const fixture = await createStoreFixture(kind);
    fixtures.push(fixture);
    const { harness, provider } = createTestHarness(fixture, { steps: [script.text("Noted.")] });
    const session = await harness.newSession();
    const message = await session.appendBashExecution({ command: "ls", output: "a.txt", exitCode: 0 });
    expect(message).toMatchObject({
      role: "bashExecution",
      command: "ls",
      output: "a.txt",
      cancelled: false,
    });
    await session.appendBashExecution({ command: "cat secret", output: "hunter2", excludeFromContext: true });
    // Saved at once, in the store.
    const stored = (await storedEntries(fixture.store, session.id)).filter(
      (entry) => entry.type === "message",
    );
    expect(stored).toHaveLength(2);
    await session.prompt("what is there?");
    const sent = JSON.stringify(provider.calls[0]!.context.messages);
    expect(sent).toContain("The user ran `ls`");
    expect(sent).toContain("a.txt");
    expect(sent).not.toContain("hunter2");
    await harness.close();
  });

  test("is refused while an operation runs", async () => {
    const fixture = await createStoreFixture(kind);
    fixtures.push(fixture);
    const { harness } = createTestHarness(fixture, { steps: [script.delay(60_000, script.text("late"))] });
    const session = await harness.newSession();
    const run = session.prompt("slow");
    await expect(session.appendBashExecution({ command: "ls", output: "" })).rejects.toBeInstanceOf(
      HarnessBusyError,
    );
    session.abort();
    await run;
    await harness.close();
  });
});
