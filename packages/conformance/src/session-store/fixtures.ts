import { randomBytes, randomUUID } from "node:crypto";
import type { SessionEntry, SessionHeader } from "@arbor/session-store";
import { expect } from "vitest";

/**
 * Builders for the session-store suite. Every test makes its own ids (sessions, entries, working
 * directories) from random UUIDs, so a backend whose instances share storage (a database) can run the
 * suite without clean-up between tests.
 */

/** A session id no other test uses. */
export function newSessionId(): string {
  return `conformance-${randomUUID()}`;
}

/** A working directory no other test uses (listing tests filter on it). */
export function newCwd(): string {
  return `/conformance/${randomUUID()}`;
}

/** A fresh 8-hex entry id. */
export function newEntryId(): string {
  return randomBytes(4).toString("hex");
}

/** An ISO timestamp `seconds` after 2026-01-01T00:00:00Z. */
export function at(seconds: number): string {
  return new Date(Date.UTC(2026, 0, 1) + seconds * 1000).toISOString();
}

/** A version-3 header with a fresh id; `extra` may add or override fields (unknown ones included). */
export function makeHeader(extra: Partial<SessionHeader> & Record<string, unknown> = {}): SessionHeader {
  return {
    type: "session",
    version: 3,
    id: newSessionId(),
    timestamp: at(0),
    cwd: newCwd(),
    ...extra,
  } as SessionHeader;
}

/** A `message` entry holding a user message, about `size` characters long. */
export function userEntry(parentId: string | null, text: string, timestamp = at(1)): SessionEntry {
  return {
    type: "message",
    id: newEntryId(),
    parentId,
    timestamp,
    message: { role: "user", content: [{ type: "text", text }], timestamp: Date.parse(timestamp) },
  };
}

/** A `message` entry holding an assistant message. */
export function assistantEntry(parentId: string | null, text: string, timestamp = at(2)): SessionEntry {
  return {
    type: "message",
    id: newEntryId(),
    parentId,
    timestamp,
    message: {
      role: "assistant",
      content: [{ type: "text", text }],
      api: "scripted",
      provider: "conformance",
      model: "conformance-model",
      usage: {
        input: 10,
        output: 5,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: 15,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason: "stop",
      timestamp: Date.parse(timestamp),
    },
  };
}

/**
 * A linear chain of `count` alternating user / assistant entries after `parentId`, one second apart
 * from `start` seconds.
 */
export function chain(count: number, parentId: string | null = null, start = 10, size = 40): SessionEntry[] {
  const entries: SessionEntry[] = [];
  let parent = parentId;
  for (let index = 0; index < count; index++) {
    const text = `entry ${index} `.padEnd(size, "·");
    const entry =
      index % 2 === 0
        ? userEntry(parent, text, at(start + index))
        : assistantEntry(parent, text, at(start + index));
    entries.push(entry);
    parent = entry.id;
  }
  return entries;
}

/** An entry of a type no version knows, with nested data. */
export function unknownTypeEntry(parentId: string | null, timestamp = at(5)): SessionEntry {
  return {
    type: "x-conformance-future",
    id: newEntryId(),
    parentId,
    timestamp,
    payload: { nested: [1, "two", { three: true }], empty: {} },
  } as unknown as SessionEntry;
}

/** A `session_info` entry. */
export function nameEntry(parentId: string | null, name: string, timestamp = at(6)): SessionEntry {
  return { type: "session_info", id: newEntryId(), parentId, timestamp, name };
}

/** Asserts that `promise` rejects with an Arbor error of this `code` (e.g. `session_not_found`). */
export async function expectCode(promise: Promise<unknown>, code: string): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error, `expected a rejection with code "${code}"`).toBeInstanceOf(Error);
  expect((error as { code?: unknown }).code).toBe(code);
  return error;
}

/** The JSON round trip of a value: what a store gives back for what it was given. */
export function asStored<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
