/**
 * `abort()` ends a run while a hook handler hangs: once the operation is aborted the harness no longer waits
 * for handlers that ignore the signal (before the first model call, between turns, before a tool runs).
 */
import { script } from "@arbor/ai-providers/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HarnessHookName } from "../src/index.js";
import { createStoreFixture, createTestHarness, echoTool, type StoreFixture } from "./helpers.js";

const never = () => new Promise<undefined>(() => {});

describe("a hook that never settles", () => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture("memory");
  });
  afterEach(async () => fixture.cleanup());

  it.each<HarnessHookName>(["before_agent_start", "context", "tool_call"])(
    "%s: abort() ends the run at once",
    async (hook) => {
      const entered: string[] = [];
      const { harness } = createTestHarness(fixture, {
        steps: [script.toolCall("echo", { text: "hi" }), script.text("done")],
        harness: {
          tools: [echoTool()],
          hooks: {
            [hook]: () => {
              entered.push(hook);
              return never();
            },
          },
        },
      });
      const session = await harness.newSession({ cwd: fixture.cwd });
      const run = session.prompt("go");
      await expect.poll(() => entered.length).toBeGreaterThan(0);
      session.abort("stop");
      const ended = await Promise.race([
        run.then(() => "ended"),
        new Promise((resolve) => setTimeout(() => resolve("still waiting"), 2000)),
      ]);
      expect(ended).toBe("ended");
      expect(session.isBusy).toBe(false);
      await harness.close();
    },
  );
});

describe("onAbort", () => {
  let fixture: StoreFixture;
  beforeEach(async () => {
    fixture = await createStoreFixture("memory");
  });
  afterEach(async () => fixture.cleanup());

  it("tells its listeners of an abort of a busy session, at once; an idle session's abort tells nobody", async () => {
    let entered = false;
    const { harness } = createTestHarness(fixture, {
      steps: [script.text("done")],
      harness: {
        hooks: {
          before_agent_start: () => {
            entered = true;
            return never();
          },
        },
      },
    });
    const session = await harness.newSession({ cwd: fixture.cwd });
    const reasons: unknown[] = [];
    const stop = session.onAbort((reason) => {
      reasons.push(reason);
      throw new Error("a listener's failure is ignored");
    });
    session.abort("idle");
    expect(reasons).toEqual([]);
    const run = session.prompt("go");
    await expect.poll(() => entered).toBe(true);
    session.abort("stop");
    expect(reasons).toEqual(["stop"]);
    await run;
    stop();
    await harness.close();
  });
});
