import { describe, expect, it } from "vitest";
import { openStore, StoreDriverUnavailableError } from "../src/index.js";

/** The error Node throws when `require("name")` finds nothing. */
function moduleNotFound(name: string): Error {
  return Object.assign(new Error(`Cannot find module '${name}'\nRequire stack:\n- /x/dist/arbor-main.cjs`), {
    code: "MODULE_NOT_FOUND",
  });
}

async function openFailing(url: string, error: Error): Promise<unknown> {
  const fail = async () => {
    throw error;
  };
  return openStore(url, { stores: { sqlite: fail, postgres: fail }, env: {} }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
}

describe("a store whose database driver cannot load", () => {
  it("names the package to install when better-sqlite3 or pg is missing", async () => {
    const sqlite = await openFailing("sqlite:/tmp/x.db", moduleNotFound("better-sqlite3"));
    expect(sqlite).toBeInstanceOf(StoreDriverUnavailableError);
    expect((sqlite as StoreDriverUnavailableError).code).toBe("store_driver_unavailable");
    expect((sqlite as Error).message).toContain("npm install -g better-sqlite3@12");
    expect((sqlite as Error).message).not.toContain("\n");
    const postgres = await openFailing("postgres://u@127.0.0.1:9/db", moduleNotFound("pg"));
    expect((postgres as Error).message).toContain("npm install -g pg@8");
  });

  it("says how to build an addon that was never built or was built for another Node.js", async () => {
    const unbuilt = await openFailing(
      "sqlite:/tmp/x.db",
      new Error("Could not locate the bindings file. Tried:\n → /a/build/better_sqlite3.node\n → /b"),
    );
    expect((unbuilt as StoreDriverUnavailableError).problem).toBe("not_built");
    expect((unbuilt as Error).message).toContain("npm rebuild -g better-sqlite3");
    const wrongNode = await openFailing(
      "sqlite:/tmp/x.db",
      new Error("The module was compiled against a different Node.js version using NODE_MODULE_VERSION 115."),
    );
    expect((wrongNode as StoreDriverUnavailableError).problem).toBe("wrong_node");
  });

  it("keeps every other error as it was: a module the driver itself misses, a refused connection", async () => {
    const inner = moduleNotFound("./lib/database");
    expect(await openFailing("sqlite:/tmp/x.db", inner)).toBe(inner);
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:9"), { code: "ECONNREFUSED" });
    expect(await openFailing("postgres://u@127.0.0.1:9/db", refused)).toBe(refused);
  });
});
