import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CORPUS_FOLDERS,
  type CorpusFolder,
  corpusFiles,
  loadStreamCorpus,
  readAnthropic,
  readChat,
  readCorpusManifest,
  readResponses,
  STREAM_CORPUS_DIR,
} from "../src/index.js";

const folders = Object.keys(CORPUS_FOLDERS) as CorpusFolder[];

describe("the recorded-stream corpus (fixtures/streams)", () => {
  it("holds at least 80 responses from at least 10 vendors", () => {
    const responses = folders.flatMap((folder) => loadStreamCorpus(folder));
    const vendors = new Set(responses.map((response) => response.vendor));
    expect(responses.length).toBeGreaterThanOrEqual(80);
    expect(vendors.size).toBeGreaterThanOrEqual(10);
  });

  it.each(folders)("%s: every file has its provenance and its licence, every entry its file", (folder) => {
    const manifest = readCorpusManifest(folder);
    const files = corpusFiles(folder);
    expect(Object.keys(manifest).sort()).toEqual(files);
    for (const [file, entry] of Object.entries(manifest)) {
      const { repository, path, commit, licence } = entry.source;
      expect(repository, file).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(path, file).not.toBe("");
      expect(commit, file).toMatch(/^[0-9a-f]{40}$/);
      expect(licence, file).not.toBe("");
      expect(entry.vendor, file).not.toBe("");
      expect(existsSync(join(STREAM_CORPUS_DIR, `LICENSE.${repository.replace("/", "-")}`)), file).toBe(true);
    }
  });

  it.each(folders)("%s: the committed readings are what the reader says today", (folder) => {
    const manifest = readCorpusManifest(folder);
    for (const file of corpusFiles(folder)) {
      const text = readFileSync(join(STREAM_CORPUS_DIR, folder, file), "utf8");
      expect(CORPUS_FOLDERS[folder](text), `${folder}/${file}: run scripts/read-stream-corpus.ts`).toEqual(
        manifest[file]?.responses,
      );
    }
  });
});

describe("the independent reading", () => {
  it("reads an Anthropic message delivered whole in message_start, and a spliced stream as broken", () => {
    const whole = readAnthropic([
      {
        type: "message_start",
        message: {
          id: "m1",
          content: [{ type: "tool_use", id: "t1", name: "roll", input: { n: 2 } }],
          stop_reason: "tool_use",
          usage: { input_tokens: 3, output_tokens: 4 },
        },
      },
      { type: "message_stop" },
    ]);
    expect(whole).toMatchObject({
      toolCalls: [{ id: "t1", name: "roll", arguments: { n: 2 } }],
      stopReason: "toolUse",
      usage: { input: 3, output: 4 },
    });
    const spliced = readAnthropic([
      { type: "message_start", message: { id: "a", content: [] } },
      {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: "t", name: "x", input: {} },
      },
      {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: '{"v":"Sp' },
      },
      { type: "message_start", message: { id: "b", content: [] } },
      { type: "message_stop" },
    ]);
    expect(spliced).toMatchObject({ stopReason: "error", toolCalls: [] });
  });

  it("reads Chat content arrays, Groq's x_groq usage and vendors that leave reasoning out of completion_tokens", () => {
    const reading = readChat([
      {
        choices: [
          { index: 0, delta: { content: [{ type: "thinking", thinking: [{ type: "text", text: "hm" }] }] } },
        ],
      },
      { choices: [{ index: 0, delta: { content: [{ type: "text", text: "4" }] }, finish_reason: "stop" }] },
      { choices: [], usage: { prompt_tokens: 10, completion_tokens: 2, total_tokens: 42 } },
    ]);
    expect(reading).toMatchObject({ text: "4", thinking: "hm", usage: { input: 10, output: 32 } });
    expect(
      readChat([{ choices: [], x_groq: { usage: { prompt_tokens: 5, completion_tokens: 6 } } }]).usage,
    ).toEqual({
      input: 5,
      output: 6,
      cacheRead: 0,
      cacheWrite: 0,
    });
  });

  it("correlates Responses events by output index when item ids change on every event", () => {
    const reading = readResponses([
      { type: "response.output_item.added", output_index: 0, item: { id: "a", type: "message" } },
      { type: "response.output_text.delta", output_index: 0, item_id: "b", delta: "Hel" },
      { type: "response.output_text.delta", output_index: 0, item_id: "c", delta: "lo" },
      {
        type: "response.output_item.done",
        output_index: 0,
        item: { id: "d", type: "message", content: [{ text: "Hello" }] },
      },
      {
        type: "response.completed",
        response: {
          usage: { input_tokens: 9, output_tokens: 2, input_tokens_details: { cached_tokens: 4 } },
        },
      },
    ]);
    expect(reading).toMatchObject({
      text: "Hello",
      stopReason: "stop",
      usage: { input: 5, output: 2, cacheRead: 4 },
    });
  });
});
