/**
 * Commands printed for the user to paste into a shell: a word quoted as the shell reads it, and how the
 * user runs `arbor` (a clone's `scripts/arbor` sets `$ARBOR_COMMAND`).
 */

/** A word as the shell reads it: unchanged when safe, else in single quotes. Pure. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/**
 * How the user runs `arbor`: `$ARBOR_COMMAND` (set by a clone's `scripts/arbor` and `scripts/main.sh` to the
 * wrapper's absolute path, since a clone puts nothing on PATH), else `arbor`. Pure.
 */
export function arborCommand(env: Readonly<Record<string, string | undefined>>): string {
  const given = env.ARBOR_COMMAND?.trim();
  return given === undefined || given === "" ? "arbor" : shellWord(given);
}
