/**
 * Ctrl-C twice and the last guard of a one-shot process: the first Ctrl-C asks to stop, a second one exits
 * at once with one line saying what was kept and where; a process with nothing left to do says so instead
 * of Node's silent exit code 13. (Through the real binary: bench/reliability/extensions.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { createAppRuntime } from "../src/create-app-runtime.js";
import type { StoreFactories } from "../src/factories.js";
import { interruptTwice } from "../src/interrupts/interrupt-twice.js";
import { watchKeptWork } from "../src/interrupts/kept-work.js";
import { exitWhenStalled } from "../src/interrupts/stalled-exit.js";
import { temporaryDirectory } from "./helpers.js";

const stores: StoreFactories = { jsonl: () => import("@arbor/session-store-jsonl") };

async function runtimeOf(persistent: boolean) {
  return createAppRuntime({
    cwd: temporaryDirectory(),
    env: {},
    home: temporaryDirectory(),
    providers: { scripted: () => import("../src/demo/index.js") },
    stores,
    persistent,
    flags: { provider: "scripted" },
    tools: false,
  });
}

/** The handler a function just added for `event` (called directly: emitting the signal would reach vitest's). */
function lastListener(event: "SIGINT" | "beforeExit"): () => void {
  const listeners = event === "SIGINT" ? process.listeners("SIGINT") : process.listeners("beforeExit");
  return listeners.at(-1) as () => void;
}

describe("what was kept", () => {
  it("names the entries this run saved and the session's file; nothing before a save", async () => {
    const runtime = await runtimeOf(true);
    try {
      const kept = watchKeptWork(runtime);
      expect(kept.describe()).toMatch(/^Nothing of this run was saved \(session [\w-]+, the JSONL store in /);
      await runtime.session.prompt("hello");
      expect(kept.describe()).toMatch(
        new RegExp(
          `^Kept: \\d+ entries of this run, in ${runtime.sessionFile} \\(the last: \\w+\\); what came after is lost\\.$`,
        ),
      );
      kept.stop();
    } finally {
      await runtime.dispose();
    }
    const memory = await runtimeOf(false);
    try {
      expect(watchKeptWork(memory).describe()).toBe(
        "Nothing is kept: the session was in memory only (--no-session).",
      );
    } finally {
      await memory.dispose();
    }
  });
});

describe("Ctrl-C twice", () => {
  it("the first asks to stop, the second writes one line and exits 130 at once", () => {
    const written: string[] = [];
    const exits: number[] = [];
    let stops = 0;
    const before = process.listenerCount("SIGINT");
    const watch = interruptTwice({
      onFirst: () => stops++,
      kept: () => "Kept: 2 entries of this run, in /s.jsonl (the last: ab12); what came after is lost.",
      write: (text) => written.push(text),
      exit: (code) => exits.push(code),
    });
    const handler = lastListener("SIGINT");
    handler();
    expect([stops, watch.interrupted, exits, written]).toEqual([1, true, [], []]);
    handler();
    expect(exits).toEqual([130]);
    expect(written).toEqual([
      "arbor: interrupted again: exiting at once, without waiting for the run to stop. Kept: 2 entries of this run, in /s.jsonl (the last: ab12); what came after is lost.\n",
    ]);
    watch.restore();
    expect(process.listenerCount("SIGINT")).toBe(before);
  });

  it("counts a SIGINT within repeatWindowMs of the first as the same Ctrl-C (pnpm forwards the terminal's)", () => {
    let clock = 1_000;
    let stops = 0;
    const exits: number[] = [];
    const watch = interruptTwice({
      onFirst: () => stops++,
      kept: () => "Kept: nothing.",
      write: () => undefined,
      exit: (code) => exits.push(code),
      repeatWindowMs: 500,
      now: () => clock,
    });
    const handler = lastListener("SIGINT");
    handler();
    clock += 20;
    handler();
    expect([stops, exits]).toEqual([1, []]);
    clock += 600;
    handler();
    expect([stops, exits]).toEqual([1, [130]]);
    watch.restore();
  });
});

describe("a process with nothing left to do", () => {
  it("says so, naming what it waited for and what was kept, and exits 1", async () => {
    const runtime = await runtimeOf(false);
    try {
      const written: string[] = [];
      const exits: number[] = [];
      const stop = exitWhenStalled(
        runtime,
        (text) => written.push(text),
        (code) => exits.push(code),
      );
      lastListener("beforeExit")();
      stop();
      expect(exits).toEqual([1]);
      expect(written).toEqual([
        "arbor: error: the run can go no further: it waits for something that can never happen. Nothing is kept: the session was in memory only (--no-session).\n",
      ]);
    } finally {
      await runtime.dispose();
    }
  });
});
