import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { createHarness } from "@arbor/harness";
import { MemorySessionStore, SessionConflictError } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { watchUnsavedWork } from "../src/index.js";

/** A memory store whose appends fail once `failing` is set, as when another process appended first. */
class FlakyStore extends MemorySessionStore {
  failing = false;
  override async appendEntries(...args: Parameters<MemorySessionStore["appendEntries"]>) {
    if (this.failing)
      throw new SessionConflictError(args[0], args[2]?.expectedLastEntryId ?? null, "e-other");
    return super.appendEntries(...args);
  }
}

async function runWith(failing: boolean): Promise<string | undefined> {
  const provider = createScriptedProvider(() => script.text("an answer"));
  const store = new FlakyStore();
  const harness = createHarness({
    streamFn: provider.stream,
    model: provider.model,
    store,
    cwd: "/tmp",
    onError: () => undefined,
  });
  const session = await harness.newSession();
  await session.prompt("first");
  store.failing = failing;
  const unsaved = watchUnsavedWork(session);
  await session.prompt("second");
  const result = unsaved();
  await harness.close().catch(() => undefined);
  return result;
}

describe("watchUnsavedWork", () => {
  it("says nothing when every save point reached the store", async () => {
    expect(await runWith(false)).toBeUndefined();
  });

  it("names the store's refusal when a turn could not be saved", async () => {
    expect(await runWith(true)).toMatch(/^the session was not saved: Session ".*" changed underneath/);
  });
});
