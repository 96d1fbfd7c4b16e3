import { type Dirent, readdir, stat } from "node:fs";
import { join } from "node:path";
import { GitignoreRules } from "./gitignore-rules.js";
import { loadGlob } from "./lazy-libraries.js";

/** What {@link listProjectFiles} lists. */
export interface ProjectFileQuery {
  /** The absolute directory to walk; results are relative to it. */
  root: string;
  /** Glob patterns relative to `root` (picomatch syntax: `**`, `{a,b}`, `[ab]`, `!(x)`). */
  patterns: readonly string[];
  /** Patterns without a slash match the file's name anywhere below the root (default `false`). */
  baseNameMatch?: boolean;
  /** Case-sensitive matching (default `true`). */
  caseSensitive?: boolean;
  /** Walk into `node_modules` (default `false`). */
  includeNodeModules?: boolean;
  /** Apply `.gitignore` files (default `true`). */
  respectGitignore?: boolean;
  /** Stops the walk early (the caller checks the signal afterwards). */
  signal?: AbortSignal;
  /** Most paths collected; more are counted as `capped` (default 100,000). */
  maxResults?: number;
}

/** The files found, sorted by path. */
export interface ProjectFileList {
  /** Paths relative to the root, with `/` separators, sorted. */
  files: string[];
  /** More files matched than `maxResults`; `files` holds the first ones found, sorted. */
  capped: boolean;
}

/**
 * Lists the files below a directory that match glob patterns, the way a developer's tools see the
 * project: `.gitignore` files honoured (nested ones too, with git's precedence; see
 * {@link GitignoreRules}), ignored directories never walked into, `.git` and `node_modules` skipped,
 * dotfiles included, symbolic links to files listed but links to directories not followed.
 *
 * Globbing is tinyglobby's; the ignore rules are applied through its file-system adapter, one directory
 * listing at a time, so an ignored tree (`dist/`, `target/`) costs one `readdir` of its parent.
 */
export async function listProjectFiles(query: ProjectFileQuery): Promise<ProjectFileList> {
  const rules = await GitignoreRules.forRoot(query.root, {
    includeNodeModules: query.includeNodeModules ?? false,
    respectGitignore: query.respectGitignore ?? true,
  });
  const { signal } = query;
  const readdirFiltered = (
    path: string,
    optionsOrCallback: unknown,
    maybeCallback?: (error: NodeJS.ErrnoException | null, entries: Dirent[]) => void,
  ): void => {
    const callback = (typeof optionsOrCallback === "function" ? optionsOrCallback : maybeCallback) as (
      error: NodeJS.ErrnoException | null,
      entries: Dirent[],
    ) => void;
    if (signal?.aborted) {
      callback(null, []);
      return;
    }
    readdir(path, { withFileTypes: true }, (error, entries) => {
      if (error !== null) {
        callback(error, []);
        return;
      }
      resolveFileLinks(path, entries)
        .then((resolved) => rules.filter(path, resolved))
        .then(
          (kept) => callback(null, kept),
          (failure: NodeJS.ErrnoException) => callback(failure, []),
        );
    });
  };
  const maxResults = query.maxResults ?? 100_000;
  const { glob } = await loadGlob();
  const baseNameMatch = query.baseNameMatch ?? false;
  const found = await glob(
    query.patterns.map((pattern) => normalizePattern(pattern, baseNameMatch)),
    {
      cwd: query.root,
      dot: true,
      onlyFiles: true,
      followSymbolicLinks: false,
      expandDirectories: false,
      caseSensitiveMatch: query.caseSensitive ?? true,
      fs: { readdir: readdirFiltered as never },
    },
  );
  const capped = found.length > maxResults;
  const files = capped ? found.slice(0, maxResults) : found;
  files.sort(comparePaths);
  return { files, capped };
}

/** Code-point order of paths (stable across locales). */
export function comparePaths(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

/**
 * `/` separators and no leading `./`; with `baseNameMatch`, a pattern without a slash matches the name at any
 * depth (`*.ts` → `**\/*.ts`).
 */
function normalizePattern(pattern: string, baseNameMatch: boolean): string {
  let normalized = pattern.trim();
  while (normalized.startsWith("./")) normalized = normalized.slice(2);
  if (normalized === "") return "**/*";
  return baseNameMatch && !normalized.includes("/") ? `**/${normalized}` : normalized;
}

/** Replaces each symbolic link that points at a file with an entry that says "file". */
async function resolveFileLinks(directory: string, entries: Dirent[]): Promise<Dirent[]> {
  if (!entries.some((entry) => entry.isSymbolicLink())) return entries;
  return Promise.all(
    entries.map(async (entry) => {
      if (!entry.isSymbolicLink()) return entry;
      const isFile = await new Promise<boolean>((resolveIsFile) => {
        stat(join(directory, entry.name), (error, stats) => resolveIsFile(error === null && stats.isFile()));
      });
      return isFile ? fileEntry(entry) : entry;
    }),
  );
}

/** A directory entry that reports itself as a regular file. */
function fileEntry(link: Dirent): Dirent {
  return Object.assign(Object.create(Object.getPrototypeOf(link) as object) as Dirent, link, {
    isFile: () => true,
    isSymbolicLink: () => false,
    isDirectory: () => false,
  });
}
