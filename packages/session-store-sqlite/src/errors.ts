import { ArborError } from "@arbor/ai-providers";

/**
 * The database file cannot be opened or created: a directory that cannot be made, a path without write
 * permission, a file that is not an SQLite database. Code `sqlite_unavailable`.
 */
export class SqliteUnavailableError extends ArborError {
  constructor(
    readonly file: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      "sqlite_unavailable",
      `Cannot open the SQLite session store ${file}: ${reason}. Name a writable database file ` +
        "(sqlite:FILE), in a directory that exists or can be created.",
      options,
    );
    this.name = "SqliteUnavailableError";
  }
}
