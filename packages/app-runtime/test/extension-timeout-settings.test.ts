/** `extensionTimeouts` of settings.json: defaults, global and per-extension limits, merging, validation. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_EXTENSION_TIMEOUTS,
  extensionName,
  extensionTimeoutsFor,
  mergeExtensionTimeoutSettings,
} from "../src/extensions/extension-timeouts.js";
import { loadSettings } from "../src/settings.js";
import { temporaryDirectory, writeJson } from "./helpers.js";

describe("extensionTimeouts settings", () => {
  it("defaults, global values and perExtension by name, file name or path", () => {
    expect(DEFAULT_EXTENSION_TIMEOUTS).toEqual({
      loadMs: 10_000,
      hookMs: 5_000,
      summaryHookMs: 60_000,
      eventMs: 5_000,
    });
    expect(extensionName("/x/guard.ts")).toBe("guard");
    expect(extensionName("/x/my-ext/index.ts")).toBe("my-ext");
    const settings = {
      hookMs: 2000,
      perExtension: { guard: { eventMs: 100 }, "guard.ts": { hookMs: 300 }, "/x/other.ts": { loadMs: 0 } },
    };
    expect(extensionTimeoutsFor(settings, "/x/guard.ts")).toEqual({
      ...DEFAULT_EXTENSION_TIMEOUTS,
      hookMs: 300,
      eventMs: 100,
    });
    expect(extensionTimeoutsFor(settings, "/x/other.ts")).toEqual({
      ...DEFAULT_EXTENSION_TIMEOUTS,
      hookMs: 2000,
      loadMs: 0,
    });
  });

  it("settings.json: the project file wins key by key; a wrong value names the field", () => {
    const home = temporaryDirectory();
    const cwd = temporaryDirectory();
    writeJson(join(home, "settings.json"), {
      extensionTimeouts: { hookMs: 1000, eventMs: 2000, perExtension: { a: { hookMs: 5 } } },
    });
    writeJson(join(cwd, ".arbor", "settings.json"), {
      extensionTimeouts: { eventMs: 3000, perExtension: { a: { loadMs: 6 }, b: { eventMs: 7 } } },
    });
    expect(loadSettings(home, cwd).settings.extensionTimeouts).toEqual({
      hookMs: 1000,
      eventMs: 3000,
      perExtension: { a: { hookMs: 5, loadMs: 6 }, b: { eventMs: 7 } },
    });
    expect(mergeExtensionTimeoutSettings(undefined, { hookMs: 1 })).toEqual({ hookMs: 1 });
    writeJson(join(cwd, ".arbor", "settings.json"), { extensionTimeouts: { hookMs: -1, hookMS: 5 } });
    expect(() => loadSettings(home, cwd)).toThrow(/extensionTimeouts\.hookMS: unknown field/);
    expect(() => loadSettings(home, cwd)).toThrow(/extensionTimeouts\.hookMs: expected integer >= 0/);
  });
});
