/**
 * Ids from the Web Crypto API on `globalThis.crypto` (Node ≥ 20 and every browser have it), so the package
 * reaches no Node built-in and bundles for a browser.
 */

/** `count` cryptographically random bytes as lowercase hex (two characters a byte). */
function randomHex(count: number): string {
  const bytes = crypto.getRandomValues(new Uint8Array(count));
  let hex = "";
  for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
  return hex;
}

/**
 * A fresh entry id: 8 lowercase hex characters (as the pi agent writes them), different from every id
 * `taken` holds. Falls back to a full UUID in the (astronomically unlikely) case of 100 collisions.
 */
export function generateEntryId(taken: { has(id: string): boolean }): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = randomHex(4);
    if (!taken.has(id)) return id;
  }
  return crypto.randomUUID();
}

/** A fresh session id (a random UUID). */
export function generateSessionId(): string {
  return crypto.randomUUID();
}
