import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compileCacheDirectory, LAST_REMADE_USE, loadWithCompileCache } from "../src/compile-cache.js";
import { temporaryDirectory } from "./cli-helpers.js";

let loads = 0;

/**
 * Loads `file` as `loadWithCompileCache` does, after giving it a last line no earlier load saw, of the same
 * length: V8 compiles a source it has compiled before in this process from its own in-memory cache, without
 * looking at the data it is given; a new text of the same length makes it look (V8 checks the length).
 */
function load(file: string, key: string, env: NodeJS.ProcessEnv) {
  const source = readFileSync(file, "utf8").replace(/\n\/\/ load \d+$/, "");
  writeFileSync(file, `${source}\n// load ${String(++loads).padStart(8, "0")}`);
  return loadWithCompileCache(file, key, env);
}

/** A CommonJS "bundle" with a sibling module, and a cache directory for it. */
function fixture(): { file: string; cache: string; env: NodeJS.ProcessEnv } {
  const root = temporaryDirectory("arbor-compile-cache-");
  const file = join(root, "bundle.cjs");
  writeFileSync(join(root, "sibling.cjs"), "module.exports = 'from the sibling';\n");
  writeFileSync(
    file,
    [
      "const path = require('node:path');",
      "function add(a, b) { return a + b; }",
      "module.exports = { sum: add(2, 3), sibling: require('./sibling.cjs'), file: __filename,",
      "  dir: path.basename(__dirname), self: this === exports };",
    ].join("\n"),
  );
  const cache = join(root, "cache");
  return { file, cache, env: { ARBOR_COMPILE_CACHE: cache } };
}

/** The use count in the header of the one cache file under `cache`. */
function usesIn(cache: string): number {
  const [name] = readdirSync(cache);
  return readFileSync(join(cache, name!)).readUInt32LE(4);
}

describe("loadWithCompileCache", () => {
  it("runs the file as Node runs CommonJS: module, exports, require relative to it, __filename", () => {
    const { file, env } = fixture();
    const loaded = load(file, "k1", env);
    expect(loaded.exports).toEqual({
      sum: 5,
      sibling: "from the sibling",
      file,
      dir: expect.any(String),
      self: true,
    });
  });

  it("makes the cache on the first run and compiles from it on the next", () => {
    const { file, cache, env } = fixture();
    const first = load(file, "k1", env);
    expect(first.status).toBe("missing");
    expect(existsSync(cache)).toBe(false);
    first.save();
    expect(readdirSync(cache)).toEqual([expect.stringMatching(/^bundle\.cjs-k1-v8-.+\.bin$/)]);
    expect(readFileSync(first.cacheFile!).subarray(0, 4).toString("latin1")).toBe("ARB1");
    const second = load(file, "k1", env);
    expect(second.status).toBe("used");
    expect(second.exports).toMatchObject({ sum: 5 });
  });

  it("makes the data again on the 1st, 2nd, 4th … 64th use, only counts the others, then only reads it", () => {
    const { file, cache, env } = fixture();
    load(file, "k1", env).save();
    const remade: number[] = [];
    for (let use = 1; use <= LAST_REMADE_USE + 3; use++) {
      const loaded = load(file, "k1", env);
      expect(loaded.status).toBe("used");
      const before = statSync(loaded.cacheFile!);
      loaded.save();
      const after = statSync(loaded.cacheFile!);
      // A file made again replaces the old one (a new inode); a counted use writes the header in place.
      if (after.ino !== before.ino) remade.push(use);
      expect(usesIn(cache)).toBe(Math.min(use, LAST_REMADE_USE));
    }
    expect(remade).toEqual([1, 2, 4, 8, 16, 32, 64]);
  });

  it("a damaged file is rejected, the bundle still runs, and the file is made again", () => {
    const { file, cache, env } = fixture();
    const made = load(file, "k1", env);
    made.save();
    const bytes = readFileSync(made.cacheFile!);
    bytes.fill(7, 12, 40);
    writeFileSync(made.cacheFile!, bytes);
    const damaged = load(file, "k1", env);
    expect(damaged.status).toBe("rejected");
    expect(damaged.exports).toMatchObject({ sum: 5 });
    damaged.save();
    const again = load(file, "k1", env);
    expect(again.status).toBe("used");
    again.save();
    expect(usesIn(cache)).toBe(1);

    writeFileSync(made.cacheFile!, "not a cache file");
    expect(load(file, "k1", env).status).toBe("missing");
  });

  it("another build has its own file; writing one keeps the 3 newest others, none unused for 30 days", () => {
    const { file, cache, env } = fixture();
    mkdirSync(cache, { recursive: true });
    const day = 24 * 60 * 60;
    const now = Date.now() / 1000;
    const others = ["a", "b", "c", "d", "old"].map((name) => join(cache, `bundle.cjs-${name}-v8-0-x64.bin`));
    const ages = [1, 2, 3, 4, 31]; // days since each was written
    const unrelated = join(cache, "something-else.bin");
    for (const [index, path] of others.entries()) {
      writeFileSync(path, "x");
      utimesSync(path, now - ages[index]! * day, now - ages[index]! * day);
    }
    writeFileSync(unrelated, "x");
    utimesSync(unrelated, now - 40 * day, now - 40 * day);
    load(file, "k2", env).save();
    expect(readdirSync(cache).sort()).toEqual([
      "bundle.cjs-a-v8-0-x64.bin",
      "bundle.cjs-b-v8-0-x64.bin",
      "bundle.cjs-c-v8-0-x64.bin",
      expect.stringMatching(/^bundle\.cjs-k2-v8-/),
      "something-else.bin",
    ]);
  });

  it("a file only read (past its last remade use) is kept fresh, so another build's pruning spares it", () => {
    const { file, cache, env } = fixture();
    const made = load(file, "k1", env);
    made.save();
    const bytes = readFileSync(made.cacheFile!);
    bytes.writeUInt32LE(LAST_REMADE_USE, 4);
    writeFileSync(made.cacheFile!, bytes);
    const longAgo = Date.now() / 1000 - 40 * 24 * 60 * 60;
    utimesSync(made.cacheFile!, longAgo, longAgo);
    const used = load(file, "k1", env);
    expect(used.status).toBe("used");
    used.save();
    expect(usesIn(cache)).toBe(LAST_REMADE_USE);
    expect(Date.now() - statSync(made.cacheFile!).mtimeMs).toBeLessThan(60_000);
    load(file, "k2", env).save(); // Another build prunes files unused for 30 days.
    expect(existsSync(made.cacheFile!)).toBe(true);
  });

  it("a cache that cannot be written is no error", () => {
    const { file, cache, env } = fixture();
    writeFileSync(cache, "a file where the directory should be");
    const loaded = load(file, "k1", env);
    expect(() => loaded.save()).not.toThrow();
    expect(load(file, "k1", env).status).toBe("missing");
  });

  it("ARBOR_COMPILE_CACHE=off turns it off", () => {
    const { file, cache } = fixture();
    const loaded = load(file, "k1", { ARBOR_COMPILE_CACHE: "off" });
    expect(loaded.status).toBe("off");
    loaded.save();
    expect(existsSync(cache)).toBe(false);
  });
});

describe("compileCacheDirectory", () => {
  it("is ARBOR_COMPILE_CACHE, else $XDG_CACHE_HOME/arbor, else ~/.cache/arbor", () => {
    expect(compileCacheDirectory({ ARBOR_COMPILE_CACHE: "/c", XDG_CACHE_HOME: "/x" })).toBe("/c");
    expect(compileCacheDirectory({ XDG_CACHE_HOME: "/x" })).toBe(join("/x", "arbor"));
    expect(compileCacheDirectory({})).toMatch(/[/\\]\.cache[/\\]arbor$/);
    for (const off of ["off", "0", "false", "NO"])
      expect(compileCacheDirectory({ ARBOR_COMPILE_CACHE: off })).toBe(undefined);
  });
});
