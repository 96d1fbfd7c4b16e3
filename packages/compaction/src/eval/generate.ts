import { emptyUsage } from "@arbor/ai-providers";
import type { SessionEntry } from "@arbor/session-store";

/**
 * A generated long coding session, deterministic for a given number of turns: each turn the user asks for
 * a change (now and then stating a constraint or a number), the assistant reads a file, edits another
 * (every seventh edit fails with an error), and answers naming a function. For evaluating compaction on
 * sessions longer than the fixtures.
 */
export function generateLongSession(turns: number, options: { fileChars?: number } = {}): SessionEntry[] {
  const entries: SessionEntry[] = [];
  const start = Date.UTC(2026, 0, 1);
  let parentId: string | null = null;
  let clock = 0;
  const add = (message: Record<string, unknown>) => {
    const time = start + clock++ * 1000;
    const id = `g${entries.length.toString(16).padStart(7, "0")}`;
    entries.push({
      type: "message",
      id,
      parentId,
      timestamp: new Date(time).toISOString(),
      message: { ...message, timestamp: time },
    } as unknown as SessionEntry);
    parentId = id;
  };
  const usage = emptyUsage();
  const assistant = (content: unknown[], stopReason: string) =>
    add({ role: "assistant", content, api: "eval", provider: "eval", model: "generated", usage, stopReason });
  const body = "x".repeat(options.fileChars ?? 1200);
  for (let turn = 1; turn <= turns; turn++) {
    const module = `src/module-${turn % 40}/part-${turn}.ts`;
    const edited = `src/feature-${turn}.ts`;
    const constraint =
      turn % 5 === 0 ? ` The change must keep the public API of parseConfig${turn} unchanged.` : "";
    const number = turn % 3 === 0 ? ` Use a limit of ${turn * 128} entries.` : "";
    add({
      role: "user",
      content: [
        {
          type: "text",
          text: `Turn ${turn}: update \`handleRequest${turn}\` in ${edited}.${constraint}${number}`,
        },
      ],
    });
    assistant(
      [{ type: "toolCall", id: `read-${turn}`, name: "read", arguments: { path: module } }],
      "toolUse",
    );
    add({
      role: "toolResult",
      toolCallId: `read-${turn}`,
      toolName: "read",
      content: [{ type: "text", text: `// ${module}\n${body}` }],
      isError: false,
    });
    const fails = turn % 7 === 0;
    assistant(
      [
        {
          type: "toolCall",
          id: `edit-${turn}`,
          name: "edit",
          arguments: { path: edited, oldText: "a", newText: "b" },
        },
      ],
      "toolUse",
    );
    add({
      role: "toolResult",
      toolCallId: `edit-${turn}`,
      toolName: "edit",
      content: [
        { type: "text", text: fails ? `Error: oldText not found in ${edited} (turn ${turn})` : "edited" },
      ],
      isError: fails,
    });
    assistant(
      [
        {
          type: "text",
          text: fails
            ? `The edit of ${edited} failed; retrying next turn.`
            : `Updated handleRequest${turn} in ${edited}.`,
        },
      ],
      "stop",
    );
  }
  return entries;
}

/**
 * The branch of a session file's entries: the path from the root to `leafId` (default: the last entry,
 * the leaf a file ends with), root first.
 *
 * Contract: pure; O(entries); stops at a missing parent or a cycle.
 */
export function branchOfEntries(entries: readonly SessionEntry[], leafId?: string): SessionEntry[] {
  const byId = new Map<string, SessionEntry>();
  for (const entry of entries) byId.set(entry.id, entry);
  const branch: SessionEntry[] = [];
  const seen = new Set<string>();
  let current: SessionEntry | undefined = leafId === undefined ? entries.at(-1) : byId.get(leafId);
  while (current !== undefined && !seen.has(current.id)) {
    seen.add(current.id);
    branch.push(current);
    current = current.parentId === null ? undefined : byId.get(current.parentId);
  }
  return branch.reverse();
}
