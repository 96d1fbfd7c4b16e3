import { readdir, stat } from "node:fs/promises";
import { basename, dirname, extname, join } from "node:path";
import { loadGlob } from "./lazy-libraries.js";
import { displayPath } from "./paths.js";
import { listProjectFiles } from "./project-files.js";

/** Most suggestions listed for a missing path. */
const MAX_SUGGESTIONS = 5;

/** How long the search for files of the same name may walk the project (it only feeds a hint). */
const SEARCH_BUDGET_MS = 500;

/**
 * A sentence a model can act on when `absolutePath` does not exist: the nearest existing directory and
 * the entries of it whose names are close (case, extension, a typo), or files of the same name elsewhere
 * below `cwd` (searched for at most half a second). Empty when nothing useful was found.
 */
export async function describeMissingPath(cwd: string, absolutePath: string): Promise<string> {
  const parent = dirname(absolutePath);
  const name = basename(absolutePath);
  if (!(await isDirectory(parent))) {
    const existing = await nearestExistingDirectory(parent);
    return existing === undefined
      ? ""
      : `The directory ${displayPath(cwd, parent)} does not exist either; the nearest existing one is ${displayPath(cwd, existing)}.`;
  }
  const close = await closeNames(parent, name);
  if (close.length > 0) {
    return `Did you mean ${close.map((entry) => displayPath(cwd, join(parent, entry))).join(", ")}?`;
  }
  const elsewhere = await sameNameElsewhere(cwd, name, absolutePath);
  if (elsewhere.length > 0) return `Files with that name: ${elsewhere.join(", ")}.`;
  return "";
}

/** Names in `directory` close to `name`: same name in another case, same stem, or a small edit away. */
async function closeNames(directory: string, name: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = await readdir(directory);
  } catch {
    return [];
  }
  const lowerName = name.toLowerCase();
  const stem = stemOf(lowerName);
  const threshold = Math.max(2, Math.floor(name.length / 4));
  const scored: { entry: string; score: number }[] = [];
  for (const entry of entries) {
    const lowerEntry = entry.toLowerCase();
    let score: number;
    if (lowerEntry === lowerName) score = 0;
    else if (stem !== "" && stemOf(lowerEntry) === stem) score = 1;
    else {
      const distance = editDistance(lowerName, lowerEntry, threshold);
      if (distance > threshold) continue;
      score = 1 + distance;
    }
    scored.push({ entry, score });
  }
  scored.sort((left, right) => left.score - right.score || (left.entry < right.entry ? -1 : 1));
  return scored.slice(0, MAX_SUGGESTIONS).map((candidate) => candidate.entry);
}

async function sameNameElsewhere(cwd: string, name: string, missing: string): Promise<string[]> {
  if (!(await isDirectory(cwd))) return [];
  const glob = await loadGlob();
  const { files } = await listProjectFiles({
    root: cwd,
    patterns: [`**/${glob.escapePath(name)}`],
    caseSensitive: false,
    maxResults: MAX_SUGGESTIONS + 1,
    signal: AbortSignal.timeout(SEARCH_BUDGET_MS),
  });
  return files
    .map((file) => join(cwd, file))
    .filter((file) => file !== missing)
    .slice(0, MAX_SUGGESTIONS)
    .map((file) => displayPath(cwd, file));
}

function stemOf(name: string): string {
  const extension = extname(name);
  return extension === "" ? name : name.slice(0, -extension.length);
}

/**
 * Levenshtein distance, giving up (returning `limit + 1`) once it must exceed `limit`: the one edit distance
 * of Arbor (a missing file's near names here, a mistyped slash command's in app-runtime).
 *
 * Contract: pure; O(left × right) at most, less when the limit is passed early.
 */
export function editDistance(left: string, right: string, limit: number): number {
  if (Math.abs(left.length - right.length) > limit) return limit + 1;
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row++) {
    const current = [row];
    let best = row;
    for (let column = 1; column <= right.length; column++) {
      const cost = left[row - 1] === right[column - 1] ? 0 : 1;
      const value = Math.min(previous[column]! + 1, current[column - 1]! + 1, previous[column - 1]! + cost);
      current.push(value);
      best = Math.min(best, value);
    }
    if (best > limit) return limit + 1;
    previous = current;
  }
  return previous[right.length]!;
}

async function nearestExistingDirectory(path: string): Promise<string | undefined> {
  let current = path;
  for (;;) {
    if (await isDirectory(current)) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
