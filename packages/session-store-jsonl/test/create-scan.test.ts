import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionExistsError } from "@arbor/session-store";
import { describe, expect, it, vi } from "vitest";
import { header, openStore, temporaryHome } from "./helpers.js";

/** Every directory listing the store makes through node:fs. */
const listings = vi.hoisted(() => ({ count: 0 }));

vi.mock("node:fs", async (importOriginal) => {
  const actual = await importOriginal<typeof import("node:fs")>();
  const readdirSync = ((...args: Parameters<typeof actual.readdirSync>) => {
    listings.count += 1;
    return actual.readdirSync(...args);
  }) as typeof actual.readdirSync;
  return { ...actual, default: { ...actual, readdirSync }, readdirSync };
});

/** A home with `directories` working directories of `files` (empty) session files each. */
function crowdedHome(directories: number, files: number): string {
  const home = temporaryHome();
  for (let directory = 0; directory < directories; directory++) {
    const path = join(home, "sessions", `--project-${directory}--`);
    mkdirSync(path, { recursive: true });
    for (let file = 0; file < files; file++) {
      writeFileSync(join(path, `2026-01-01T00-00-00-000Z_old-${directory}-${file}.jsonl`), "");
    }
  }
  return home;
}

describe("createSession in a home of many sessions", () => {
  it("lists each directory once per creation (not once more to fill the id index)", async () => {
    const home = crowdedHome(30, 20);
    const store = openStore({ home, durability: "flush" });
    listings.count = 0;
    await store.createSession(header("fresh-1"));
    // The sessions directory, each of the 30 working directories, and the new session's own (just made).
    expect(listings.count).toBeLessThanOrEqual(32);
    listings.count = 0;
    await store.createSession(header("fresh-2"));
    expect(listings.count).toBeLessThanOrEqual(32);
    await store.close();
  });

  it("still finds a file of the id in another working directory, made by another program", async () => {
    const home = crowdedHome(5, 3);
    const store = openStore({ home, durability: "flush" });
    await expect(store.createSession(header("old-3-2"))).rejects.toBeInstanceOf(SessionExistsError);
    expect(store.pathOf("old-3-2")).toContain("--project-3--");
    await store.close();
  });
});
