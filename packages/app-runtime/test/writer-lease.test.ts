import { hostname } from "node:os";
import type { Provider } from "@arbor/ai-providers";
import { describe, expect, it } from "vitest";
import { type AppRuntimeOptions, createAppRuntime } from "../src/create-app-runtime.js";
import type { ProviderFactories, StoreFactories } from "../src/factories.js";
import { temporaryDirectory } from "./helpers.js";

const stores: StoreFactories = { jsonl: () => import("@arbor/session-store-jsonl") };

/** The offline demo model, counting the model requests of every runtime of the test. */
function countingProviders(): { providers: ProviderFactories; requests: () => number } {
  let requests = 0;
  const providers: ProviderFactories = {
    scripted: async () => {
      const demo = await import("../src/demo/index.js");
      return {
        createDemoProvider: (): Provider => {
          const provider = demo.createDemoProvider();
          return Object.assign(Object.create(provider) as Provider, {
            stream: (...args: Parameters<Provider["stream"]>) => {
              requests += 1;
              return provider.stream(...args);
            },
          });
        },
      };
    },
  };
  return { providers, requests: () => requests };
}

/** What a refusal says: one line naming the holder (pid, host, since when). */
const REFUSED = new RegExp(
  `^Session "[^"]+" is open for writing by pid ${process.pid}@${hostname()} since \\d{4}-\\d\\d-\\d\\dT[^ ]+\\. ` +
    "Close it there, or open this one read-only\\.$",
);

async function setUp() {
  const counting = countingProviders();
  const base: AppRuntimeOptions = {
    cwd: temporaryDirectory(),
    env: {},
    home: temporaryDirectory(),
    providers: counting.providers,
    stores,
    flags: { provider: "scripted" },
    tools: false,
  };
  const first = await createAppRuntime(base);
  await first.session.prompt("the work so far");
  const sessionId = first.session.id;
  await first.dispose();
  return { base, sessionId, requests: counting.requests };
}

describe("the writer lease of a runtime's session", () => {
  it("refuses a second runtime resuming a session another one writes, at once, before any model request", async () => {
    const { base, sessionId, requests } = await setUp();
    const writer = await createAppRuntime({ ...base, session: { kind: "open", reference: sessionId } });
    try {
      const before = requests();
      const refused = await createAppRuntime({
        ...base,
        session: { kind: "open", reference: sessionId },
      }).then(
        (runtime) => runtime.dispose().then(() => undefined),
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ code: "session_locked" });
      expect((refused as Error).message).toMatch(REFUSED);
      expect(requests()).toBe(before);
      // --continue picks the same session, and is refused the same way.
      await expect(createAppRuntime({ ...base, session: { kind: "continue" } })).rejects.toMatchObject({
        code: "session_locked",
      });
    } finally {
      await writer.dispose();
    }
    // Disposed: the lease is released, and the session can be resumed again.
    const again = await createAppRuntime({ ...base, session: { kind: "open", reference: sessionId } });
    await again.dispose();
  });

  it("refuses openSession (a demo page, /resume) leaving the current session as it was; a switch releases the lease", async () => {
    const { base, sessionId } = await setUp();
    const writer = await createAppRuntime({ ...base, session: { kind: "open", reference: sessionId } });
    const other = await createAppRuntime(base);
    try {
      const current = other.session;
      await expect(other.openSession(sessionId)).rejects.toThrow(REFUSED);
      expect(other.session).toBe(current);
      await writer.newSession();
      expect((await other.openSession(sessionId)).id).toBe(sessionId);
    } finally {
      await writer.dispose();
      await other.dispose();
    }
  });

  it("leases a new session once it is stored (its first save point), so a later --continue is refused", async () => {
    const counting = countingProviders();
    const base: AppRuntimeOptions = {
      cwd: temporaryDirectory(),
      env: {},
      home: temporaryDirectory(),
      providers: counting.providers,
      stores,
      flags: { provider: "scripted" },
      tools: false,
    };
    const writer = await createAppRuntime(base);
    try {
      await writer.session.prompt("a new session's first prompt");
      await expect(createAppRuntime({ ...base, session: { kind: "continue" } })).rejects.toThrow(REFUSED);
    } finally {
      await writer.dispose();
    }
  });
});
