import { readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { type AppRuntimeOptions, createAppRuntime } from "../src/create-app-runtime.js";
import type { ProviderFactories, StoreFactories } from "../src/factories.js";
import { temporaryDirectory } from "./helpers.js";

const stores: StoreFactories = { jsonl: () => import("@arbor/session-store-jsonl") };
const providers: ProviderFactories = { scripted: () => import("../src/demo/index.js") };

/** Every regular file under `directory`, relative to it (none when it does not exist). */
function filesUnder(directory: string): string[] {
  try {
    return readdirSync(directory, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => relative(directory, join(entry.parentPath, entry.name)));
  } catch {
    return [];
  }
}

describe("a new session is stored with its first entry", () => {
  it("launching and quitting, or /new and quitting, leaves no session file; a prompt stores one", async () => {
    const home = temporaryDirectory();
    const base: AppRuntimeOptions = {
      cwd: temporaryDirectory(),
      env: {},
      home,
      providers,
      stores,
      flags: { provider: "scripted" },
      tools: false,
    };
    const sessionFiles = () => filesUnder(join(home, "sessions")).filter((file) => file.endsWith(".jsonl"));

    const idle = await createAppRuntime(base);
    expect(idle.session.session.isStored).toBe(false);
    await idle.newSession(); // /new (and /clear) before any prompt
    await idle.dispose();
    expect(sessionFiles()).toEqual([]);
    expect(await listed(base)).toEqual([]);
    expect(sessionFiles()).toEqual([]);

    const worked = await createAppRuntime(base);
    await worked.session.prompt("the real work");
    const id = worked.session.id;
    await worked.newSession();
    await worked.dispose();
    const files = sessionFiles();
    expect(files).toHaveLength(1);
    expect(files[0]).toContain(id);
    expect(await listed(base)).toEqual([id]);
    expect(sessionFiles()).toHaveLength(1);
  });
});

/** The ids the store lists, seen through a runtime of its own (which, started and left, stores nothing). */
async function listed(base: AppRuntimeOptions): Promise<string[]> {
  const runtime = await createAppRuntime(base);
  try {
    return (await runtime.store.listSessions()).sessions.map((summary) => summary.id);
  } finally {
    await runtime.dispose();
  }
}
