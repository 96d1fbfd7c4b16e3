/**
 * A plain-text rendering of a session's event records as they happen, for the tour (and any non-interactive
 * view; any transport of `@arbor/session-view` hands it the records):
 * the user's prompt, the model's text as it streams, each tool call with the first lines of its result, and
 * what each compaction did — how many tokens the context had, and how many it freed.
 */
import type { AssistantMessage } from "@arbor/ai-providers";
import {
  clipText,
  contentText,
  diffRows,
  formatCount,
  type ProtocolEvent,
  toolCallLine,
  toolDiff,
} from "@arbor/session-view";
import type { CliOutput } from "../../io.js";
import type { Style } from "./style.js";

/** Most result lines shown under a tool call. */
const RESULT_LINES = 3;
/** Most diff rows shown under an edit. */
const DIFF_ROWS = 12;

/** Writes a session's events to a terminal (or any output stream) as readable text (see the module comment). */
export class TranscriptPrinter {
  /** True while the cursor is in the middle of a line of streamed text. */
  private midLine = false;
  private streamedText = false;

  constructor(
    private readonly output: CliOutput,
    private readonly style: Style,
  ) {}

  private write(text: string): void {
    this.output.write(text);
  }

  private endLine(): void {
    if (this.midLine) this.write("\n");
    this.midLine = false;
  }

  /** Writes a whole line (after ending any streamed one). */
  line(text = ""): void {
    this.endLine();
    this.write(`${text}\n`);
  }

  /** Handles one event record (`harnessTransport(session).subscribe` hands them over in order). */
  handle(event: ProtocolEvent): void {
    switch (event.type) {
      case "message_start":
        this.streamedText = false;
        return;
      case "text_delta":
        this.write(event.delta);
        this.midLine = !event.delta.endsWith("\n");
        this.streamedText = true;
        return;
      case "thinking_start":
        this.line(this.style.dim("(thinking…)"));
        return;
      case "message_end": {
        const message = event.message as { role?: string; content?: unknown };
        if (message.role === "user") {
          this.line();
          this.line(this.style.prompt(`› ${contentText(message.content)}`));
          return;
        }
        if (message.role !== "assistant") return;
        const reply = message as AssistantMessage;
        if (reply.stopReason === "error" || reply.stopReason === "aborted") {
          this.line(
            this.style.error(`✗ ${reply.stopReason}: ${reply.errorMessage ?? "the response failed"}`),
          );
        } else if (this.streamedText) {
          this.endLine();
        }
        return;
      }
      case "tool_start":
        this.line(this.style.tool(`  ⚙ ${toolCallLine(event.name, event.args, { style: "main" })}`));
        return;
      case "tool_end": {
        const diff = toolDiff({ name: event.name }, { details: event.details, isError: event.isError });
        if (diff !== undefined && diff.hunks.length > 0) {
          const { rows, more, numberWidth } = diffRows(diff, DIFF_ROWS);
          for (const row of rows) {
            const text = `${String(row.number ?? "").padStart(numberWidth)} ${row.sign} ${row.text}`;
            const paint =
              row.kind === "add"
                ? this.style.added
                : row.kind === "remove"
                  ? this.style.error
                  : this.style.dim;
            this.line(`    ${paint(clipText(text, 110))}`);
          }
          if (more > 0) this.line(`    ${this.style.dim(`… ${formatCount(more)} more lines`)}`);
          return;
        }
        const lines = contentText(event.content).replace(/\n+$/, "").split("\n");
        const shown = lines.slice(0, RESULT_LINES);
        if (lines.length > RESULT_LINES)
          shown.push(`… ${formatCount(lines.length - RESULT_LINES)} more lines`);
        const mark = event.isError ? this.style.error("✗") : this.style.dim("↳");
        for (const [index, text] of shown.entries()) {
          this.line(`    ${index === 0 ? mark : " "} ${this.style.dim(clipText(text, 110))}`);
        }
        return;
      }
      case "compaction_start":
        this.line();
        this.line(
          this.style.mark(
            `◆ Compaction (${event.reason}): the context holds about ${formatCount(event.tokensBefore)} tokens; summarizing older history…`,
          ),
        );
        return;
      case "compaction_end": {
        if (event.outcome === "compacted") {
          const freed = event.tokensBefore - event.tokensAfter;
          this.line(
            this.style.mark(
              `◆ Compacted: ${formatCount(event.tokensBefore)} → ${formatCount(event.tokensAfter)} tokens (${formatCount(freed)} freed). ` +
                `Entry ${event.entryId} holds the summary; the originals stay in the file.`,
            ),
          );
        } else {
          const why =
            event.outcome === "failed"
              ? event.message
              : event.outcome === "nothing_to_compact"
                ? (event.why ?? event.outcome)
                : event.outcome;
          this.line(this.style.mark(`◆ Compaction ended without compacting: ${why}`));
        }
        this.line();
        return;
      }
      case "retry_scheduled":
        this.line(this.style.dim(`  retrying in ${Math.round(event.delayMs / 100) / 10} s (${event.error})`));
        return;
      case "agent_end":
        this.endLine();
        return;
      default:
        return;
    }
  }
}
