/**
 * Loads the CLI's CommonJS bundle through a V8 code cache, so that a start after the first skips parsing and
 * compiling the JavaScript a one-line answer runs: ~90 ms of a print answer's ~350 ms on this project's
 * machines (docs/performance.md). Node 20 has no compile cache of its own (`module.enableCompileCache`
 * came with Node 22.1, and covers only what Node's loaders compile), so the bundle is compiled here with
 * `vm.Script` and the `cachedData` V8 made on an earlier run. See docs/decisions/0009-compile-cache.md.
 *
 * The cache lives in `$ARBOR_COMPILE_CACHE` (a directory; `off` or `0` turns the cache off), else
 * `$XDG_CACHE_HOME/arbor`, else `~/.cache/arbor`: one file per bundle (its content hash), V8 version and
 * architecture. V8 checks the rest (its flags, the source's length) and rejects data that does not fit, which
 * then only costs the compile it would have cost anyway. A cache that cannot be read or written is never an
 * error: the bundle is compiled from source.
 *
 * V8 caches the functions compiled when the data is made, so the data is made at the end of a run (then it
 * holds everything the run called) and made again, from what the previous data held plus what this run
 * compiled, on the 1st, 2nd, 4th, … and 64th use of the file: after a few runs it holds the code of the
 * commands that were used (print mode with a provider, the interactive UI, the session commands), and after
 * 64 uses it is only read.
 */
import {
  closeSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeSync,
} from "node:fs";
import Module, { createRequire } from "node:module";
import { homedir } from "node:os";
import { basename, dirname, join } from "node:path";
import { Script } from "node:vm";

/** "ARB1", little-endian: the first four bytes of a cache file. */
const MAGIC = 0x31425241;
/** The magic, then the file's use count (uint32, little-endian), then V8's data. */
const HEADER_BYTES = 8;
/** The use after which a cache file is no longer made again (only read). */
export const LAST_REMADE_USE = 64;
/**
 * Other cache files of the same bundle name (other builds of it, another Node) that are kept when one is
 * written: the most recently written ones, up to this many (a checkout rebuilt all day does not fill the
 * disk), none older than {@link STALE_MS}.
 */
const KEPT_SIBLINGS = 3;
/** See {@link KEPT_SIBLINGS}. */
const STALE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Where the compile cache lives for `env`, or `undefined` when it is turned off
 * (`ARBOR_COMPILE_CACHE=off`, `0`, `false` or `no`).
 */
export function compileCacheDirectory(env: NodeJS.ProcessEnv): string | undefined {
  const setting = env.ARBOR_COMPILE_CACHE;
  if (setting !== undefined && setting !== "")
    return /^(0|off|false|no)$/i.test(setting) ? undefined : setting;
  const base =
    env.XDG_CACHE_HOME !== undefined && env.XDG_CACHE_HOME !== ""
      ? env.XDG_CACHE_HOME
      : join(homedir(), ".cache");
  return join(base, "arbor");
}

/** What became of the cache on one load. */
export type CompileCacheStatus =
  /** Turned off: compiled from source. */
  | "off"
  /** No (readable) cache file: compiled from source; `save` makes one. */
  | "missing"
  /** V8 rejected the data (another flag set, a damaged file): compiled from source; `save` makes it again. */
  | "rejected"
  /** Compiled from the cache. */
  | "used";

/** The result of {@link loadWithCompileCache}. */
export interface CompiledBundle {
  /** The bundle's `module.exports`. */
  exports: unknown;
  status: CompileCacheStatus;
  /** The cache file, when the cache is on. */
  cacheFile: string | undefined;
  /**
   * Makes the cache file from what this process has compiled, when this load calls for it (see the module
   * comment); otherwise does nothing.
   *
   * Contract: call once, as late as possible (at exit: the data holds the functions compiled by then); never
   * throws; the file is replaced atomically, so a process starting meanwhile reads the old data or the new.
   */
  save(): void;
}

interface CacheFile {
  uses: number;
  data: Buffer;
}

function readCacheFile(path: string): CacheFile | undefined {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return undefined;
  }
  if (bytes.length <= HEADER_BYTES || bytes.readUInt32LE(0) !== MAGIC) return undefined;
  return { uses: bytes.readUInt32LE(4), data: bytes.subarray(HEADER_BYTES) };
}

/** Records a use in the file's header, in place (a file replaced meanwhile keeps its own count). */
function recordUse(path: string, uses: number): void {
  try {
    const fd = openSync(path, "r+");
    try {
      const count = Buffer.alloc(4);
      count.writeUInt32LE(uses);
      writeSync(fd, count, 0, 4, 4);
    } finally {
      closeSync(fd);
    }
  } catch {
    // A count that could not be written only makes the file be made again later, or never.
  }
}

/**
 * Moves the mtime of a file that is only read (past its last remade use) to now once it is a day old, so
 * that another build's pruning by age ({@link STALE_MS}) spares a cache still in use.
 */
function keepFresh(path: string): void {
  try {
    const now = Date.now();
    if (now - statSync(path).mtimeMs > 24 * 60 * 60 * 1000) utimesSync(path, new Date(now), new Date(now));
  } catch {
    // Left as it is, it may be pruned: the next run compiles from source and makes it again.
  }
}

function isPowerOfTwo(value: number): boolean {
  return value > 0 && (value & (value - 1)) === 0;
}

/**
 * Writes the data `makeData` returns to `path` through a temporary file and a rename, and prunes the
 * siblings. The temporary file is opened first, so that where nothing can be written the data is not made
 * (V8 takes ~25 ms to serialize it). Never throws.
 */
function writeCacheFile(path: string, uses: number, makeData: () => Buffer, prefix: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  let fd: number | undefined;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    fd = openSync(temporary, "w", 0o600);
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32LE(MAGIC, 0);
    header.writeUInt32LE(uses, 4);
    const bytes = Buffer.concat([header, makeData()]);
    for (let written = 0; written < bytes.length; )
      written += writeSync(fd, bytes, written, bytes.length - written);
    closeSync(fd);
    fd = undefined;
    renameSync(temporary, path);
    const now = Date.now();
    const siblings = readdirSync(dirname(path))
      .filter((name) => name.startsWith(prefix) && join(dirname(path), name) !== path)
      .map((name) => ({
        path: join(dirname(path), name),
        mtimeMs: statSync(join(dirname(path), name)).mtimeMs,
      }))
      .sort((a, b) => b.mtimeMs - a.mtimeMs);
    for (const [index, sibling] of siblings.entries())
      if (index >= KEPT_SIBLINGS || now - sibling.mtimeMs > STALE_MS) rmSync(sibling.path, { force: true });
  } catch {
    try {
      if (fd !== undefined) closeSync(fd);
      rmSync(temporary, { force: true });
    } catch {
      // Nothing was written.
    }
  }
}

/**
 * Compiles and runs the CommonJS file `file` (as Node would: `module`, `exports`, `require` relative to it),
 * through the compile cache of `env`; `key` names this build of it (a hash of its content).
 *
 * Contract: the file is ASCII (it is read as Latin-1: a copy, no decoding) and does not call `import()` (code
 * compiled through `vm.Script` cannot on Node 20); the V8 flags of the process must be those of every later
 * run that should use the cache — set them before this call and do not change them after; `save` must be
 * called for the cache to be made.
 */
export function loadWithCompileCache(file: string, key: string, env: NodeJS.ProcessEnv): CompiledBundle {
  const source = readFileSync(file, "latin1");
  const directory = compileCacheDirectory(env);
  const prefix = `${basename(file)}-`;
  const cacheFile =
    directory === undefined
      ? undefined
      : join(directory, `${prefix}${key}-v8-${process.versions.v8}-${process.arch}.bin`);
  const cached = cacheFile === undefined ? undefined : readCacheFile(cacheFile);
  const script = new Script(Module.wrap(source), {
    filename: file,
    ...(cached === undefined ? {} : { cachedData: cached.data }),
  });
  const status: CompileCacheStatus =
    cacheFile === undefined
      ? "off"
      : cached === undefined
        ? "missing"
        : script.cachedDataRejected
          ? "rejected"
          : "used";
  let remakeAt: number | undefined;
  if (status === "missing" || status === "rejected") remakeAt = 0;
  else if (status === "used" && cached !== undefined && cached.uses < LAST_REMADE_USE) {
    const uses = cached.uses + 1;
    if (isPowerOfTwo(uses)) remakeAt = uses;
    else recordUse(cacheFile as string, uses);
  } else if (status === "used") keepFresh(cacheFile as string);
  const module = { exports: {} as unknown };
  const run = script.runInThisContext() as (
    exports: unknown,
    require: NodeJS.Require,
    module: { exports: unknown },
    filename: string,
    dirname: string,
  ) => void;
  run.call(module.exports, module.exports, createRequire(file), module, file, dirname(file));
  let saved = false;
  return {
    exports: module.exports,
    status,
    cacheFile,
    save() {
      if (saved || remakeAt === undefined || cacheFile === undefined) return;
      saved = true;
      writeCacheFile(cacheFile, remakeAt, () => script.createCachedData(), prefix);
    },
  };
}
