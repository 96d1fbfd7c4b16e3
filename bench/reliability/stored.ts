/**
 * Reading back what `arbor` stored, through the library (the API side of each check): the session opens,
 * its context has no orphan tool call or result, and the ids it holds.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { Session, type SessionStore } from "@arbor/session-store";
import { JsonlSessionStore } from "@arbor/session-store-jsonl";
import { PostgresSessionStore } from "@arbor/session-store-postgres";
import { SqliteSessionStore } from "@arbor/session-store-sqlite";
import type { Box, StoreUnderTest } from "./support.js";

/** A library store over what a box's `arbor` runs wrote. */
export function libraryStore(store: StoreUnderTest, box: Box): SessionStore {
  if (store.name === "jsonl") return new JsonlSessionStore({ home: box.home });
  if (store.name === "sqlite") return new SqliteSessionStore({ file: join(box.home, "sessions.db") });
  return PostgresSessionStore.fromUrl(process.env.DATABASE_URL as string);
}

/** What reopening a session found. */
export interface Reopened {
  /** The session does not exist (the process was killed before it created it). */
  missing: boolean;
  entryIds: Set<string>;
  warnings: string[];
  /** Tool calls without a result and results without a call in the built context. */
  orphans: string[];
  /** The error when the session could not be opened. */
  error?: string;
}

/** Tool call ids without a result, and result ids without a call, in a context's messages. */
export function orphansOf(messages: readonly unknown[]): string[] {
  const calls = new Set<string>();
  const results = new Set<string>();
  for (const message of messages as { role: string; content?: unknown; toolCallId?: string }[]) {
    if (message.role === "assistant" && Array.isArray(message.content)) {
      for (const block of message.content as { type: string; id?: string }[])
        if (block.type === "toolCall" && block.id !== undefined) calls.add(block.id);
    }
    if (message.role === "toolResult" && message.toolCallId !== undefined) results.add(message.toolCallId);
  }
  return [
    ...[...calls].filter((id) => !results.has(id)).map((id) => `call ${id} has no result`),
    ...[...results].filter((id) => !calls.has(id)).map((id) => `result ${id} has no call`),
  ];
}

/** Opens a session through the library, builds its context, and closes the store. */
export async function reopen(store: SessionStore, sessionId: string): Promise<Reopened> {
  try {
    const session = await Session.open(store, sessionId);
    const context = session.buildContext();
    const entryIds = new Set(
      session.getTree().flatMap(function walk(node): string[] {
        return [node.id, ...node.children.flatMap(walk)];
      }),
    );
    return {
      missing: false,
      entryIds,
      warnings: [...session.warnings],
      orphans: orphansOf(context.messages),
    };
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "session_not_found")
      return { missing: true, entryIds: new Set(), warnings: [], orphans: [] };
    return { missing: false, entryIds: new Set(), warnings: [], orphans: [], error: String(error) };
  } finally {
    await store.close?.();
  }
}

/** The JSONL file of a session in a box, if there is one. */
export function jsonlFileOf(box: Box, sessionId: string): string | undefined {
  const sessions = join(box.home, "sessions");
  let directories: string[];
  try {
    directories = readdirSync(sessions);
  } catch {
    return undefined;
  }
  for (const directory of directories) {
    let names: string[] = [];
    try {
      names = readdirSync(join(sessions, directory));
    } catch {
      continue;
    }
    const name = names.find((file) => file.endsWith(`_${sessionId}.jsonl`));
    if (name !== undefined) return join(sessions, directory, name);
  }
  return undefined;
}
