/**
 * The actions and details of the selected node: navigate here (with or without a branch summary, with
 * instructions), edit a user message and re-run, fork into a new session, label, compact now, diff the
 * two selected branches, merge the selected branch into the current one; for a compaction or branch
 * summary its text, tokens before and after, file lists and the entries it covers, each linked to its node.
 */
import { summaryDisplayText } from "@arbor/session-view";
import { useEffect, useState } from "react";
import {
  command,
  type DiffAnswer,
  type EntryView,
  type GraphNode,
  type RpcCommand,
  type SummaryAnswer,
} from "./api.js";
import { DiffView } from "./DiffView.js";

/** Props of {@link NodePanel}. */
export interface NodePanelProps {
  node: GraphNode | undefined;
  second: GraphNode | undefined;
  leafId: string | null;
  busy: boolean;
  onFocus: (entryId: string) => void;
  onError: (message: string) => void;
  onDone: () => void;
}

function textOfView(view: EntryView | undefined): string {
  return (
    view?.parts
      .map((part) => (part.kind === "text" || part.kind === "summary" ? part.text : ""))
      .join("")
      .trim() ?? ""
  );
}

function EntryLinks(props: {
  items: { id: string; preview: string }[];
  onFocus: (id: string) => void;
  testId: string;
}) {
  return (
    <ul className="entry-links" data-testid={props.testId}>
      {props.items.map((item) => (
        <li key={item.id}>
          <button
            type="button"
            className="link"
            onClick={() => props.onFocus(item.id)}
            data-entry-id={item.id}
          >
            {item.preview}
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The panel (see the module comment). */
export function NodePanel(props: NodePanelProps) {
  const { node, onError, onDone } = props;
  const [view, setView] = useState<EntryView | undefined>();
  const [summary, setSummary] = useState<SummaryAnswer | undefined>();
  const [diff, setDiff] = useState<DiffAnswer | undefined>();
  const [edit, setEdit] = useState("");
  const [label, setLabel] = useState("");
  const [instructions, setInstructions] = useState("");
  // No summary unless asked: a summary is a model call (paid with a real provider), as in the terminal's /tree.
  const [withSummary, setWithSummary] = useState(false);
  const entryId = node?.kind === "run" ? undefined : node?.entryId;
  useEffect(() => {
    setView(undefined);
    setSummary(undefined);
    setDiff(undefined);
    if (entryId === undefined) return;
    command({ type: "get_entry", entryId })
      .then((answer) => {
        setView(answer);
        setEdit(textOfView(answer));
        setLabel(node?.label ?? "");
      })
      .catch((error: Error) => onError(error.message));
    if (node?.type === "compaction" || node?.type === "branch_summary") {
      command({ type: "get_summary", entryId })
        .then(setSummary)
        .catch((error: Error) => onError(error.message));
    }
  }, [entryId, node?.type, node?.label, onError]);
  const run = (body: RpcCommand) => {
    command(body)
      .then(onDone)
      .catch((error: Error) => onError(error.message));
  };
  if (node === undefined) {
    return (
      <div className="panel" data-testid="node-panel">
        <p className="hint">
          Click a node to act on it; Shift-click a second one to diff or merge. Double-click a “⋯” run to open
          it.
        </p>
        <CompactBox busy={props.busy} run={run} />
      </div>
    );
  }
  const isUser = view?.kind === "user";
  return (
    <div className="panel" data-testid="node-panel" data-entry-id={node.entryId}>
      <div className="panel-title">
        <strong>{view?.label ?? node.kind}</strong> <code>{node.entryId}</code>
        {node.compactedBy !== undefined && (
          <button type="button" className="link" onClick={() => props.onFocus(node.compactedBy!)}>
            covered by compaction {node.compactedBy}
          </button>
        )}
        {node.summarizedBy !== undefined && (
          <button type="button" className="link" onClick={() => props.onFocus(node.summarizedBy!)}>
            summarized by {node.summarizedBy}
          </button>
        )}
      </div>
      {view !== undefined && view.meta.length > 0 && <div className="meta">{view.meta.join(" · ")}</div>}
      {summary !== undefined && (
        <div className="summary" data-testid="summary-details">
          {summary.tokensBefore !== undefined && (
            <div className="meta" data-testid="summary-tokens">
              tokens before {summary.tokensBefore.toLocaleString("en-US")} → after{" "}
              {(summary.tokensAfter ?? 0).toLocaleString("en-US")}
            </div>
          )}
          <pre className="summary-text">{summaryDisplayText(summary.summary)}</pre>
          {summary.readFiles.length > 0 && <div className="meta">read: {summary.readFiles.join(", ")}</div>}
          {summary.modifiedFiles.length > 0 && (
            <div className="meta">modified: {summary.modifiedFiles.join(", ")}</div>
          )}
          <div>
            <strong>Covers {summary.coveredCount.toLocaleString("en-US")} entries</strong>
          </div>
          <EntryLinks items={summary.covered} onFocus={props.onFocus} testId="covered-entries" />
        </div>
      )}
      {view !== undefined && summary === undefined && (
        <pre className="entry-text">
          {view.parts
            .filter((part) => part.kind !== "diff")
            .map((part) => ("text" in part ? part.text : JSON.stringify(part)))
            .join("\n")
            .slice(0, 4000)}
        </pre>
      )}
      {view?.parts.map((part, index) =>
        // biome-ignore lint/suspicious/noArrayIndexKey: an entry's parts never change or move
        part.kind === "diff" ? <DiffView key={index} diff={part.diff} /> : null,
      )}
      {node.kind !== "run" && (
        <div className="actions">
          <div className="action">
            <label>
              <input
                type="checkbox"
                data-testid="navigate-summarize"
                checked={withSummary}
                onChange={(event) => setWithSummary(event.target.checked)}
              />
              summarize the branch left (a model call)
            </label>
            <input
              placeholder="instructions for the summary (optional)"
              value={instructions}
              onChange={(event) => setInstructions(event.target.value)}
            />
            <button
              type="button"
              data-testid="navigate"
              disabled={props.busy || node.entryId === props.leafId}
              onClick={() =>
                run({
                  type: "navigate",
                  entryId: node.entryId,
                  summarize: withSummary,
                  ...(instructions.trim() === "" ? {} : { instructions: instructions.trim() }),
                })
              }
            >
              Navigate here
            </button>
          </div>
          {isUser && (
            <div className="action">
              <textarea
                data-testid="edit-text"
                value={edit}
                onChange={(event) => setEdit(event.target.value)}
              />
              <button
                type="button"
                data-testid="edit-rerun"
                disabled={props.busy || edit.trim() === ""}
                onClick={() => run({ type: "edit", entryId: node.entryId, text: edit.trim() })}
              >
                Edit &amp; re-run
              </button>
            </div>
          )}
          <div className="action">
            <input
              data-testid="label-text"
              placeholder="label"
              value={label}
              onChange={(event) => setLabel(event.target.value)}
            />
            <button
              type="button"
              data-testid="label"
              onClick={() => run({ type: "label", entryId: node.entryId, label })}
            >
              Label
            </button>
            <button
              type="button"
              data-testid="fork"
              disabled={props.busy}
              onClick={() => run({ type: "fork", entryId: node.entryId })}
            >
              Fork into a new session
            </button>
          </div>
          {props.second !== undefined && (
            <div className="action">
              <button
                type="button"
                data-testid="diff"
                onClick={() =>
                  command({ type: "diff", a: node.entryId, b: props.second!.entryId })
                    .then(setDiff)
                    .catch((error: Error) => onError(error.message))
                }
              >
                Diff with {props.second.entryId}
              </button>
              <button
                type="button"
                data-testid="merge"
                disabled={props.busy}
                onClick={() =>
                  run({ type: "merge", sourceLeafId: props.second!.entryId, into: node.entryId })
                }
              >
                Merge {props.second.entryId} into here
              </button>
            </div>
          )}
          {diff !== undefined && (
            <div className="diff" data-testid="diff-result">
              <div>common ancestor: {diff.commonAncestor?.id ?? "(none)"}</div>
              <div>this branch after it: {diff.a.entries} entries</div>
              <EntryLinks items={diff.a.items} onFocus={props.onFocus} testId="diff-a" />
              <div>the other branch after it: {diff.b.entries} entries</div>
              <EntryLinks items={diff.b.items} onFocus={props.onFocus} testId="diff-b" />
            </div>
          )}
        </div>
      )}
      <CompactBox busy={props.busy} run={run} />
    </div>
  );
}

function CompactBox(props: { busy: boolean; run: (body: RpcCommand) => void }) {
  const [instructions, setInstructions] = useState("");
  return (
    <div className="action">
      <input
        placeholder="compaction instructions (optional)"
        value={instructions}
        onChange={(event) => setInstructions(event.target.value)}
      />
      <button
        type="button"
        data-testid="compact"
        disabled={props.busy}
        onClick={() =>
          props.run({
            type: "compact",
            ...(instructions.trim() === "" ? {} : { instructions: instructions.trim() }),
          })
        }
      >
        Compact now
      </button>
    </div>
  );
}
