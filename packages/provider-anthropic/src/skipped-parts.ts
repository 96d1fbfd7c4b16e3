/**
 * The parts of a Messages API stream the provider knowingly does not read. Everything else it does not
 * read is reported through `AssistantStreamWriter.unreadable()` (see `AnthropicStreamState`).
 */

/**
 * Content blocks of the tools Anthropic runs itself (server tools, MCP connectors, the advisor): the call
 * (`server_tool_use`, `mcp_tool_use`), its result (`*_tool_result`) and files it put in the code
 * execution container (`container_upload`). Their effect reaches the model on the server side and the
 * model's own text says what came of them, so the message keeps that text and leaves these blocks out.
 * Arbor never asks for these tools itself; they appear when a request hook (`onPayload`) adds them.
 */
export const SERVER_TOOL_BLOCKS: ReadonlySet<string> = new Set([
  "server_tool_use",
  "web_search_tool_result",
  "web_fetch_tool_result",
  "code_execution_tool_result",
  "bash_code_execution_tool_result",
  "text_editor_code_execution_tool_result",
  "tool_search_tool_result",
  "mcp_tool_use",
  "mcp_tool_result",
  "container_upload",
  "advisor_tool_result",
]);

/**
 * Deltas knowingly not read inside blocks that are read: `citations_delta` adds a citation (the source a
 * sentence of a text block rests on, e.g. a web search result) beside the text; the text itself arrives
 * whole through `text_delta`, and Arbor's messages carry no citations.
 */
export const SKIPPED_DELTAS: ReadonlySet<string> = new Set(["citations_delta"]);
