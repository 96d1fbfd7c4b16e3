/**
 * Only regular files are opened as session files or sidecars: every open adds `O_NONBLOCK` (so a FIFO
 * never blocks the open) and checks the descriptor's type before anything is read or written; a
 * directory, a FIFO, a socket or a device, and a symbolic link that loops, become one
 * {@link NotARegularFileError} naming the path instead of Node's raw `EISDIR` / `ELOOP` or a hang.
 */
import { closeSync, constants, fstatSync, openSync, type Stats } from "node:fs";
import { NotARegularFileError } from "./errors.js";

/** What a non-regular file is, in words. */
function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return "a directory";
  if (stats.isFIFO()) return "a FIFO (named pipe)";
  if (stats.isSocket()) return "a socket";
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return "a device";
  return "not a regular file";
}

/**
 * Opens `path` with `flags` (numeric `fs.constants` flags; `O_NONBLOCK` is added) and returns the
 * descriptor of a regular file.
 *
 * Contract: throws {@link NotARegularFileError} for a directory, FIFO, socket, device or looping symbolic
 * link (closing what it opened); other errors (`ENOENT`, `EACCES`) are thrown as they are.
 */
export function openRegularFile(path: string, flags: number, mode?: number): number {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NONBLOCK, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EISDIR") throw new NotARegularFileError(path, "a directory");
    if (code === "ELOOP") throw new NotARegularFileError(path, "a symbolic link that loops");
    if (code === "ENXIO") throw new NotARegularFileError(path, "a FIFO or socket with no reader");
    throw error;
  }
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!stats.isFile()) {
    closeSync(fd);
    throw new NotARegularFileError(path, kindOf(stats));
  }
  return fd;
}
