import { constants } from "node:fs";
import { type FileHandle, open, realpath } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import type { ContextFile } from "../session-resources.js";
import { describeFileError, isMissingFileError } from "./skills.js";

/**
 * Context files: the `AGENTS.md` (or `CLAUDE.md`) instructions of the user's Arbor home and of every
 * directory from the filesystem root down to the working directory, as Claude Code, Codex CLI and the
 * pi agent read them.
 */

/**
 * The names a context file may have, in order of precedence: in each directory the first one that can be
 * read is used and the others are ignored (`AGENTS.md` wins over `CLAUDE.md`; a `CLAUDE.md` that is a
 * link to the `AGENTS.md` is the common case).
 */
export const CONTEXT_FILE_NAMES: readonly string[] = ["AGENTS.md", "CLAUDE.md"];

/** Largest context file included whole (64 KiB); larger ones are cut, with a warning. */
export const DEFAULT_MAX_CONTEXT_FILE_BYTES = 64 * 1024;

/** Options of {@link loadContextFiles}. */
export interface LoadContextFilesOptions {
  /** The working directory. */
  cwd: string;
  /** The Arbor home (e.g. `~/.arbor`); its context file comes first. */
  home: string;
  /** Largest file included whole, in bytes (default {@link DEFAULT_MAX_CONTEXT_FILE_BYTES}). */
  maxBytes?: number;
}

/** What {@link loadContextFiles} found. */
export interface LoadedContextFiles {
  /** Outermost first: the home's, then the root's, …, then the working directory's. */
  contextFiles: ContextFile[];
  /** Unreadable files and cut files, in directory order. */
  warnings: string[];
}

/**
 * The directories searched for a context file, in the order their files go into the prompt: the home,
 * then the filesystem root, each directory below it, and the working directory last (both resolved to
 * absolute paths).
 */
export function contextFileDirectories(cwd: string, home: string): string[] {
  const ancestors: string[] = [];
  let current = resolve(cwd);
  for (;;) {
    ancestors.push(current);
    const parent = dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return [resolve(home), ...ancestors.reverse()];
}

/**
 * Loads the context files of a working directory (see {@link contextFileDirectories} for the order). In
 * each directory `AGENTS.md` is used when it can be read, else `CLAUDE.md` ({@link CONTEXT_FILE_NAMES}).
 * A file reached twice — the home inside the project, a symbolic link to a directory already searched, a
 * `CLAUDE.md` linked to an `AGENTS.md` — is included once, at its first place. Empty files are skipped.
 * A file over `maxBytes` is cut at a character boundary and ends with a marker saying so.
 *
 * Contract: never throws. Missing files are normal; a file that exists but cannot be read (a directory,
 * no permission) and a cut file give a warning.
 */
export async function loadContextFiles(options: LoadContextFilesOptions): Promise<LoadedContextFiles> {
  const maxBytes = Math.max(1, Math.floor(options.maxBytes ?? DEFAULT_MAX_CONTEXT_FILE_BYTES));
  const directories = contextFileDirectories(options.cwd, options.home);
  const found = await Promise.all(directories.map((directory) => readDirectoryFile(directory, maxBytes)));
  const contextFiles: ContextFile[] = [];
  const warnings: string[] = [];
  const seen = new Set<string>();
  for (const result of found) {
    warnings.push(...result.warnings);
    const file = result.file;
    if (file === undefined || seen.has(file.realPath)) continue;
    seen.add(file.realPath);
    if (file.warning !== undefined) warnings.push(file.warning);
    if (file.content.trim() !== "") contextFiles.push({ path: file.path, content: file.content });
  }
  return { contextFiles, warnings };
}

/** A context file as read, before deduplication. */
interface ReadFile {
  path: string;
  realPath: string;
  content: string;
  /** Set when the file was cut. */
  warning?: string;
}

/** The first readable context file of one directory, and the warnings of the unreadable ones before it. */
async function readDirectoryFile(
  directory: string,
  maxBytes: number,
): Promise<{ file?: ReadFile; warnings: string[] }> {
  const warnings: string[] = [];
  for (const name of CONTEXT_FILE_NAMES) {
    const path = join(directory, name);
    const result = await readCapped(path, maxBytes);
    if (result.kind === "missing") continue;
    if (result.kind === "unreadable") {
      warnings.push(`Cannot read context file ${path}: ${result.reason}`);
      continue;
    }
    return { file: result.file, warnings };
  }
  return { warnings };
}

type ReadResult =
  | { kind: "missing" }
  | { kind: "unreadable"; reason: string }
  | { kind: "file"; file: ReadFile };

/** Reads at most `maxBytes` of a file. */
async function readCapped(path: string, maxBytes: number): Promise<ReadResult> {
  let handle: FileHandle;
  try {
    // Non-blocking, so that a named pipe called AGENTS.md cannot hang the harness.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    return isMissingFileError(error)
      ? { kind: "missing" }
      : { kind: "unreadable", reason: describeFileError(error) };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      return { kind: "unreadable", reason: info.isDirectory() ? "it is a directory" : "not a regular file" };
    }
    const wanted = Math.min(info.size, maxBytes);
    const buffer = Buffer.alloc(wanted);
    let length = 0;
    while (length < wanted) {
      const { bytesRead } = await handle.read(buffer, length, wanted - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    const cut = info.size > length;
    const kept = cut ? characterBoundary(buffer, length) : length;
    let content = buffer.toString("utf8", 0, kept);
    if (content.startsWith("\uFEFF")) content = content.slice(1);
    const file: ReadFile = { path, realPath: await realpath(path), content };
    if (cut) {
      file.content = `${content.trimEnd()}\n\n[… cut: this file has ${info.size} bytes; only the first ${kept} are included]`;
      file.warning = `Context file ${path} has ${info.size} bytes, more than the limit of ${maxBytes}; only the first ${kept} bytes are included.`;
    }
    return { kind: "file", file };
  } catch (error) {
    return { kind: "unreadable", reason: describeFileError(error) };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/** The largest length ≤ `length` that does not end inside a UTF-8 character. */
function characterBoundary(buffer: Buffer, length: number): number {
  let start = length - 1;
  while (start > 0 && (buffer[start]! & 0xc0) === 0x80) start--;
  if (start < 0) return 0;
  const lead = buffer[start]!;
  const size = lead < 0x80 ? 1 : lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + size <= length ? length : start;
}
