import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  type CORPUS_FOLDERS,
  type Json,
  RESPONSE_ENDS,
  recordingPayloads,
  type StreamReading,
  splitResponses,
} from "./read-recording.js";

/** A folder of the corpus: one wire protocol each. */
export type CorpusFolder = keyof typeof CORPUS_FOLDERS;

/** Where a recording comes from. */
export interface RecordingSource {
  /** `owner/name` on GitHub. */
  repository: string;
  /** The file's path in that repository. */
  path: string;
  /** The commit it was copied from. */
  commit: string;
  /** The SPDX identifier of the repository's licence. */
  licence: string;
  /** Anything a reader of the data should know (e.g. shortened by hand in the source). */
  note?: string;
}

/** One recording as `corpus.json` describes it. */
export interface CorpusRecording {
  vendor: string;
  source: RecordingSource;
  /** The reading of each response the file holds, in order. */
  responses: StreamReading[];
}

/** One recorded HTTP response: what the server sends, and what it says. */
export interface RecordedResponse {
  folder: CorpusFolder;
  /** The recording's file name in its folder. */
  file: string;
  /** The response's position in the file (most files hold one). */
  index: number;
  vendor: string;
  source: RecordingSource;
  /** The JSON payloads of the response's events or chunks, in order. */
  payloads: Json[];
  /** The response's raw SSE text, when the recording is raw SSE (`.sse`) rather than one payload a line. */
  rawSse?: string;
  reading: StreamReading;
}

/** The corpus folder in a checkout of the repository. */
export const STREAM_CORPUS_DIR = join(import.meta.dirname, "..", "..", "..", "..", "fixtures", "streams");

/** The manifest of a folder: each recording's vendor, source and reading. */
export function readCorpusManifest(folder: CorpusFolder): Record<string, CorpusRecording> {
  const manifest = JSON.parse(readFileSync(join(STREAM_CORPUS_DIR, folder, "corpus.json"), "utf8")) as {
    recordings: Record<string, CorpusRecording>;
  };
  return manifest.recordings;
}

/** The recording files of a folder (everything but its manifest). */
export function corpusFiles(folder: CorpusFolder): string[] {
  const dir = join(STREAM_CORPUS_DIR, folder);
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((file) => file !== "corpus.json")
        .sort()
    : [];
}

/**
 * Every recorded response of a folder, each with its reading from `corpus.json`.
 *
 * Contract: throws when a recording has no manifest entry, or holds another number of responses than its
 * manifest has readings (run `scripts/read-stream-corpus.ts` after adding a recording).
 */
export function loadStreamCorpus(folder: CorpusFolder): RecordedResponse[] {
  const manifest = readCorpusManifest(folder);
  const responses: RecordedResponse[] = [];
  for (const file of corpusFiles(folder)) {
    const entry = manifest[file];
    if (entry === undefined)
      throw new Error(`fixtures/streams/${folder}/${file} has no entry in corpus.json`);
    const text = readFileSync(join(STREAM_CORPUS_DIR, folder, file), "utf8");
    const parts = splitResponses(recordingPayloads(text), RESPONSE_ENDS[folder]);
    if (parts.length !== entry.responses.length) {
      throw new Error(
        `fixtures/streams/${folder}/${file} holds ${parts.length} responses, corpus.json reads ${entry.responses.length}: run scripts/read-stream-corpus.ts`,
      );
    }
    for (const [index, payloads] of parts.entries()) {
      responses.push({
        folder,
        file,
        index,
        vendor: entry.vendor,
        source: entry.source,
        payloads,
        ...(file.endsWith(".sse") ? { rawSse: text } : {}),
        reading: entry.responses[index] as StreamReading,
      });
    }
  }
  return responses;
}
