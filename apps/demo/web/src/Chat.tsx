/**
 * The chat: the current path's transcript (entry views from the server), the live part of
 * `@arbor/session-view`'s view model (the reply streaming now — answer, thinking, tool calls with their
 * arguments streaming — and the tools running with their latest output line) and the prompt box.
 */
import { isFileChangeTool, type LiveView, toolCallLine } from "@arbor/session-view";
import { useEffect, useRef, useState } from "react";
import type { EntryView, TranscriptAnswer } from "./api.js";
import { DiffView } from "./DiffView.js";

function partText(part: EntryView["parts"][number]): string {
  switch (part.kind) {
    case "text":
    case "summary":
      return part.text;
    case "thinking":
      return part.redacted ? "(thinking redacted)" : part.text;
    case "toolCall":
      return isFileChangeTool(part.name)
        ? `→ ${toolCallLine(part.name, part.arguments, { style: "main" })}`
        : `→ ${part.name}(${JSON.stringify(part.arguments)})`;
    case "output":
      return part.text.length > 1200 ? `${part.text.slice(0, 1200)}…` : part.text;
    case "image":
      return `[image ${part.mimeType}]`;
    default:
      return "";
  }
}

const SHOWN = new Set(["user", "assistant", "toolResult", "compaction", "branchSummary", "bash", "custom"]);

function Entry(props: { view: EntryView; onSelect: (id: string) => void }) {
  const { view } = props;
  return (
    <div className={`chat-entry chat-${view.kind}`} data-testid="chat-entry" data-kind={view.kind}>
      <button type="button" className="chat-label link" onClick={() => props.onSelect(view.id)}>
        {view.label}
      </button>
      {view.parts.map((part, index) =>
        part.kind === "diff" ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: an entry's parts never change or move
          <DiffView key={index} diff={part.diff} />
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: an entry's parts never change or move
          <div key={index} className={`part part-${part.kind}`}>
            {partText(part)}
          </div>
        ),
      )}
    </div>
  );
}

/** Props of {@link Chat}. */
export interface ChatProps {
  transcript: TranscriptAnswer | undefined;
  /** The view model's live slice. */
  live: LiveView;
  busy: boolean;
  onSend: (text: string) => void;
  onAbort: () => void;
  onSelect: (entryId: string) => void;
}

/** The chat (see the module comment). */
export function Chat(props: ChatProps) {
  const [text, setText] = useState("");
  const end = useRef<HTMLDivElement | null>(null);
  const entries = props.transcript?.entries.filter((view) => SHOWN.has(view.kind)) ?? [];
  const shown = entries.length;
  const live = props.live;
  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll down whenever entries or the live message change
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [shown, live]);
  const send = () => {
    const value = text.trim();
    if (value === "") return;
    props.onSend(value);
    setText("");
  };
  return (
    <div className="chat">
      <div className="chat-log" data-testid="chat-log">
        {props.transcript !== undefined && props.transcript.earlier > 0 && (
          <div className="chat-earlier">
            {props.transcript.earlier.toLocaleString("en-US")} earlier entries (see the tree)
          </div>
        )}
        {entries.map((view) => (
          <Entry key={view.id} view={view} onSelect={props.onSelect} />
        ))}
        {(live.busy || live.streaming !== undefined) && (
          <div className="chat-entry chat-live" data-testid="live-message">
            <span className="chat-label">
              assistant ({live.streaming !== undefined ? "streaming" : (live.activity ?? "working")})
            </span>
            {(live.streaming ?? []).map((block, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: a block is its content index in the message
              <div key={index} className={`part part-${block.kind}`}>
                {block.kind === "toolCall"
                  ? `→ ${toolCallLine(block.name, block.args, { max: 400 })}`
                  : block.text}
              </div>
            ))}
            {live.tools.map((tool) => (
              <div key={tool.id} className="part part-tool" data-testid="live-tool">
                … {tool.name} {tool.argumentLine}
                {tool.progress !== undefined && <pre>{tool.progress}</pre>}
              </div>
            ))}
          </div>
        )}
        <div ref={end} />
      </div>
      <div className="chat-input">
        <textarea
          data-testid="prompt"
          value={text}
          placeholder="Ask something (Enter sends, Shift-Enter: a new line). The scripted model knows 'help'."
          onChange={(event) => setText(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "Enter" && !event.shiftKey) {
              event.preventDefault();
              send();
            }
          }}
        />
        <div className="chat-buttons">
          <button type="button" data-testid="send" onClick={send} disabled={props.busy}>
            Send
          </button>
          <button type="button" data-testid="abort" onClick={props.onAbort} disabled={!props.busy}>
            Abort
          </button>
        </div>
      </div>
    </div>
  );
}
