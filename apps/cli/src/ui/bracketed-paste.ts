/**
 * Bracketed paste for the interactive UI: on while it runs, so a paste reaches the editor as one paste
 * (its line breaks text, not Enter); off again on every way out — a quit, a crash, a signal — so the shell
 * the user returns to does not get `ESC[200~` around what they paste next.
 */
import { onExit } from "signal-exit";
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from "./key-chunks.js";

/**
 * Turns bracketed paste on for `stdout` (when it is a terminal) and returns what turns it off.
 *
 * Contract: the returned function may be called any number of times, only the first writes; if it is
 * never called, the mode is turned off when the process exits, by an uncaught error or a signal too.
 */
export function enableBracketedPaste(stdout: NodeJS.WriteStream): () => void {
  if (stdout.isTTY !== true) return () => undefined;
  stdout.write(BRACKETED_PASTE_ON);
  let on = true;
  const off = () => {
    if (!on) return;
    on = false;
    removeExitHandler();
    try {
      stdout.write(BRACKETED_PASTE_OFF);
    } catch {
      // The terminal is gone: nothing to restore.
    }
  };
  const removeExitHandler = onExit(() => {
    off();
  });
  return off;
}
