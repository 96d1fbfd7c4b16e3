import { randomUUID } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { type OutputLimits, type TailTruncation, truncateTail } from "./truncate.js";

/** What a command printed so far, as a model sees it. */
export interface CapturedOutput {
  /** The tail of the output within the limits (see {@link truncateTail}). */
  tail: TailTruncation;
  /** Lines and UTF-8 bytes printed in all. */
  totalLines: number;
  totalBytes: number;
  /** The file holding the complete output; set once the output outgrew the limits. */
  fullOutputPath?: string;
}

/** Where {@link OutputCapture} keeps the complete output once it outgrows the limits. */
export interface OutputCaptureOptions extends OutputLimits {
  /** Directory of the full-output file (default `os.tmpdir()`). */
  tempDirectory?: string;
  /** Start of the full-output file's name (default `arbor-bash-`). */
  tempPrefix?: string;
}

/**
 * Collects a command's output with bounded memory: it keeps only the tail a model may see (twice the
 * byte limit, trimmed now and then) plus counters. Once the output outgrows the limits, everything
 * printed — earlier bytes included — goes to a temp file (mode 0600) whose path the result names, so
 * nothing is lost.
 */
export class OutputCapture {
  readonly #options: OutputCaptureOptions;
  readonly #decoder = new StringDecoder("utf8");
  #tail = "";
  #totalBytes = 0;
  #newlines = 0;
  #endsWithNewline = true;
  #pending: Buffer[] = [];
  #file: WriteStream | undefined;
  #fileError: Error | undefined;
  #path: string | undefined;

  constructor(options: OutputCaptureOptions) {
    this.#options = options;
  }

  /** Adds a chunk of output (stdout and stderr chunks in arrival order). */
  append(chunk: Buffer): void {
    if (chunk.length === 0) return;
    this.#totalBytes += chunk.length;
    const text = this.#decoder.write(chunk);
    this.#take(text);
    if (this.#file !== undefined) this.#file.write(chunk);
    else {
      this.#pending.push(chunk);
      if (this.#overLimits()) this.#spill();
    }
  }

  /** The output so far, within the limits. */
  snapshot(): CapturedOutput {
    const totalLines = this.#lines();
    return {
      tail: truncateTail(this.#tail, this.#options),
      totalLines,
      totalBytes: this.#totalBytes,
      ...(this.#path === undefined ? {} : { fullOutputPath: this.#path }),
    };
  }

  /** Flushes the decoder and closes the full-output file; returns the final output. */
  async finish(): Promise<CapturedOutput & { fileError?: Error }> {
    this.#take(this.#decoder.end());
    const file = this.#file;
    if (file !== undefined) {
      await new Promise<void>((resolveClosed) => {
        file.end(() => resolveClosed());
        file.once("error", () => resolveClosed());
      });
    }
    return { ...this.snapshot(), ...(this.#fileError === undefined ? {} : { fileError: this.#fileError }) };
  }

  #take(text: string): void {
    if (text === "") return;
    let position = text.indexOf("\n");
    while (position !== -1) {
      this.#newlines++;
      position = text.indexOf("\n", position + 1);
    }
    this.#endsWithNewline = text.endsWith("\n");
    this.#tail += text;
    const keep = this.#options.maxBytes * 2;
    if (this.#tail.length > keep * 2) this.#tail = this.#tail.slice(-keep);
  }

  #lines(): number {
    if (this.#totalBytes === 0) return 0;
    return this.#endsWithNewline ? this.#newlines : this.#newlines + 1;
  }

  #overLimits(): boolean {
    return this.#totalBytes > this.#options.maxBytes || this.#lines() > this.#options.maxLines;
  }

  #spill(): void {
    const directory = this.#options.tempDirectory ?? tmpdir();
    this.#path = join(directory, `${this.#options.tempPrefix ?? "arbor-bash-"}${randomUUID()}.log`);
    const file = createWriteStream(this.#path, { mode: 0o600 });
    file.on("error", (error) => {
      this.#fileError ??= error;
    });
    for (const chunk of this.#pending) file.write(chunk);
    this.#pending = [];
    this.#file = file;
  }
}
