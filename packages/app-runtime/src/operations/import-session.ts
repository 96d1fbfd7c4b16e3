/**
 * Importing a session file into the runtime's store (the protocol's `import_session`, the demo's Import
 * button): a path the runtime reads, or the file's text as a client sent it (parsed in memory: no copy of
 * it is written anywhere but the store). The policy for an id the store already holds is
 * `importSessionFile`'s: a copy under a new id, named in `copiedFrom`; the stored session is never
 * opened in its place.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { readSessionFileForImport } from "../sessions/import-file.js";
import { type ImportSessionResult, importSessionFile } from "../sessions/import-session.js";
import { assertIdle, type OperationHost } from "./operation-host.js";

/** What to import: a file (resolved against the runtime's cwd) or a file's text. */
export type ImportSource = { path: string } | { text: string; name?: string };

/** Options of {@link importIntoStore}. */
export interface ImportOptions {
  /** File the session under this working directory instead of its header's (default when it is opened: the runtime's). */
  cwd?: string;
  /** Open the imported session, making it current (default `true`). */
  open?: boolean;
}

/**
 * Imports a session file and (unless `open: false`) makes it current.
 *
 * Contract: refuses with `busy` when it would open the session while the current one runs, before
 * anything is stored; throws `ArborUserError` for a text that is not a session file and the store's
 * errors; a failed import stores nothing.
 */
export async function importIntoStore(
  host: OperationHost,
  source: ImportSource,
  options: ImportOptions = {},
): Promise<ImportSessionResult> {
  const open = options.open !== false;
  if (open) assertIdle(host.session);
  const path = "path" in source ? resolve(host.cwd, source.path) : undefined;
  const text = path === undefined ? (source as { text: string }).text : readFileSync(path, "utf8");
  const name = path ?? ("name" in source && source.name !== undefined ? source.name : "the imported file");
  // Opened here, it continues here: filed under the runtime's directory (its tools run there), not the
  // header's — so it is not forked again as a session of another directory (sessions/resume-here.ts).
  const cwd = options.cwd ?? (open ? host.cwd : undefined);
  const file = readSessionFileForImport(text, name, cwd === undefined ? {} : { cwd });
  const result = await importSessionFile(host.store, file);
  if (open) await host.openSession(result.sessionId);
  return result;
}
