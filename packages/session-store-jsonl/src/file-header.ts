/**
 * The header of a session file named by its path (`JsonlSessionStore.openFile`): line 1 read through a
 * read-only descriptor, checked by the same rules the store applies to its own files.
 */
import { closeSync, constants, fstatSync } from "node:fs";
import type { SessionHeader } from "@arbor/session-store";
import { assertValidSessionId } from "./layout.js";
import { openRegularFile } from "./regular-file.js";
import { readHeader } from "./tail-summary.js";

/**
 * Reads and checks line 1 of the file at `path`; never writes.
 *
 * Contract: throws `SessionCorruptError` (naming the path) when line 1 is missing, incomplete, not JSON
 * or not a session header, `InvalidStoreArgumentError` when the header's id cannot name a session,
 * `NotARegularFileError` for a directory, FIFO or looping link, and the file system's error (e.g.
 * `ENOENT`) when the file cannot be opened.
 */
export function readSessionFileHeader(path: string): SessionHeader {
  const fd = openRegularFile(path, constants.O_RDONLY);
  try {
    const { header } = readHeader(fd, fstatSync(fd).size, path);
    assertValidSessionId(header.id);
    return header;
  } finally {
    closeSync(fd);
  }
}
