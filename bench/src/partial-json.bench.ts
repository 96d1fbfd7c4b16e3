/**
 * Streaming tool-argument parsing: is it O(L)?
 *
 * A 1 MB tool-call argument (a `write` call whose content is source code, JSON-escaped) is fed in
 * 16-byte deltas (a) to the StreamingJsonParser alone and (b) through the AssistantStreamWriter, the
 * path every provider uses (an event per delta, the partial object updated in place). The baseline is
 * one `JSON.parse` of the final string, measured in the same run. A second table feeds growing sizes
 * to show the time per byte stays flat (linear), next to a re-parse-on-every-delta strategy (what the
 * pi agent does), whose time per byte grows with the size (quadratic).
 */
import {
  AssistantStreamWriter,
  type Model,
  parsePartialJson,
  StreamingJsonParser,
} from "@arbor/ai-providers";
import type { Bench } from "./bench.js";
import { measure, ms } from "./measure.js";

const DELTA = 16;

const model: Model = {
  id: "bench",
  name: "bench",
  provider: "bench",
  api: "scripted",
  reasoning: false,
  input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  contextWindow: 200_000,
  maxTokens: 64_000,
};

/** JSON arguments of about `bytes` characters: a file write with code-like content. */
export function writeArguments(bytes: number): string {
  const line = '  const value = "quoted \\ text"; // tab\there, unicode é 😀\n';
  const content = line.repeat(Math.ceil(bytes / JSON.stringify(line).length));
  return JSON.stringify({ path: "src/generated/big-file.ts", content });
}

/** JSON arguments of about `bytes` characters made of many small objects (structure-heavy). */
export function editArguments(bytes: number): string {
  const edits: { oldText: string; newText: string; line: number; replaceAll: boolean }[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const edit = { oldText: `old ${i}`, newText: `new ${i}`, line: i, replaceAll: i % 2 === 0 };
    edits.push(edit);
    size += JSON.stringify(edit).length + 1;
  }
  return JSON.stringify({ path: "src/a.ts", edits });
}

function split(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function viaParser(deltas: readonly string[]): unknown {
  const parser = new StreamingJsonParser();
  for (const delta of deltas) parser.push(delta);
  return parser.finish().value;
}

function viaWriter(deltas: readonly string[]): unknown {
  const writer = new AssistantStreamWriter(model);
  writer.startToolCall("call_1", "write");
  for (const delta of deltas) writer.toolCallDelta(delta);
  return writer.done().content[0];
}

function viaReparse(deltas: readonly string[]): unknown {
  let text = "";
  let value: unknown;
  for (const delta of deltas) {
    text += delta;
    value = parsePartialJson(text).value;
  }
  return value;
}

/** Runs the benchmark and returns the report lines. */
function runPartialJsonBench(): string[] {
  const lines: string[] = [];
  for (const [label, json] of [
    ["write (1 MB string)", writeArguments(1 << 20)],
    ["edits (1 MB of small objects)", editArguments(1 << 20)],
  ] as const) {
    const deltas = split(json, DELTA);
    const baseline = measure(() => JSON.parse(json));
    const parser = measure(() => viaParser(deltas));
    const writer = measure(() => viaWriter(deltas), { runs: 9 });
    lines.push(
      `${label}: ${(json.length / 1024).toFixed(0)} KiB in ${deltas.length} deltas of ${DELTA} bytes`,
      `  JSON.parse once (baseline)       ${ms(baseline.medianMs).padStart(10)}   1.0x`,
      `  StreamingJsonParser, all deltas  ${ms(parser.medianMs).padStart(10)}   ${(parser.medianMs / baseline.medianMs).toFixed(1)}x`,
      `  AssistantStreamWriter (events)   ${ms(writer.medianMs).padStart(10)}   ${(writer.medianMs / baseline.medianMs).toFixed(1)}x`,
    );
  }
  lines.push("", "scaling (write arguments, 16-byte deltas): time per KiB should stay flat for O(L)");
  lines.push("  size      incremental   per KiB     re-parse each delta   per KiB");
  for (const kib of [16, 32, 64, 128]) {
    const deltas = split(writeArguments(kib * 1024), DELTA);
    const incremental = measure(() => viaParser(deltas), { runs: 7 });
    const reparse = measure(() => viaReparse(deltas), { runs: 3, warmup: 1 });
    lines.push(
      `  ${`${kib} KiB`.padEnd(9)} ${ms(incremental.medianMs).padStart(11)}   ${(incremental.medianMs / kib).toFixed(4).padStart(8)}   ${ms(reparse.medianMs).padStart(19)}   ${(reparse.medianMs / kib).toFixed(3).padStart(8)}`,
    );
  }
  for (const kib of [256, 1024, 4096]) {
    const deltas = split(writeArguments(kib * 1024), DELTA);
    const incremental = measure(() => viaParser(deltas), { runs: 5 });
    lines.push(
      `  ${`${kib} KiB`.padEnd(9)} ${ms(incremental.medianMs).padStart(11)}   ${(incremental.medianMs / kib).toFixed(4).padStart(8)}   ${"(skipped: too slow)".padStart(19)}`,
    );
  }
  return lines;
}

const bench: Bench = { name: "partial-json: streaming tool arguments", run: runPartialJsonBench };
export default bench;
