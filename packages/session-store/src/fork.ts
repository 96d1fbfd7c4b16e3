import {
  CURRENT_SESSION_VERSION,
  type LabelEntry,
  type SessionEntry,
  type SessionHeader,
} from "./entries.js";
import { generateEntryId, generateSessionId } from "./ids.js";
import { NONE, type SessionIndex } from "./session-index.js";
import type { ForkOptions } from "./session-options.js";
import type { SessionStore } from "./store.js";

/**
 * Writes a new session holding the path from the root to `entryId` (or to its parent, for
 * `position: "before"`): the header names `parent` as `parentSession`; the entries are deep copies
 * (ids, timestamps and unknown fields kept; unreadable ones left out); then fresh `label` entries make
 * the labels of the copied entries what they are in the parent session (labels set on other branches
 * are carried over, labels cleared there are cleared). Returns what it wrote.
 */
export async function forkSession(
  index: SessionIndex,
  store: SessionStore,
  parent: SessionHeader,
  entryId: string,
  options: ForkOptions,
  now: () => Date,
): Promise<{ header: SessionHeader; entries: SessionEntry[] }> {
  const path = index.path(index.orderOf(entryId) ?? NONE);
  if (options.position === "before") path.pop();

  const entries: SessionEntry[] = [];
  const copied = new Set<string>();
  const copiedLabels = new Map<string, string>();
  for (const order of path) {
    const entry = index.entry(order);
    if (entry === undefined) continue;
    entries.push(structuredClone(entry));
    copied.add(entry.id);
    if (entry.type === "label" && typeof entry.targetId === "string") {
      if (entry.label === undefined || entry.label === "") copiedLabels.delete(entry.targetId);
      else copiedLabels.set(entry.targetId, entry.label);
    }
  }

  const timestamp = now().toISOString();
  let parentId = entries.at(-1)?.id ?? null;
  const relabel = (targetId: string, label: string | undefined): void => {
    const entry: LabelEntry = { type: "label", id: generateEntryId(copied), parentId, timestamp, targetId };
    if (label !== undefined) entry.label = label;
    copied.add(entry.id);
    entries.push(entry);
    parentId = entry.id;
  };
  for (const [targetId, label] of index.labels) {
    if (copied.has(targetId) && copiedLabels.get(targetId) !== label) relabel(targetId, label);
  }
  for (const targetId of copiedLabels.keys()) {
    if (!index.labels.has(targetId)) relabel(targetId, undefined);
  }

  const header: SessionHeader = {
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id: options.id ?? generateSessionId(),
    timestamp,
    cwd: options.cwd ?? parent.cwd,
    parentSession: parent.id,
  };
  if (options.metadata !== undefined) header.metadata = structuredClone(options.metadata);
  await store.createSession(header);
  if (entries.length > 0) await store.appendEntries(header.id, entries, { expectedLastEntryId: null });
  return { header, entries };
}
