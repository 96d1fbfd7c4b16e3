import { randomBytes, randomUUID } from "node:crypto";

/**
 * A fresh entry id: 8 lowercase hex characters (as the pi agent writes them), different from every id
 * `taken` holds. Falls back to a full UUID in the (astronomically unlikely) case of 100 collisions.
 */
export function generateEntryId(taken: { has(id: string): boolean }): string {
  for (let attempt = 0; attempt < 100; attempt++) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) return id;
  }
  return randomUUID();
}

/** A fresh session id (a random UUID). */
export function generateSessionId(): string {
  return randomUUID();
}
