import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { SessionExistsError, type SessionHeader, SessionNotFoundError } from "@arbor/session-store";
import { describe, expect, it } from "vitest";
import { encodeCwd, InvalidStoreArgumentError, JsonlSessionStore } from "../src/index.js";
import { header, openStore, temporaryHome, userEntry } from "./helpers.js";

describe("layout", () => {
  it("encodes a cwd as the pi agent does", () => {
    expect(encodeCwd("/home/user/project")).toBe("--home-user-project--");
    expect(encodeCwd("C:\\Users\\me\\code")).toBe("--C--Users-me-code--");
    expect(encodeCwd("/")).toBe("----");
  });

  it("shortens very long cwds with a hash, keeping them distinct and under 180 bytes", () => {
    const long = `/${"segment/".repeat(40)}`;
    const a = encodeCwd(`${long}a`);
    const b = encodeCwd(`${long}b`);
    expect(Buffer.byteLength(a)).toBeLessThanOrEqual(180);
    expect(a).not.toBe(b);
    expect(a.startsWith("--segment-segment-")).toBe(true);
    expect(a.endsWith("--")).toBe(true);
  });

  it("creates <home>/sessions/<encoded cwd>/<timestamp>_<id>.jsonl with the header as line 1", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession({
      ...header("s1"),
      parentSession: "/x/parent.jsonl",
      metadata: { tag: 1 },
      extra: true,
    } as SessionHeader);
    const path = join(home, "sessions", "--home-user-project--", "2026-01-02T03-04-05-678Z_s1.jsonl");
    expect(store.pathOf("s1")).toBe(path);
    expect(readFileSync(path, "utf8")).toBe(
      '{"type":"session","version":3,"id":"s1","timestamp":"2026-01-02T03:04:05.678Z","cwd":"/home/user/project",' +
        '"parentSession":"/x/parent.jsonl","metadata":{"tag":1},"extra":true}\n',
    );
  });

  it("creates files with mode 0600 and directories with mode 0700", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("s1"));
    await store.appendEntries("s1", [userEntry("a", null)]);
    const path = store.pathOf("s1")!;
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(`${path}.lock`).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "sessions", "--home-user-project--")).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, "sessions")).mode & 0o777).toBe(0o700);
  });

  it("needs its home passed explicitly and never reads $ARBOR_HOME", async () => {
    const home = temporaryHome();
    const previous = process.env.ARBOR_HOME;
    process.env.ARBOR_HOME = temporaryHome();
    try {
      const store = new JsonlSessionStore({ home });
      expect(store.sessionsDirectory).toBe(join(home, "sessions"));
      await store.close();
      expect(() => new JsonlSessionStore({} as { home: string })).toThrow(/pass `home`/);
      expect(() => new JsonlSessionStore({ home: "" })).toThrow(InvalidStoreArgumentError);
    } finally {
      if (previous === undefined) delete process.env.ARBOR_HOME;
      else process.env.ARBOR_HOME = previous;
    }
  });

  it("finds sessions created by another store instance by their file names", async () => {
    const home = temporaryHome();
    const first = openStore({ home });
    const second = openStore({ home });
    expect(second.pathOf("late")).toBeUndefined();
    await first.createSession(header("late", "/elsewhere"));
    await first.close();
    expect(second.pathOf("late")).toBe(first.pathOf("late"));
    expect((await second.readSession("late")).header.cwd).toBe("/elsewhere");
  });

  it("refuses a taken id and ids that cannot name a file", async () => {
    const store = openStore();
    await store.createSession(header("s1"));
    await expect(store.createSession(header("s1", "/other"))).rejects.toBeInstanceOf(SessionExistsError);
    for (const id of ["", "a/b", "a\\b", "..", "x\0y", "a".repeat(201)]) {
      await expect(store.createSession(header(id))).rejects.toMatchObject({ code: "invalid_argument" });
    }
    await expect(store.readSession("a/b")).rejects.toBeInstanceOf(InvalidStoreArgumentError);
    await expect(store.createSession({ ...header("s2"), cwd: 5 as unknown as string })).rejects.toMatchObject(
      {
        code: "invalid_argument",
      },
    );
  });

  it("keeps one file per session and only .jsonl files count as sessions", async () => {
    const home = temporaryHome();
    const store = openStore({ home });
    await store.createSession(header("one"));
    await store.createSession(header("two", "/home/user/other"));
    const directories = readdirSync(join(home, "sessions")).sort();
    // `.locks` holds the per-id creation locks (empty between creations).
    expect(directories).toEqual(["--home-user-other--", "--home-user-project--", ".locks"]);
    expect(readdirSync(join(home, "sessions", ".locks"))).toEqual([]);
    await expect(store.readSession("three")).rejects.toBeInstanceOf(SessionNotFoundError);
  });
});
