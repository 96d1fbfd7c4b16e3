/**
 * `--store <url>`: which session store the CLI opens. A URL names the backend by its scheme, so backends
 * slot in without new flags:
 *
 * - `jsonl:DIR` — the JSONL store with its home in `DIR` (sessions under `DIR/sessions`); `jsonl:` alone,
 *   or no URL at all, means `$ARBOR_HOME`, else `~/.arbor`. `jsonl:///abs/path` and `~` are accepted.
 * - `sqlite:FILE` and `postgres://…` (or `postgresql://…`) — recognized; their backends come in a later
 *   step, so opening them fails with {@link StoreBackendUnavailableError}.
 *
 * Anything else fails with {@link InvalidStoreUrlError}, naming the supported forms. The JSONL backend is
 * loaded only when a store is opened, so parsing `--store` costs nothing at start-up.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { ArborError } from "@arbor/ai-providers";
import type { SessionStore } from "@arbor/session-store";

/** What a store URL names: a backend and where its data lives. */
export type StoreLocation =
  | { backend: "jsonl" /** The store's home: sessions live in `<home>/sessions`. */; home: string }
  | { backend: "sqlite" /** The database file (as written, `:memory:` included). */; path: string }
  | { backend: "postgres" /** The connection string, as given. */; connectionString: string };

/** The backends a URL can name. */
export type StoreBackend = StoreLocation["backend"];

/** Environment variables the store URL reads (`ARBOR_HOME`, `HOME`). */
export type StoreEnvironment = Readonly<Record<string, string | undefined>>;

/** Options of {@link parseStoreUrl}. */
export interface ParseStoreUrlOptions {
  /** Where `ARBOR_HOME` and `HOME` are read (default `process.env`). */
  env?: StoreEnvironment;
  /** The directory relative paths are resolved against (default `process.cwd()`). */
  cwd?: string;
}

/** Options of {@link openStore}. */
export interface OpenStoreOptions extends ParseStoreUrlOptions {
  /**
   * Open without taking locks or repairing files; every write throws. Commands that only read (`list`,
   * `show`, `export`, `diff`) open stores this way, so they work while another `arbor` holds a session.
   */
  readOnly?: boolean;
}

/** How the supported URLs are written, for error messages and help. */
export const SUPPORTED_STORE_URLS =
  "jsonl:DIR (default: $ARBOR_HOME, else ~/.arbor), sqlite:FILE and postgres://… (the last two not available yet)";

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

/** A store URL names a backend that this version of Arbor cannot open yet. */
export class StoreBackendUnavailableError extends ArborError {
  constructor(readonly backend: StoreBackend) {
    super(
      "store_backend_unavailable",
      `The ${backend === "sqlite" ? "SQLite" : "PostgreSQL"} session store is not available yet (a later step ` +
        "adds this backend). Use --store jsonl:DIR, or leave --store out to use $ARBOR_HOME or ~/.arbor.",
    );
    this.name = "StoreBackendUnavailableError";
  }
}

/** `scheme:rest`; a one-letter scheme is a Windows drive (`C:\…`), not a scheme. */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]+):(.*)$/s;

function homeDirectory(env: StoreEnvironment): string {
  return env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir();
}

/** `~` and `~/x` expanded to the home directory; anything else unchanged. */
function expandTilde(path: string, env: StoreEnvironment): string {
  if (path === "~") return homeDirectory(env);
  if (path.startsWith("~/") || path.startsWith("~\\")) return join(homeDirectory(env), path.slice(2));
  return path;
}

/** The default JSONL home: `$ARBOR_HOME`, else `~/.arbor`. */
export function defaultStoreHome(env: StoreEnvironment = process.env): string {
  const fromEnvironment = env.ARBOR_HOME;
  if (fromEnvironment !== undefined && fromEnvironment !== "") return fromEnvironment;
  return join(homeDirectory(env), ".arbor");
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
  if (url === undefined || url.trim() === "") return { backend: "jsonl", home: defaultStoreHome(env) };
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
      if (path === "") return { backend: "jsonl", home: defaultStoreHome(env) };
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
 * Opens the session store a URL names (default: the JSONL store in `$ARBOR_HOME` or `~/.arbor`).
 *
 * Contract: throws {@link InvalidStoreUrlError} for a URL it cannot read and
 * {@link StoreBackendUnavailableError} for `sqlite:` / `postgres://` (a later step adds them); never
 * creates directories (the JSONL store creates them on its first write). The caller closes the store
 * (`store.close?.()`), which releases its locks.
 */
export async function openStore(url?: string, options: OpenStoreOptions = {}): Promise<SessionStore> {
  const location = parseStoreUrl(url, options);
  switch (location.backend) {
    case "jsonl": {
      const { JsonlSessionStore } = await import("@arbor/session-store-jsonl");
      return new JsonlSessionStore({ home: location.home, readOnly: options.readOnly === true });
    }
    case "sqlite":
    case "postgres":
      throw new StoreBackendUnavailableError(location.backend);
  }
}
