import { createScriptedProvider, script } from "@arbor/ai-providers/testing";
import { createHarness } from "@arbor/harness";
import { MemorySessionStore, SessionConflictError } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { afterEach, describe, expect, it } from "vitest";
import { createAppRuntime } from "../src/create-app-runtime.js";
import type { ProviderFactories, StoreFactories } from "../src/factories.js";
import { type AppRuntime, UnsavedWork } from "../src/index.js";
import { temporaryDirectory, writeJson } from "./helpers.js";

/** A memory store whose appends fail once `failing` is set, as when another process appended first. */
class FlakyStore extends MemorySessionStore {
  failing = false;
  override async appendEntries(...args: Parameters<MemorySessionStore["appendEntries"]>) {
    if (this.failing)
      throw new SessionConflictError(args[0], args[2]?.expectedLastEntryId ?? null, "e-other");
    return super.appendEntries(...args);
  }
}

async function runWith(failing: boolean): Promise<{ unsaved: string | undefined; warnings: string[] }> {
  const provider = createScriptedProvider(() => script.text("an answer"));
  const store = new FlakyStore();
  const warnings: string[] = [];
  const work = new UnsavedWork((message) => warnings.push(message));
  const harness = createHarness({
    streamFn: provider.stream,
    model: provider.model,
    store,
    cwd: "/tmp",
    onError: work.reportError,
  });
  const session = await harness.newSession();
  await session.prompt("first");
  store.failing = failing;
  const watch = work.watch(session);
  await session.prompt("second");
  const unsaved = watch();
  await harness.close().catch(() => undefined);
  return { unsaved, warnings };
}

describe("UnsavedWork.watch", () => {
  it("says nothing when every save point reached the store", async () => {
    expect(await runWith(false)).toEqual({ unsaved: undefined, warnings: [] });
  });

  it("names the store's refusal when a turn could not be saved, and it is not also warned", async () => {
    const { unsaved, warnings } = await runWith(true);
    expect(unsaved).toMatch(/^the session was not saved: Session ".*" changed underneath/);
    // Neither when the save point failed nor when closing the session refused it again.
    expect(warnings).toEqual([]);
  });
});

/** The JSONL store whose writes fail while `FullDisk.failing` is set: every runtime gets the same message. */
class FullDisk extends JsonlSessionStore {
  static failing = false;
  override async appendEntries(...args: Parameters<JsonlSessionStore["appendEntries"]>) {
    if (FullDisk.failing) {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    }
    return super.appendEntries(...args);
  }
}

const stores = { jsonl: async () => ({ JsonlSessionStore: FullDisk }) } as unknown as StoreFactories;
const providers: ProviderFactories = { scripted: () => import("../src/demo/index.js") };
const REFUSAL = "ENOSPC: no space left on device, write";

/** A runtime with one stored turn, and the warnings it gives. */
async function runtimeWithWarnings(): Promise<{ runtime: AppRuntime; warnings: string[] }> {
  const home = temporaryDirectory();
  writeJson(`${home}/settings.json`, { saveRetryMs: 0 });
  const warnings: string[] = [];
  const runtime = await createAppRuntime({
    cwd: temporaryDirectory(),
    env: {},
    home,
    providers,
    stores,
    flags: { provider: "scripted" },
    onWarning: (message) => warnings.push(message),
  });
  await runtime.session.prompt("hello");
  return { runtime, warnings };
}

describe("two runtimes in one process", () => {
  afterEach(() => {
    FullDisk.failing = false;
  });

  for (const watched of ["first", "second"] as const) {
    it(`keep their own record: a refusal the ${watched} runtime watches is still warned by the other`, async () => {
      const runtimes = [await runtimeWithWarnings(), await runtimeWithWarnings()];
      const [watching, other] = watched === "first" ? runtimes : [runtimes[1]!, runtimes[0]!];
      FullDisk.failing = true;
      const watch = watching!.runtime.watchUnsavedWork();
      await watching!.runtime.session.prompt("again");
      const unsaved = watch();
      await other!.runtime.session.prompt("again");
      FullDisk.failing = false;

      expect(unsaved).toMatch(/^the session was not saved: ENOSPC: no space left on device, write\./);
      expect(watch.alreadyWarned(unsaved!)).toBe(false);
      expect(watching!.warnings.filter((warning) => warning.includes("ENOSPC"))).toEqual([]);
      expect(other!.warnings.filter((warning) => warning.includes("ENOSPC"))).toEqual([REFUSAL]);
      // The other runtime's front end would say "see above"; the watching one's would not.
      const otherWatch = other!.runtime.watchUnsavedWork();
      expect(otherWatch.alreadyWarned(unsaved!)).toBe(true);
      expect(otherWatch()).toBeUndefined();
      for (const { runtime } of runtimes) await runtime.dispose();
    });
  }
});
