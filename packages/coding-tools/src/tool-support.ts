import type { AgentToolResult } from "@arbor/agent-core";

/** A successful result with one text block. */
export function textResult<TDetails>(text: string, details?: TDetails): AgentToolResult<TDetails> {
  const result: AgentToolResult<TDetails> = { content: [{ type: "text", text }] };
  if (details !== undefined) result.details = details;
  return result;
}

/** A failed result (`isError: true`) with one text block the model can act on. */
export function errorResult<TDetails>(text: string, details?: TDetails): AgentToolResult<TDetails> {
  const result: AgentToolResult<TDetails> = { content: [{ type: "text", text }], isError: true };
  if (details !== undefined) result.details = details;
  return result;
}

/**
 * Accepts the path argument under the names other agents use (`file_path`, `filePath`), so a model
 * trained on them still reaches the tool.
 */
export function acceptPathAliases(raw: Record<string, unknown>): Record<string, unknown> {
  if (raw.path !== undefined) return raw;
  for (const alias of ["file_path", "filePath"]) {
    const value = raw[alias];
    if (typeof value === "string") {
      const { [alias]: _removed, ...rest } = raw;
      return { ...rest, path: value };
    }
  }
  return raw;
}

/** The error code of a failed `fs` call (`ENOENT`, `EACCES`, …), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** A sentence for a failed file-system call on `display`, e.g. `Permission denied: src/a.ts.`. */
export function describeFileError(error: unknown, display: string): string {
  switch (errorCode(error)) {
    case "ENOENT":
      return `File not found: ${display}.`;
    case "EACCES":
    case "EPERM":
      return `Permission denied: ${display}.`;
    case "EISDIR":
      return `${display} is a directory.`;
    case "ENOTDIR":
      return `A component of ${display} is not a directory.`;
    default:
      return `Cannot access ${display}: ${error instanceof Error ? error.message : String(error)}`;
  }
}
