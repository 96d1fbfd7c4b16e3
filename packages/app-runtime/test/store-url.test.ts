import { join } from "node:path";
import { MemorySessionStore, type SessionHeader } from "@arbor/session-store";
import { JsonlSessionStore, SessionReadOnlyError } from "@arbor/session-store-jsonl";
import { describe, expect, it } from "vitest";
import type { StoreFactories } from "../src/factories.js";
import {
  describeStoreLocation,
  InvalidStoreUrlError,
  openStore,
  parseStoreUrl,
  redactStoreUrl,
  StoreBackendUnavailableError,
} from "../src/store-url.js";
import { temporaryDirectory } from "./helpers.js";

function sessionHeader(id: string): SessionHeader {
  return { type: "session", version: 3, id, timestamp: "2026-01-02T03:04:05.000Z", cwd: "/work/project" };
}

const stores: StoreFactories = { jsonl: () => import("@arbor/session-store-jsonl") };

const env = { ARBOR_HOME: "/data/arbor", HOME: "/home/me" };

describe("parseStoreUrl", () => {
  it("defaults to $ARBOR_HOME, then ~/.arbor", () => {
    expect(parseStoreUrl(undefined, { env })).toEqual({ backend: "jsonl", home: "/data/arbor" });
    expect(parseStoreUrl("", { env })).toEqual({ backend: "jsonl", home: "/data/arbor" });
    expect(parseStoreUrl(undefined, { env: { HOME: "/home/me" } })).toEqual({
      backend: "jsonl",
      home: join("/home/me", ".arbor"),
    });
    expect(parseStoreUrl("jsonl:", { env })).toEqual({ backend: "jsonl", home: "/data/arbor" });
  });

  it("reads jsonl:DIR as the store's home: absolute, relative to cwd, ~ and jsonl:///", () => {
    expect(parseStoreUrl("jsonl:/srv/sessions", { env })).toEqual({
      backend: "jsonl",
      home: "/srv/sessions",
    });
    expect(parseStoreUrl("jsonl:store", { env, cwd: "/work/project" })).toEqual({
      backend: "jsonl",
      home: "/work/project/store",
    });
    expect(parseStoreUrl("jsonl:~/arbor", { env })).toEqual({ backend: "jsonl", home: "/home/me/arbor" });
    expect(parseStoreUrl("jsonl:///srv/x", { env })).toEqual({ backend: "jsonl", home: "/srv/x" });
    expect(parseStoreUrl("JSONL:/srv/y", { env })).toEqual({ backend: "jsonl", home: "/srv/y" });
  });

  it("recognizes sqlite: and postgres:// so their backends can slot in", () => {
    expect(parseStoreUrl("sqlite:./arbor.db", { env })).toEqual({ backend: "sqlite", path: "./arbor.db" });
    expect(parseStoreUrl("sqlite:~/arbor.db", { env })).toEqual({
      backend: "sqlite",
      path: "/home/me/arbor.db",
    });
    expect(parseStoreUrl("postgres://arbor@db:5432/arbor", { env })).toEqual({
      backend: "postgres",
      connectionString: "postgres://arbor@db:5432/arbor",
    });
    expect(parseStoreUrl("postgresql://db/arbor", { env }).backend).toBe("postgres");
  });

  it("rejects unknown schemes, listing the supported ones, and hides passwords", () => {
    const error = (() => {
      try {
        parseStoreUrl("mysql://root:hunter2@db/arbor", { env });
      } catch (caught) {
        return caught as InvalidStoreUrlError;
      }
      throw new Error("expected a throw");
    })();
    expect(error).toBeInstanceOf(InvalidStoreUrlError);
    expect(error.code).toBe("invalid_store_url");
    expect(error.message).toContain('Unknown session store "mysql:"');
    expect(error.message).toContain("jsonl:DIR");
    expect(error.message).toContain("sqlite:FILE");
    expect(error.message).toContain("postgres://");
    expect(error.message).not.toContain("hunter2");
  });

  it("rejects a bare path and suggests jsonl:", () => {
    expect(() => parseStoreUrl("/srv/sessions", { env })).toThrow(/--store jsonl:\/srv\/sessions/);
    expect(() => parseStoreUrl("C:\\arbor", { env })).toThrow(InvalidStoreUrlError);
  });

  it("describes locations without secrets", () => {
    expect(redactStoreUrl("postgres://arbor:secret@db/arbor")).toBe("postgres://arbor:***@db/arbor");
    expect(describeStoreLocation({ backend: "postgres", connectionString: "postgres://a:b@h/d" })).toBe(
      "the PostgreSQL store postgres://a:***@h/d",
    );
    expect(describeStoreLocation({ backend: "jsonl", home: "/x" })).toBe("the JSONL store in /x");
  });
});

describe("openStore", () => {
  it("opens a JSONL store in the named home, read-only on request", async () => {
    const home = temporaryDirectory();
    const store = await openStore(`jsonl:${home}`, { stores });
    expect(store).toBeInstanceOf(JsonlSessionStore);
    expect((store as JsonlSessionStore).sessionsDirectory).toBe(join(home, "sessions"));
    await store.createSession(sessionHeader("s1"));
    await store.close?.();

    const fromEnvironment = await openStore(undefined, { env: { ARBOR_HOME: home }, stores, readOnly: true });
    expect((await fromEnvironment.listSessions()).sessions.map((session) => session.id)).toEqual(["s1"]);
    await expect(fromEnvironment.createSession(sessionHeader("s2"))).rejects.toBeInstanceOf(
      SessionReadOnlyError,
    );
    await fromEnvironment.close?.();
  });

  it("uses the home it is given for the default store, not the environment", async () => {
    const home = temporaryDirectory();
    const store = await openStore(undefined, { env: { ARBOR_HOME: "/nowhere" }, home, stores });
    expect((store as JsonlSessionStore).sessionsDirectory).toBe(join(home, "sessions"));
    await store.close?.();
  });

  it("fails clearly for backends the app passed no factory for", async () => {
    await expect(openStore("sqlite:/tmp/arbor.db", { stores })).rejects.toBeInstanceOf(
      StoreBackendUnavailableError,
    );
    await expect(openStore("postgres://db/arbor", { stores })).rejects.toThrow(
      /PostgreSQL session store is not available yet \(a later step adds this backend\)/,
    );
    await expect(openStore(undefined, { stores: {} })).rejects.toThrow(
      /JSONL session store is not available in this app/,
    );
  });

  it("routes sqlite: and postgres:// to the app's factories, with the location and read-only flag", async () => {
    const opened: unknown[] = [];
    const memory = new MemorySessionStore();
    const withBackends: StoreFactories = {
      ...stores,
      sqlite: async (location) => {
        opened.push({ sqlite: location });
        return memory;
      },
      postgres: async (location) => {
        opened.push({ postgres: location });
        return memory;
      },
    };
    expect(await openStore("sqlite:~/arbor.db", { env, stores: withBackends })).toBe(memory);
    expect(await openStore("postgres://me:pw@db/arbor", { stores: withBackends, readOnly: true })).toBe(
      memory,
    );
    expect(opened).toEqual([
      { sqlite: { path: "/home/me/arbor.db", readOnly: false } },
      { postgres: { connectionString: "postgres://me:pw@db/arbor", readOnly: true } },
    ]);
  });
});
