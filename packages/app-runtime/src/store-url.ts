/**
 * Store URLs (`--store <url>`): which session store a front end opens. A URL names the backend by its
 * scheme, so backends slot in without new flags:
 *
 * - `jsonl:DIR` — the JSONL store with its home in `DIR` (sessions under `DIR/sessions`); `jsonl:` alone,
 *   or no URL at all, means the Arbor home (`$ARBOR_HOME`, else `~/.arbor`). `jsonl:///abs/path` and `~`
 *   are accepted.
 * - `sqlite:FILE` and `postgres://…` (or `postgresql://…`) — opened by the app's `stores.sqlite` /
 *   `stores.postgres` factory; without one, opening fails with {@link StoreBackendUnavailableError}.
 *
 * Anything else fails with {@link InvalidStoreUrlError}, naming the supported forms. A backend's package is
 * loaded only when a store is opened, so parsing `--store` costs nothing at start-up.
 */
import { join, resolve } from "node:path";
import { ArborError } from "@arbor/ai-providers";
import type { SessionStore } from "@arbor/session-store";
import type { StoreFactories } from "./factories.js";
import {
  checkWritableDirectory,
  describeArborHome,
  type Environment,
  resolveArborHome,
  userHome,
} from "./home.js";
import { withStoreDriver } from "./store-driver.js";

/** What a store URL names: a backend and where its data lives. */
export type StoreLocation =
  | { backend: "jsonl" /** The store's home: sessions live in `<home>/sessions`. */; home: string }
  | { backend: "sqlite" /** The database file (as written, `:memory:` included). */; path: string }
  | { backend: "postgres" /** The connection string, as given. */; connectionString: string };

/** The backends a URL can name. */
export type StoreBackend = StoreLocation["backend"];

/** Options of {@link parseStoreUrl}. */
export interface ParseStoreUrlOptions {
  /** Where `HOME` (for `~`) and, without `home`, `ARBOR_HOME` are read (default `process.env`). */
  env?: Environment;
  /** The directory relative paths are resolved against (default `process.cwd()`). */
  cwd?: string;
  /** The Arbor home, the default JSONL store's home (default: {@link resolveArborHome} of `env`). */
  home?: string;
}

/** Options of {@link openStore}. */
export interface OpenStoreOptions extends ParseStoreUrlOptions {
  /** The store backends the app offers. */
  stores: StoreFactories;
  /**
   * Open without taking locks or repairing files; every write throws. Commands that only read (`list`,
   * `show`, `export`, `diff`) open stores this way, so they work while another `arbor` holds a session.
   */
  readOnly?: boolean;
}

/** How the supported URLs are written, for error messages and help. */
export const SUPPORTED_STORE_URLS =
  "jsonl:DIR (default: $ARBOR_HOME, else ~/.arbor), sqlite:FILE and postgres://… (the last two not available yet)";

/** {@link SUPPORTED_STORE_URLS} for an app that offers these backends. */
function supportedUrls(stores: StoreFactories | undefined): string {
  if (stores?.sqlite === undefined && stores?.postgres === undefined) return SUPPORTED_STORE_URLS;
  const forms = ["jsonl:DIR (default: $ARBOR_HOME, else ~/.arbor)"];
  if (stores.sqlite !== undefined) forms.push("sqlite:FILE");
  if (stores.postgres !== undefined) forms.push("postgres://…");
  return forms.join(", ");
}

/** A store URL that cannot be read: an unknown scheme, or no scheme at all. */
export class InvalidStoreUrlError extends ArborError {
  constructor(
    readonly url: string,
    message: string,
  ) {
    super("invalid_store_url", message);
    this.name = "InvalidStoreUrlError";
  }
}

const BACKEND_NAMES: Readonly<Record<StoreBackend, string>> = {
  jsonl: "JSONL",
  sqlite: "SQLite",
  postgres: "PostgreSQL",
};

/** A store URL names a backend that this app cannot open (it passed no factory for it). */
export class StoreBackendUnavailableError extends ArborError {
  constructor(
    readonly backend: StoreBackend,
    /** The URLs that do work, for the message (JSONL's default: the Arbor home). */
    supported?: string,
  ) {
    super(
      "store_backend_unavailable",
      supported === undefined
        ? `The ${BACKEND_NAMES[backend]} session store is not available yet (a later step ` +
            "adds this backend). Use --store jsonl:DIR, or leave --store out to use $ARBOR_HOME or ~/.arbor."
        : `The ${BACKEND_NAMES[backend]} session store is not available in this app. Supported: ${supported}.`,
    );
    this.name = "StoreBackendUnavailableError";
  }
}

/** `scheme:rest`; a one-letter scheme is a Windows drive (`C:\…`), not a scheme. */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]+):(.*)$/s;

/** `~` and `~/x` expanded to the home directory; anything else unchanged. */
function expandTilde(path: string, env: Environment): string {
  if (path === "~") return userHome(env);
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(userHome(env), path.slice(2));
  return path;
}

/**
 * Reads a store URL (see the module comment for the forms).
 *
 * Contract: pure apart from reading `options.env` / `options.cwd`; never touches the file system.
 * `undefined` or `""` names the default JSONL home. Throws {@link InvalidStoreUrlError} for an unknown
 * scheme or a string without one (the message lists the supported forms and, for a bare path, suggests
 * `jsonl:<path>`).
 */
export function parseStoreUrl(url: string | undefined, options: ParseStoreUrlOptions = {}): StoreLocation {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const home = options.home ?? resolveArborHome(env);
  if (url === undefined || url.trim() === "") return { backend: "jsonl", home };
  const text = url.trim();
  const match = SCHEME.exec(text);
  if (match === null) {
    throw new InvalidStoreUrlError(
      text,
      `"${text}" is not a store URL: it needs a scheme. For a JSONL store in that directory use ` +
        `--store jsonl:${text}. Supported: ${SUPPORTED_STORE_URLS}.`,
    );
  }
  const scheme = match[1]!.toLowerCase();
  const rest = match[2]!;
  switch (scheme) {
    case "jsonl": {
      const path = rest.startsWith("//") ? rest.slice(2) : rest;
      if (path === "") return { backend: "jsonl", home };
      return { backend: "jsonl", home: resolve(cwd, expandTilde(path, env)) };
    }
    case "sqlite": {
      const path = rest.startsWith("//") ? rest.slice(2) : rest;
      return { backend: "sqlite", path: path === "" || path === ":memory:" ? path : expandTilde(path, env) };
    }
    case "postgres":
    case "postgresql":
      return { backend: "postgres", connectionString: text };
    default:
      throw new InvalidStoreUrlError(
        text,
        `Unknown session store "${match[1]}:" in "${redactStoreUrl(text)}". Supported: ${SUPPORTED_STORE_URLS}.`,
      );
  }
}

/** A URL with any password (`user:password@`) replaced by `***`, safe to print. */
export function redactStoreUrl(url: string): string {
  return url.replace(/^([A-Za-z][A-Za-z0-9+.-]*:\/\/[^/@:]*):[^/@]*@/, "$1:***@");
}

/** A store location in words, for messages (`the JSONL store in /home/me/.arbor`); passwords hidden. */
export function describeStoreLocation(location: StoreLocation): string {
  switch (location.backend) {
    case "jsonl":
      return `the JSONL store in ${location.home}`;
    case "sqlite":
      return `the SQLite store ${location.path}`;
    case "postgres":
      return `the PostgreSQL store ${redactStoreUrl(location.connectionString)}`;
  }
}

/**
 * Checks that a JSONL store's directory can hold files (see `checkWritableDirectory`), naming it as the
 * user chose it: `ARBOR_HOME (…)`, the Arbor home, or the session store directory of `jsonl:DIR`.
 *
 * Contract: creates nothing; throws `ArborUserError` (`unusable_home`).
 */
export function checkJsonlDirectory(directory: string, options: ParseStoreUrlOptions = {}): void {
  const env = options.env ?? process.env;
  const home = options.home ?? resolveArborHome(env);
  const what =
    resolve(directory) === resolve(home)
      ? describeArborHome(env, home)
      : `The session store directory ${directory}`;
  checkWritableDirectory(directory, what.charAt(0).toUpperCase() + what.slice(1));
}

/**
 * Opens the session store a URL names (default: the JSONL store in the Arbor home) through the app's
 * `stores` factories.
 *
 * Contract: throws {@link InvalidStoreUrlError} for a URL it cannot read and
 * {@link StoreBackendUnavailableError} for a backend `stores` has no factory for,
 * {@link StoreDriverUnavailableError} when that backend's database driver is missing or unbuilt, and `ArborUserError`
 * (`unusable_home`) for a JSONL directory that cannot hold files when opened for writing; never creates
 * directories (the JSONL store creates them on its first write). The caller closes the store
 * (`store.close?.()`), which releases its locks.
 */
export async function openStore(url: string | undefined, options: OpenStoreOptions): Promise<SessionStore> {
  const location = parseStoreUrl(url, options);
  const readOnly = options.readOnly === true;
  const { stores } = options;
  switch (location.backend) {
    case "jsonl": {
      if (stores.jsonl === undefined) throw new StoreBackendUnavailableError("jsonl", supportedUrls(stores));
      if (!readOnly) checkJsonlDirectory(location.home, options);
      const { JsonlSessionStore } = await stores.jsonl();
      return new JsonlSessionStore({ home: location.home, readOnly });
    }
    case "sqlite": {
      const open = stores.sqlite;
      if (open === undefined) throw new StoreBackendUnavailableError("sqlite");
      return withStoreDriver("sqlite", () => open({ path: location.path, readOnly }));
    }
    case "postgres": {
      const open = stores.postgres;
      if (open === undefined) throw new StoreBackendUnavailableError("postgres");
      return withStoreDriver("postgres", () =>
        open({ connectionString: location.connectionString, readOnly }),
      );
    }
  }
}
