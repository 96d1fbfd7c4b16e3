/**
 * What Arbor does with each kind of output item a Responses stream carries: read it, knowingly skip it,
 * or report it as unreadable (docs/reference/provider-openai.md has the same table).
 *
 * - Read: `message` (text), `reasoning` (thinking), `function_call` (a tool call).
 * - Knowingly skipped: tools the server runs itself, whose outcome the model's text then reports, and
 *   the server's bookkeeping around them — see {@link SKIPPED_OUTPUT_ITEMS}.
 * - Unreadable (a notice beside the answer, or an error naming it when there is no answer): every other
 *   item. Among them the calls the model asks the client to run that Arbor cannot represent or answer:
 *   `custom_tool_call` (free-form input, answered by a `custom_tool_call_output`), `apply_patch_call`,
 *   `local_shell_call`, a `shell_call` outside a hosted container, a `tool_search_call` with client
 *   execution, `computer_call`, `mcp_approval_request` (the server waits for an approval); an
 *   `image_generation_call` (its image is the answer, and Arbor's messages hold no images); a `program`
 *   (code the model runs on the server around the function calls it makes, which would have to be sent
 *   back); and any type Arbor does not know.
 */

/** An output item as far as the reader looks at it. */
export interface OutputItem {
  id?: string;
  type?: string;
  call_id?: string | null;
  name?: string;
  arguments?: string;
  phase?: string | null;
  status?: string;
  summary?: { type?: string; text?: string }[];
  content?: { type?: string; text?: string; refusal?: string }[];
  encrypted_content?: string | null;
  execution?: string;
  environment?: { type?: string } | null;
}

/** The item types read into content blocks. */
export type ReadItemType = "message" | "reasoning" | "function_call";

/** True for the item types read into content blocks. */
export function isReadItemType(type: string | undefined): type is ReadItemType {
  return type === "message" || type === "reasoning" || type === "function_call";
}

/**
 * Output item types knowingly not read, and why: tools the server runs itself (their outcome reaches
 * the user through the model's text, their sources as annotations) and items of the server's own
 * bookkeeping. `tool_search_call` and `shell_call` are skipped only when the server ran them (see
 * {@link unreadableItem}).
 */
export const SKIPPED_OUTPUT_ITEMS: Readonly<Record<string, string>> = Object.freeze({
  web_search_call: "the hosted web search",
  file_search_call: "the hosted file search over vector stores",
  code_interpreter_call: "code the hosted code interpreter ran",
  mcp_call: "a call the server made to a remote MCP server",
  mcp_list_tools: "the tool list of a remote MCP server",
  tool_search_call: "a tool search the server ran (execution: server)",
  tool_search_output: "the tools a tool search found",
  shell_call: "shell commands run in a hosted container",
  shell_call_output: "the output of shell commands the server ran",
  program_output: "the result of a program the server ran",
  compaction: "the server's encrypted summary of earlier context (Arbor compacts history itself)",
});

/** True when the server ran this call itself (its outcome is in the model's text). */
function ranOnServer(item: OutputItem): boolean {
  if (item.type === "tool_search_call") return item.execution === "server";
  if (item.type === "shell_call") return item.environment?.type?.startsWith("container") === true;
  return true;
}

/**
 * How to name an item Arbor cannot read, for `writer.unreadable()`; `undefined` for an item that is read
 * or knowingly skipped.
 */
export function unreadableItem(item: OutputItem): string | undefined {
  const type = item.type ?? "(no type)";
  if (isReadItemType(type)) return undefined;
  if (type in SKIPPED_OUTPUT_ITEMS && ranOnServer(item)) return undefined;
  const name = typeof item.name === "string" && item.name.length > 0 ? ` named "${item.name}"` : "";
  return `output item "${type}"${name}`;
}
