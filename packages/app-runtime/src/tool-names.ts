/**
 * `@arbor/app-runtime/names`: the names `--tools` and `settings.json` accept, and the thinking levels
 * `--thinking` accepts, as plain constants: a flag parser imports them without loading the runtime or the
 * packages that define them (a test checks that they stay equal to `CODING_TOOL_NAMES` + `recall` and to
 * `THINKING_LEVELS`).
 */

/** The coding tools (`@arbor/coding-tools`) and the harness's `recall` tool. */
export const TOOL_NAMES = ["read", "write", "edit", "bash", "ls", "grep", "find", "recall"] as const;

/** A tool name `--tools` accepts. */
export type ToolName = (typeof TOOL_NAMES)[number];

/** The thinking levels (`THINKING_LEVELS` of `@arbor/ai-providers`). */
export const THINKING_LEVEL_NAMES = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
