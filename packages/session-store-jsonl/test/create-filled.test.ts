import { mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";

// A file system without hard links (FAT, some network mounts): link() fails with EPERM when asked to.
const noLinks = vi.hoisted(() => ({ on: false }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const linkSync: typeof fs.linkSync = (existing, target) => {
    if (noLinks.on) throw Object.assign(new Error("EPERM: operation not permitted, link"), { code: "EPERM" });
    fs.linkSync(existing, target);
  };
  return { ...fs, default: { ...fs, linkSync }, linkSync };
});

const { closeSync } = await import("node:fs");
const { createFilled } = await import("../src/create-filled.js");
const { JsonlSessionStore } = await import("../src/index.js");

afterEach(() => {
  noLinks.on = false;
});

describe("createFilled", () => {
  for (const links of [true, false]) {
    it(`creates the file with its content, exclusively, 0600, leaving nothing else (${links ? "hard links" : "no hard links"})`, () => {
      noLinks.on = !links;
      const directory = mkdtempSync(join(tmpdir(), "arbor-create-filled-"));
      const path = join(directory, "file");
      const fd = createFilled(path, Buffer.from("header\n"), true);
      expect(fd).toBeTypeOf("number");
      closeSync(fd!);
      expect(readFileSync(path, "utf8")).toBe("header\n");
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(createFilled(path, Buffer.from("other\n"), false)).toBeUndefined();
      expect(readFileSync(path, "utf8")).toBe("header\n");
      expect(readdirSync(directory)).toEqual(["file"]);
    });
  }

  it("a store on a file system without hard links creates, locks and appends", async () => {
    noLinks.on = true;
    const home = mkdtempSync(join(tmpdir(), "arbor-no-links-"));
    const store = new JsonlSessionStore({ home });
    const header = {
      type: "session" as const,
      version: 3,
      id: "no-links",
      timestamp: new Date().toISOString(),
      cwd: "/project",
    };
    await store.createSession(header);
    await expect(store.createSession(header)).rejects.toMatchObject({ code: "session_exists" });
    await store.appendEntries("no-links", [
      {
        type: "session_info",
        id: "0000abcd",
        parentId: null,
        timestamp: new Date().toISOString(),
        name: "works",
      },
    ]);
    const read = await store.readSession("no-links");
    expect(read.entries.map((entry) => entry.id)).toEqual(["0000abcd"]);
    await store.close();
  });
});
