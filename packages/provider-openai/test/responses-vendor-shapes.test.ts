import type { Model } from "@arbor/ai-providers";
import { type OpenAIWireServer, responsesFrames, startOpenAIWireServer } from "@internal/conformance";
import { afterEach, describe, expect, it } from "vitest";
import { createOpenAIProvider } from "../src/index.js";
import { ask, drain } from "./helpers/run.js";

// Event shapes copied from streams recorded from the vendors' APIs (vercel/ai's test fixtures).

type Event = { type: string } & Record<string, unknown>;

let server: OpenAIWireServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function replay(events: Event[]) {
  server = await startOpenAIWireServer([{ kind: "sse", frames: responsesFrames(events) }]);
  const provider = createOpenAIProvider({ baseURL: server.url, apiKey: "k", api: "responses" });
  const model = provider.unlistedModel("vendor-model") as Model;
  return drain(provider.stream(model, ask("Hi")));
}

const USAGE = { input_tokens: 19, input_tokens_details: { cached_tokens: 0 }, output_tokens: 105 };

function created(id = "resp_1"): Event {
  return { type: "response.created", response: { id, status: "in_progress", output: [] } };
}

function completed(id = "resp_1"): Event {
  return { type: "response.completed", response: { id, status: "completed", usage: USAGE } };
}

/** An item added and done at once (hosted tools, client calls), as OpenAI streams them. */
function whole(output_index: number, item: Record<string, unknown>): Event[] {
  return [
    { type: "response.output_item.added", output_index, item: { ...item, status: "in_progress" } },
    { type: "response.output_item.done", output_index, item: { ...item, status: "completed" } },
  ];
}

/** A message item streamed in `pieces`, its `output_text.done` holding `full` (default: the pieces). */
function message(output_index: number, id: string, pieces: string[], full = pieces.join("")): Event[] {
  const part = { type: "output_text", annotations: [], text: full };
  return [
    { type: "response.output_item.added", output_index, item: { id, type: "message", content: [] } },
    ...pieces.map((delta) => ({
      type: "response.output_text.delta",
      item_id: id,
      output_index,
      content_index: 0,
      delta,
    })),
    { type: "response.output_text.done", item_id: id, output_index, content_index: 0, text: full },
    { type: "response.output_item.done", output_index, item: { id, type: "message", content: [part] } },
  ];
}

describe("Responses: a stream whose ids change on every event (GitHub Copilot)", () => {
  it("reads each item once, by output_index, and keeps the ids of output_item.done", async () => {
    let n = 2;
    const id = () => `capture-id-${++n}`;
    const summary = [
      { type: "summary_text", text: "**Counting**" },
      { type: "summary_text", text: "Three r's." },
    ];
    const text = "There are **3** r's.";
    const events: Event[] = [
      created("capture-id-1"),
      { type: "response.in_progress", response: { id: "capture-id-2" } },
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { id: id(), type: "reasoning", summary: [], encrypted_content: null },
      },
      ...summary.flatMap((part, summary_index) => [
        {
          type: "response.reasoning_summary_part.added",
          item_id: id(),
          output_index: 0,
          summary_index,
          part: { type: "summary_text", text: "" },
        },
        {
          type: "response.reasoning_summary_text.delta",
          item_id: id(),
          output_index: 0,
          summary_index,
          delta: part.text,
        },
        {
          type: "response.reasoning_summary_text.done",
          item_id: id(),
          output_index: 0,
          summary_index,
          text: part.text,
        },
        { type: "response.reasoning_summary_part.done", item_id: id(), output_index: 0, summary_index, part },
      ]),
      {
        type: "response.output_item.done",
        output_index: 0,
        item: { id: "rs_final", type: "reasoning", summary, encrypted_content: "enc" },
      },
      {
        type: "response.output_item.added",
        output_index: 1,
        item: { id: id(), type: "message", phase: "final_answer", content: [] },
      },
      ...["There", " are", " **3**", " r's."].map((delta) => ({
        type: "response.output_text.delta",
        item_id: id(),
        output_index: 1,
        content_index: 0,
        delta,
      })),
      { type: "response.output_text.done", item_id: id(), output_index: 1, content_index: 0, text },
      {
        type: "response.output_item.done",
        output_index: 1,
        item: {
          id: "msg_final",
          type: "message",
          phase: "final_answer",
          content: [{ type: "output_text", annotations: [], text }],
        },
      },
      {
        type: "response.output_item.added",
        output_index: 2,
        item: { id: id(), type: "function_call", call_id: "call_1", name: "count", arguments: "" },
      },
      ...['{"letter":', '"r"}'].map((delta) => ({
        type: "response.function_call_arguments.delta",
        item_id: id(),
        output_index: 2,
        delta,
      })),
      {
        type: "response.function_call_arguments.done",
        item_id: id(),
        output_index: 2,
        arguments: '{"letter":"r"}',
      },
      {
        type: "response.output_item.done",
        output_index: 2,
        item: {
          id: "fc_final",
          type: "function_call",
          call_id: "call_1",
          name: "count",
          arguments: '{"letter":"r"}',
        },
      },
      completed("capture-id-69"),
    ];
    server = await startOpenAIWireServer([
      { kind: "sse", frames: responsesFrames(events) },
      {
        kind: "sse",
        frames: responsesFrames([created("resp_2"), ...message(0, "msg_2", ["3."]), completed("resp_2")]),
      },
    ]);
    const provider = createOpenAIProvider({ baseURL: server.url, apiKey: "k", preset: "openai" });
    const model = provider.resolveModel("gpt-5.4-mini") as Model;
    const context = ask("How many r's in strawberry?");
    const { result } = await drain(provider.stream(model, context));
    expect(result.stopReason).toBe("toolUse");
    expect(result.content).toHaveLength(3);
    const [thinking, answer, call] = result.content;
    expect(thinking).toMatchObject({ type: "thinking", thinking: "**Counting**\n\nThree r's." });
    const item = JSON.parse((thinking as { thinkingSignature: string }).thinkingSignature);
    expect(item).toMatchObject({ id: "rs_final", type: "reasoning", encrypted_content: "enc" });
    expect(answer).toEqual({
      type: "text",
      text,
      textSignature: '{"id":"msg_final","phase":"final_answer"}',
    });
    expect(call).toEqual({
      type: "toolCall",
      id: "call_1|fc_final",
      name: "count",
      arguments: { letter: "r" },
    });
    expect(result.notices).toBeUndefined();
    expect(result.responseId).toBe("capture-id-69");

    // The round trip sends the items back under their final ids.
    context.messages.push(result, {
      role: "toolResult",
      toolCallId: "call_1|fc_final",
      toolName: "count",
      content: [{ type: "text", text: "3" }],
      isError: false,
      timestamp: 2,
    });
    await drain(provider.stream(model, context));
    expect(server.requests[1]?.body?.input).toEqual([
      { type: "message", role: "developer", content: "You are terse." },
      { type: "message", role: "user", content: "How many r's in strawberry?" },
      { type: "reasoning", id: "rs_final", summary, encrypted_content: "enc" },
      {
        type: "message",
        role: "assistant",
        id: "msg_final",
        status: "completed",
        content: [{ type: "output_text", text, annotations: [] }],
        phase: "final_answer",
      },
      {
        type: "function_call",
        call_id: "call_1",
        name: "count",
        arguments: '{"letter":"r"}',
        id: "fc_final",
      },
      { type: "function_call_output", call_id: "call_1", output: "3" },
    ]);
  });
});

describe("Responses: output items Arbor does not read", () => {
  it("skips tools the server ran (web search, file search, code interpreter, MCP, hosted shell, tool search) and annotations", async () => {
    const { result } = await replay([
      created(),
      ...whole(0, { id: "mcpl_1", type: "mcp_list_tools", server_label: "zip1", tools: [] }),
      ...whole(1, { id: "ws_1", type: "web_search_call", action: { type: "search", query: "news" } }),
      ...whole(2, { id: "fs_1", type: "file_search_call", queries: ["embedding"], results: null }),
      ...whole(3, { id: "ci_1", type: "code_interpreter_call", code: "print(1)", container_id: "cntr_1" }),
      ...whole(4, { id: "mcp_1", type: "mcp_call", name: "shorten", arguments: "{}", output: "ok" }),
      ...whole(5, {
        id: "sh_1",
        type: "shell_call",
        call_id: "call_sh",
        action: { commands: ["uname -a"] },
        environment: { type: "container_reference", container_id: "cntr_1" },
      }),
      ...whole(6, { id: "sho_1", type: "shell_call_output", call_id: "call_sh", output: [] }),
      ...whole(7, { id: "tsc_1", type: "tool_search_call", execution: "server", call_id: null }),
      ...whole(8, { id: "tso_1", type: "tool_search_output", execution: "server", tools: [] }),
      ...whole(9, { id: "cmp_1", type: "compaction", encrypted_content: "gAAAA" }),
      ...message(10, "msg_1", ["Here is ", "the news."]),
      {
        type: "response.output_text.annotation.added",
        item_id: "msg_1",
        output_index: 10,
        content_index: 0,
        annotation: { type: "url_citation", url: "https://example.com", start_index: 0, end_index: 4 },
      },
      completed(),
    ]);
    expect(result.stopReason).toBe("stop");
    expect(result.content).toEqual([{ type: "text", text: "Here is the news.", textSignature: "msg_1" }]);
    expect(result.notices).toBeUndefined();
  });

  it.each([
    [
      "custom_tool_call",
      { type: "custom_tool_call", call_id: "call_1", name: "write_sql", input: "SELECT 1" },
    ],
    ["apply_patch_call", { type: "apply_patch_call", call_id: "call_1", operation: { type: "delete_file" } }],
    ["local_shell_call", { type: "local_shell_call", call_id: "call_1", action: { command: ["ls"] } }],
    ["shell_call", { type: "shell_call", call_id: "call_1", action: { commands: ["ls -a ~/Desktop"] } }],
    ["tool_search_call", { type: "tool_search_call", call_id: "call_1", execution: "client", arguments: {} }],
    ["mcp_approval_request", { type: "mcp_approval_request", name: "create_short_url", arguments: "{}" }],
    ["image_generation_call", { type: "image_generation_call", result: "iVBORw0KGgo=" }],
    ["computer_call", { type: "computer_call", call_id: "call_1", action: { type: "click" } }],
  ])("ends in an error naming a %s when nothing else was read", async (type, item) => {
    const { result } = await replay([
      created(),
      ...whole(0, { id: "rs_1", type: "reasoning", summary: [] }),
      ...whole(1, { id: "item_1", ...item }),
      completed(),
    ]);
    expect(result.stopReason).toBe("error");
    expect(result.errorMessage).toContain(`output item "${type}"`);
  });

  it("keeps the answer and names what it could not read in notices", async () => {
    const { result } = await replay([
      created(),
      ...whole(0, { id: "ig_1", type: "image_generation_call", result: "iVBORw0KGgo=" }),
      ...whole(1, { id: "cm_1", type: "program", call_id: "call_p", code: "await tools.x()" }),
      ...message(2, "msg_1", ["Here is your image."]),
      ...whole(3, {
        id: "ctc_1",
        type: "custom_tool_call",
        call_id: "xs_1",
        name: "x_keyword_search",
        input: "{}",
      }),
      completed(),
    ]);
    expect(result.stopReason).toBe("stop");
    expect(result.content).toEqual([{ type: "text", text: "Here is your image.", textSignature: "msg_1" }]);
    expect(result.notices).toEqual([
      'Arbor could not read part of this response: output item "image_generation_call".',
      'Arbor could not read part of this response: output item "program".',
      'Arbor could not read part of this response: output item "custom_tool_call" named "x_keyword_search".',
    ]);
  });

  it("names a message part of a type it cannot read", async () => {
    const { result } = await replay([
      created(),
      ...message(0, "msg_1", ["Listen:"]).slice(0, -1),
      {
        type: "response.output_item.done",
        output_index: 0,
        item: {
          id: "msg_1",
          type: "message",
          content: [
            { type: "output_text", annotations: [], text: "Listen:" },
            { type: "output_audio", data: "UklGRg==", transcript: "Hello." },
          ],
        },
      },
      completed(),
    ]);
    expect(result.content).toEqual([{ type: "text", text: "Listen:", textSignature: "msg_1" }]);
    expect(result.notices).toEqual([
      'Arbor could not read part of this response: message part "output_audio".',
    ]);
  });
});

describe("Responses: text is read once, and none is lost", () => {
  it("completes a part from output_text.done when deltas are missing", async () => {
    // openai-phase.1: the recording keeps the first deltas only; the done events hold the whole text.
    const full = "Got it — I'll check today's AI headlines.";
    const { result } = await replay([
      created(),
      ...message(0, "msg_1", ["Got", " it"], full),
      ...message(1, "msg_2", ["Here are"], "Here are three headlines."),
      completed(),
    ]);
    expect(result.content).toEqual([
      { type: "text", text: full, textSignature: "msg_1" },
      { type: "text", text: "Here are three headlines.", textSignature: "msg_2" },
    ]);
  });

  it("reads summary text and arguments that arrive only whole (no deltas)", async () => {
    const { result } = await replay([
      created(),
      ...whole(0, { id: "rs_1", type: "reasoning", summary: [{ type: "summary_text", text: "Plan." }] }),
      {
        type: "response.output_item.added",
        output_index: 1,
        item: { id: "fc_1", type: "function_call", call_id: "c1", name: "f", arguments: "" },
      },
      {
        type: "response.function_call_arguments.done",
        item_id: "fc_1",
        output_index: 1,
        arguments: '{"a":1}',
      },
      {
        type: "response.output_item.done",
        output_index: 1,
        item: { id: "fc_1", type: "function_call", call_id: "c1", name: "f", arguments: '{"a":1}' },
      },
      completed(),
    ]);
    expect(result.content).toMatchObject([
      { type: "thinking", thinking: "Plan." },
      { type: "toolCall", id: "c1|fc_1", name: "f", arguments: { a: 1 } },
    ]);
  });

  it("does not merge a second response sent after response.completed", async () => {
    const { result } = await replay([
      created("resp_1"),
      ...message(0, "msg_1", ["First answer."]),
      completed("resp_1"),
      created("resp_2"),
      ...message(0, "msg_2", ["Second answer."]),
      completed("resp_2"),
    ]);
    expect(result.content).toEqual([{ type: "text", text: "First answer.", textSignature: "msg_1" }]);
    expect(result.responseId).toBe("resp_1");
    expect(result.notices).toEqual([
      "Arbor could not read part of this response: events after the end of the response.",
    ]);
  });
});
