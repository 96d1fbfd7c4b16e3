/**
 * The database drivers of the SQLite and PostgreSQL stores (`better-sqlite3`, `pg`) are optional: an app
 * installs them only for `--store sqlite:` / `postgres://`. A missing driver, or a native addon that was never
 * built (an install with `--ignore-scripts`, pnpm's skipped build scripts) or was built for another Node.js,
 * becomes one line that says what to install — not a require stack.
 */
import { ArborError } from "@arbor/ai-providers";
import type { StoreBackend } from "./store-url.js";

/** The npm package each database store loads at run time, and the major version it is tested with. */
const STORE_DRIVERS: Readonly<Record<Exclude<StoreBackend, "jsonl">, { name: string; install: string }>> = {
  sqlite: { name: "better-sqlite3", install: "better-sqlite3@12" },
  postgres: { name: "pg", install: "pg@8" },
};

/** Why a driver could not be loaded. */
export type StoreDriverProblem = "missing" | "not_built" | "wrong_node";

/** A store's database driver is not installed, or its native addon cannot load here. */
export class StoreDriverUnavailableError extends ArborError {
  constructor(
    readonly backend: Exclude<StoreBackend, "jsonl">,
    readonly problem: StoreDriverProblem,
    options?: { cause?: unknown },
  ) {
    super("store_driver_unavailable", driverMessage(backend, problem), options);
    this.name = "StoreDriverUnavailableError";
  }
}

function driverMessage(backend: Exclude<StoreBackend, "jsonl">, problem: StoreDriverProblem): string {
  const { name: driver, install } = STORE_DRIVERS[backend];
  const store = backend === "sqlite" ? "The SQLite session store" : "The PostgreSQL session store";
  switch (problem) {
    case "missing":
      return `${store} needs the ${driver} package, which is not installed: run \`npm install -g ${install}\` (or install it where arbor is installed), or use another --store.`;
    case "not_built":
      return `${store} needs ${driver}'s native addon, which was never built (its install script did not run): run \`npm rebuild -g ${driver}\` (pnpm: \`pnpm approve-builds\`), or use another --store.`;
    case "wrong_node":
      return `${store} needs ${driver}'s native addon, which was built for another Node.js version: run \`npm rebuild -g ${driver}\` with this Node.js (${process.version}), or use another --store.`;
  }
}

/**
 * The driver problem an error from opening a store stands for, or undefined when it is something else (a
 * bad path, a refused connection: those keep their own message).
 *
 * Contract: pure; recognises Node's `MODULE_NOT_FOUND` for the driver itself (not for a file the driver
 * requires), `bindings`' "Could not locate the bindings file" and `ERR_DLOPEN_FAILED` /
 * `NODE_MODULE_VERSION` mismatches.
 */
export function storeDriverProblem(
  backend: Exclude<StoreBackend, "jsonl">,
  error: unknown,
): StoreDriverProblem | undefined {
  if (!(error instanceof Error)) return undefined;
  const driver = STORE_DRIVERS[backend].name;
  const code = (error as NodeJS.ErrnoException).code;
  const firstLine = error.message.split("\n", 1)[0] ?? "";
  if (
    (code === "MODULE_NOT_FOUND" || code === "ERR_MODULE_NOT_FOUND") &&
    (firstLine.includes(`'${driver}'`) || firstLine.includes(`"${driver}"`))
  ) {
    return "missing";
  }
  if (error.message.includes("Could not locate the bindings file")) return "not_built";
  if (error.message.includes("NODE_MODULE_VERSION")) return "wrong_node";
  return undefined;
}

/**
 * Runs `open` (a store factory) and turns a driver problem into {@link StoreDriverUnavailableError}.
 *
 * Contract: resolves to what `open` resolves to; rethrows every other error unchanged.
 */
export async function withStoreDriver<T>(
  backend: Exclude<StoreBackend, "jsonl">,
  open: () => Promise<T>,
): Promise<T> {
  try {
    return await open();
  } catch (error) {
    const problem = storeDriverProblem(backend, error);
    if (problem === undefined) throw error;
    throw new StoreDriverUnavailableError(backend, problem, { cause: error });
  }
}
