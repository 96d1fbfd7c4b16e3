import { describe, expect, it } from "vitest";
import { type AppRuntimeOptions, createAppRuntime } from "../src/create-app-runtime.js";
import type { ProviderFactories, StoreFactories } from "../src/factories.js";
import { temporaryDirectory } from "./helpers.js";

const stores: StoreFactories = { jsonl: () => import("@arbor/session-store-jsonl") };
const providers: ProviderFactories = { scripted: () => import("../src/demo/index.js") };

describe("--continue", () => {
  it("skips sessions without a message (started and quit without a prompt)", async () => {
    const base: AppRuntimeOptions = {
      cwd: temporaryDirectory(),
      env: {},
      home: temporaryDirectory(),
      providers,
      stores,
      flags: { provider: "scripted" },
      tools: false,
    };
    const first = await createAppRuntime(base);
    await first.session.prompt("the real work");
    const worked = first.session.id;
    // Two newer sessions that hold no message.
    const empty = await first.newSession();
    const emptyId = empty.id;
    await first.dispose();
    const idle = await createAppRuntime(base);
    const idleId = idle.session.id;
    await idle.dispose();
    const resumed = await createAppRuntime({ ...base, session: { kind: "continue" } });
    try {
      expect([emptyId, idleId]).not.toContain(worked);
      expect(resumed.session.id).toBe(worked);
    } finally {
      await resumed.dispose();
    }
  });
});
