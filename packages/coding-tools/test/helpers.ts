import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { AgentTool, AgentToolResult, AgentToolUpdate } from "@arbor/agent-core";
import { validateToolArguments } from "@arbor/ai-providers";
import { afterEach } from "vitest";

const created: string[] = [];

/**
 * A fresh temporary directory (its real path, so it compares equal to what tools resolve), removed after
 * the test. `files` maps relative paths to contents.
 */
export async function tempDirectory(files: Record<string, string | Buffer> = {}): Promise<string> {
  const directory = await realpath(await mkdtemp(join(tmpdir(), "arbor-coding-tools-")));
  created.push(directory);
  await writeFiles(directory, files);
  return directory;
}

/** Writes files (creating directories) below `root`. */
export async function writeFiles(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [path, content] of Object.entries(files)) {
    const absolute = join(root, path);
    await mkdir(dirname(absolute), { recursive: true });
    await writeFile(absolute, content);
  }
}

afterEach(async () => {
  for (const directory of created.splice(0)) await rm(directory, { recursive: true, force: true });
});

/** What {@link callTool} returns: the result plus the updates the tool reported. */
export interface ToolCallOutcome<TDetails> extends AgentToolResult<TDetails> {
  /** The text blocks joined. */
  text: string;
  updates: AgentToolUpdate<TDetails>[];
}

/**
 * Calls a tool the way the agent loop does: `prepareArguments`, TypeBox validation (with defaults and
 * conversions), then `execute`. Fails the test when the arguments do not validate.
 */
export async function callTool<TDetails>(
  tool: AgentTool<never, TDetails> | AgentTool,
  rawArguments: Record<string, unknown>,
  options: { signal?: AbortSignal; onUpdate?: (update: AgentToolUpdate<TDetails>) => void } = {},
): Promise<ToolCallOutcome<TDetails>> {
  const typed = tool as unknown as AgentTool;
  const prepared = typed.prepareArguments ? await typed.prepareArguments(rawArguments) : rawArguments;
  const validation = validateToolArguments(typed, prepared);
  if (!validation.ok) throw new Error(`arguments rejected: ${validation.message}`);
  const updates: AgentToolUpdate<TDetails>[] = [];
  const result = (await typed.execute(validation.value as never, {
    toolCallId: "call-1",
    signal: options.signal ?? new AbortController().signal,
    onUpdate: (update) => {
      updates.push(update as AgentToolUpdate<TDetails>);
      options.onUpdate?.(update as AgentToolUpdate<TDetails>);
    },
  })) as AgentToolResult<TDetails>;
  return { ...result, text: textOf(result), updates };
}

/** The text blocks of a result joined with newlines. */
export function textOf(result: { content: AgentToolResult["content"] }): string {
  return result.content
    .filter((block) => block.type === "text")
    .map((block) => (block as { text: string }).text)
    .join("\n");
}

/** `count` numbered lines `line 1` … `line N`, each ending with a newline. */
export function numberedLines(count: number, prefix = "line "): string {
  let text = "";
  for (let line = 1; line <= count; line++) text += `${prefix}${line}\n`;
  return text;
}
