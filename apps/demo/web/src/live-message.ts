/**
 * The assistant message being streamed, rebuilt on the page from the compact events (`text_delta`,
 * `thinking_delta`, `toolcall_delta` carry only their text; `tool_start` / `tool_update` / `tool_end`
 * report the tools running). Pure functions over plain data, so React can keep it in state.
 */
import type { ServerEvent } from "./api.js";

/** One block of the live message. */
export interface LiveBlock {
  kind: "text" | "thinking" | "toolcall";
  text: string;
}

/** A tool the model called, while and after it runs. */
export interface LiveTool {
  id: string;
  name: string;
  args: string;
  output: string;
  done: boolean;
  isError: boolean;
}

/** What streams right now. */
export interface LiveState {
  streaming: boolean;
  blocks: LiveBlock[];
  tools: LiveTool[];
}

/** Nothing streaming. */
export const IDLE: LiveState = { streaming: false, blocks: [], tools: [] };

const DELTA_KINDS: Record<string, LiveBlock["kind"]> = {
  text_delta: "text",
  thinking_delta: "thinking",
  toolcall_delta: "toolcall",
};

/** The live state after one event (the same object when the event changes nothing live). */
export function applyLiveEvent(state: LiveState, event: ServerEvent): LiveState {
  const kind = DELTA_KINDS[event.type];
  if (kind !== undefined) {
    const index = Number(event.contentIndex);
    const blocks = [...state.blocks];
    const block = blocks[index];
    blocks[index] = { kind, text: (block?.kind === kind ? block.text : "") + String(event.delta ?? "") };
    for (let at = 0; at < blocks.length; at++) blocks[at] ??= { kind: "text", text: "" };
    return { ...state, streaming: true, blocks };
  }
  switch (event.type) {
    case "agent_start":
      return { streaming: true, blocks: [], tools: [] };
    case "message_start":
      return { ...state, streaming: true, blocks: [] };
    case "message_end":
      return { ...state, blocks: [] };
    case "tool_start":
      return {
        ...state,
        tools: [
          ...state.tools,
          {
            id: String(event.toolCallId),
            name: String(event.name),
            args: JSON.stringify(event.args ?? {}),
            output: "",
            done: false,
            isError: false,
          },
        ],
      };
    case "tool_update":
      return {
        ...state,
        tools: state.tools.map((tool) =>
          tool.id === event.toolCallId
            ? {
                ...tool,
                output: typeof event.text === "string" ? event.text : tool.output + String(event.delta ?? ""),
              }
            : tool,
        ),
      };
    case "tool_end":
      return {
        ...state,
        tools: state.tools.map((tool) =>
          tool.id === event.toolCallId ? { ...tool, done: true, isError: event.isError === true } : tool,
        ),
      };
    case "agent_end":
    case "settled":
      return IDLE;
    default:
      return state;
  }
}
