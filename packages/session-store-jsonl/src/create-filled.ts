/**
 * Creating a file that no reader ever sees empty: its content is written under a temporary name beside it
 * and hard-linked into place (a link fails when the name is taken, which makes the creation exclusive).
 * Where the file system has no hard links (FAT, some network and FUSE mounts), the file is created
 * exclusively in place and then written, as before links were used.
 */
import { randomBytes } from "node:crypto";
import { closeSync, constants, fsyncSync, linkSync, openSync, unlinkSync } from "node:fs";
import { writeAll } from "./durability.js";

/** The errors of a file system that cannot make hard links. */
const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS", "EMLINK"]);

const READ_WRITE_APPEND = constants.O_RDWR | constants.O_APPEND;

/**
 * Creates `path` holding `content`, mode 0600, when nothing is there; `sync` makes the content durable
 * before the file appears. Returns the file's descriptor, open for reading and appending (the caller
 * closes it), or `undefined` when `path` exists.
 *
 * Contract: throws the file system's other errors; never leaves the temporary file behind (but for a
 * process killed inside this call).
 */
export function createFilled(path: string, content: Buffer, sync: boolean): number | undefined {
  const temporary = `${path}.creating-${process.pid}-${randomBytes(4).toString("hex")}`;
  const fd = openSync(temporary, READ_WRITE_APPEND | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    writeAll(fd, content);
    if (sync) fsyncSync(fd);
    linkSync(temporary, path);
  } catch (error) {
    closeSync(fd);
    unlinkSync(temporary);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return undefined;
    if (code !== undefined && NO_HARD_LINKS.has(code)) return createInPlace(path, content, sync);
    throw error;
  }
  unlinkSync(temporary);
  return fd;
}

function createInPlace(path: string, content: Buffer, sync: boolean): number | undefined {
  let fd: number;
  try {
    fd = openSync(path, READ_WRITE_APPEND | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return undefined;
    throw error;
  }
  try {
    writeAll(fd, content);
    if (sync) fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(path);
    throw error;
  }
  return fd;
}
