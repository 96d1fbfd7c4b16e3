import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Type } from "@sinclair/typebox";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type CassetteEntry,
  CassetteError,
  normalizeRequest,
  readCassette,
  requestKey,
  sanitizeModel,
  stableStringify,
} from "../src/recording/cassette.js";
import { createRecordingProvider } from "../src/recording/recording-provider.js";
import { createScriptedProvider, script } from "../src/testing/index.js";
import type { Context } from "../src/types.js";
import { collect, testModel } from "./helpers.js";

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), "arbor-cassette-"));
});
afterEach(() => {
  rmSync(directory, { recursive: true, force: true });
});

const context = (timestamp: number): Context => ({
  systemPrompt: "Be brief.",
  messages: [{ role: "user", content: "Read the file", timestamp }],
  tools: [{ name: "read", description: "Read a file", parameters: Type.Object({ path: Type.String() }) }],
});

describe("normalizeRequest and requestKey", () => {
  it("keep what the model sees and drop keys, headers, signals, hooks and timestamps", () => {
    const model = testModel({ headers: { authorization: "Bearer secret" } });
    const request = normalizeRequest(model, context(1), {
      apiKey: "sk-secret",
      headers: { "x-api-key": "secret" },
      signal: new AbortController().signal,
      onPayload: () => undefined,
      sessionId: "session-1",
      reasoning: "high",
      maxTokens: 512,
    });
    const text = JSON.stringify(request);
    expect(text).not.toContain("secret");
    expect(text).not.toContain("session-1");
    expect(request).toEqual({
      model: "test/test-model",
      api: "openai-completions",
      systemPrompt: "Be brief.",
      messages: [{ role: "user", content: "Read the file" }],
      tools: [
        {
          name: "read",
          description: "Read a file",
          parameters: {
            type: "object",
            properties: { path: { type: "string" } },
            required: ["path"],
          },
        },
      ],
      options: { reasoning: "high", maxTokens: 512 },
    });
  });

  it("give the same key to the same request asked at another time, and another key otherwise", () => {
    const model = testModel();
    const key = (value: Context, options = {}) => requestKey(normalizeRequest(model, value, options));
    expect(key(context(1))).toBe(key(context(999)));
    expect(key(context(1))).toMatch(/^[0-9a-f]{64}$/);
    expect(key(context(1), { reasoning: "low" })).not.toBe(key(context(1)));
    expect(key({ ...context(1), systemPrompt: "Be verbose." })).not.toBe(key(context(1)));
    expect(requestKey(normalizeRequest(testModel({ id: "other" }), context(1)))).not.toBe(key(context(1)));
  });

  it("stableStringify sorts keys at every level and keeps array order", () => {
    expect(stableStringify({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: undefined } })).toBe(
      '{"a":{"d":[3,{"y":2,"z":1}]},"b":1}',
    );
  });

  it("sanitizeModel removes headers that may carry credentials", () => {
    const model = sanitizeModel(
      testModel({ headers: { Authorization: "x", "X-Api-Key": "y", "anthropic-beta": "feature" } }),
    );
    expect(model.headers).toEqual({ "anthropic-beta": "feature" });
  });
});

describe("createRecordingProvider", () => {
  it("passes events through unchanged and appends one stable line per interaction", async () => {
    const file = join(directory, "nested", "session.jsonl");
    const inner = createScriptedProvider([
      script.toolCall("read", { path: "README.md" }, { id: "call_1" }),
      script.text("Done."),
    ]);
    const recorder = createRecordingProvider(inner, file);
    expect(recorder.id).toBe("scripted");
    expect(recorder.models).toBe(inner.models);

    const first = recorder.stream(inner.model, context(1), { apiKey: "sk-never-written" });
    const events = await collect(first);
    expect(events.map((event) => event.type)).toEqual([
      "start",
      "toolcall_start",
      ...Array(Math.ceil('{"path":"README.md"}'.length / 4)).fill("toolcall_delta"),
      "toolcall_end",
      "done",
    ]);
    await collect(recorder.stream(inner.model, context(2)));

    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("sk-never-written");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    const entry = JSON.parse(lines[0]!) as CassetteEntry;
    expect(lines[0]).toBe(stableStringify(entry));
    expect(entry.key).toBe(requestKey(normalizeRequest(inner.model, context(1))));
    expect(entry.events[0]).toEqual({ type: "start" });
    expect(entry.events[1]).toEqual({ type: "toolcall_start", contentIndex: 0 });
    expect(entry.events[2]).toEqual({ type: "toolcall_delta", contentIndex: 0, delta: '{"pa' });
    expect(entry.events.at(-1)).toEqual({ type: "done", reason: "toolUse" });
    expect(entry.message).toEqual(await first.result());
    expect(readCassette(file).map((recorded) => recorded.message.stopReason)).toEqual(["toolUse", "stop"]);
  });

  it("records failures, and does not record a request aborted before it started", async () => {
    const file = join(directory, "failures.jsonl");
    const inner = createScriptedProvider([script.error("503 Service Unavailable"), script.text("unused")]);
    const recorder = createRecordingProvider(inner, file);
    const failed = await recorder.stream(inner.model, context(1)).result();
    expect(failed.stopReason).toBe("error");
    const controller = new AbortController();
    controller.abort();
    const aborted = await recorder.stream(inner.model, context(1), { signal: controller.signal }).result();
    expect(aborted.stopReason).toBe("aborted");
    const entries = readCassette(file);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.message.errorMessage).toBe("503 Service Unavailable");
    expect(entries[0]!.events.at(-1)).toEqual({ type: "error", reason: "error" });
  });

  it("turns an inner provider that throws into an error message, recording nothing", async () => {
    const file = join(directory, "throwing.jsonl");
    const inner = createScriptedProvider([]);
    const broken = {
      ...inner,
      stream: () => {
        throw new Error("broken provider");
      },
    };
    const result = await createRecordingProvider(broken, file).stream(inner.model, context(1)).result();
    expect(result).toMatchObject({
      stopReason: "error",
      errorMessage: "Recording provider: broken provider",
    });
    expect(() => readCassette(file)).toThrow(CassetteError);
  });

  it("ends the stream with an error naming the cassette when the line cannot be written", async () => {
    const blocker = join(directory, "a-file");
    writeFileSync(blocker, "");
    const inner = createScriptedProvider([script.text("Hello")]);
    const recorder = createRecordingProvider(inner, join(blocker, "cassette.jsonl")); // parent is a file
    const stream = recorder.stream(inner.model, context(1));
    const events = await collect(stream);
    const result = await stream.result();
    expect(events.at(-1)?.type).toBe("error");
    expect(result.stopReason).toBe("error");
    expect(result.content).toEqual([{ type: "text", text: "Hello" }]);
    expect(result.errorMessage).toMatch(
      /^Recording failed: could not append to the cassette .*cassette\.jsonl: /,
    );
  });
});

describe("readCassette", () => {
  it("throws a CassetteError for a missing file", () => {
    expect(() => readCassette(join(directory, "missing.jsonl"))).toThrow(CassetteError);
    expect(() => readCassette(join(directory, "missing.jsonl"))).toThrow(/no such file \(record one first\)/);
  });

  it("ignores a torn last line but rejects a bad line in the middle, naming it", async () => {
    const file = join(directory, "torn.jsonl");
    const inner = createScriptedProvider([script.text("One"), script.text("Two")]);
    const recorder = createRecordingProvider(inner, file);
    await recorder.stream(inner.model, context(1)).result();
    await recorder.stream(inner.model, context(2)).result();
    const [first, second] = readFileSync(file, "utf8").trimEnd().split("\n");
    writeFileSync(file, `${first}\n${second!.slice(0, 40)}`);
    expect(readCassette(file)).toHaveLength(1);
    writeFileSync(file, `${first!.slice(0, 40)}\n${second}\n`);
    expect(() => readCassette(file)).toThrow(/line 1 is not JSON/);
    writeFileSync(file, `${first}\n{"key":"x"}\n`);
    expect(() => readCassette(file)).toThrow(/line 2 is not a cassette entry/);
    writeFileSync(file, `${first!.replace('"version":1', '"version":99')}\n`);
    expect(() => readCassette(file)).toThrow(/format version 99; this version reads 1/);
  });
});
