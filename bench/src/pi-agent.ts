/**
 * The pi agent (`@mariozechner/pi-coding-agent`), installed from npm into a folder of os.tmpdir() (once;
 * later runs reuse it), for side-by-side rows. When it cannot be installed (no network, no npm) the
 * benches print the reason and skip the pi rows.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** The version compared against. */
export const PI_VERSION = "0.73.1";
const PACKAGE = "@mariozechner/pi-coding-agent";

/** Where the pi agent of a version is installed (a folder of os.tmpdir(), kept for later runs). */
export function piHome(version: string = PI_VERSION): string {
  return join(tmpdir(), `arbor-bench-pi-${version}`);
}

/** Where the pi agent is installed. */
export const PI_HOME = piHome();

/** The parts of pi's API the benches use. */
export interface PiSessionManager {
  buildSessionContext(): { messages: unknown[] };
  getBranch(fromId?: string): unknown[];
}
export interface PiModule {
  SessionManager: {
    open(path: string, sessionDir?: string): PiSessionManager;
    list(cwd: string, sessionDir?: string): Promise<unknown[]>;
    listAll(): Promise<unknown[]>;
  };
}

let loaded: Promise<PiModule | { skipped: string }> | undefined;

/**
 * The installed package folder of a pi version, installing it from npm first when needed (the corpus
 * scripts use it too: `scripts/pi-session-corpus.ts`, `scripts/pi-session-contexts.ts`); or why it cannot
 * be installed.
 */
export function installPiAgent(version: string = PI_VERSION): string | { skipped: string } {
  const home = piHome(version);
  const dir = join(home, "node_modules", ...PACKAGE.split("/"));
  if (existsSync(join(dir, "package.json"))) return dir;
  mkdirSync(home, { recursive: true });
  const npm = spawnSync(
    "npm",
    ["install", "--no-audit", "--no-fund", "--loglevel=error", "--prefix", home, `${PACKAGE}@${version}`],
    { encoding: "utf8", timeout: 300_000 },
  );
  if (npm.status !== 0 || !existsSync(join(dir, "package.json"))) {
    const why = (npm.error?.message ?? npm.stderr ?? "").trim().split("\n").at(-1) ?? "";
    return { skipped: `npm install ${PACKAGE}@${version} failed: ${why || `exit ${npm.status}`}` };
  }
  return dir;
}

/** The installed package's folder, installing it first when needed; or why it cannot be. */
export function piPackageDir(): string | { skipped: string } {
  if (process.env.ARBOR_BENCH_NO_PI === "1") return { skipped: "ARBOR_BENCH_NO_PI=1" };
  return installPiAgent();
}

/** pi's library entry point, or why it is not available. */
export function loadPi(): Promise<PiModule | { skipped: string }> {
  loaded ??= (async () => {
    const dir = piPackageDir();
    if (typeof dir !== "string") return dir;
    try {
      return (await import(pathToFileURL(join(dir, "dist", "index.js")).href)) as PiModule;
    } catch (error) {
      return { skipped: `importing ${PACKAGE}: ${(error as Error).message}` };
    }
  })();
  return loaded;
}

/** The path of pi's command-line entry point, or why it is not available. */
export function piCli(): string | { skipped: string } {
  const dir = piPackageDir();
  return typeof dir === "string" ? join(dir, "dist", "cli.js") : dir;
}
