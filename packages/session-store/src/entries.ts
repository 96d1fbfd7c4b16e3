/**
 * PRELIMINARY — to be replaced by the TypeBox schemas of every entry type (same exported names).
 */

/** Line 1 of a session: `{"type":"session","version":3,"id","timestamp","cwd","parentSession?","metadata?"}`. */
export interface SessionHeader {
  type: "session";
  version: number;
  id: string;
  timestamp: string;
  cwd: string;
  parentSession?: string;
  metadata?: Record<string, unknown>;
  [field: string]: unknown;
}

/** Any entry: `{type, id, parentId, timestamp, ...}`. */
export interface SessionEntry {
  type: string;
  id: string;
  parentId: string | null;
  timestamp: string;
  [field: string]: unknown;
}
