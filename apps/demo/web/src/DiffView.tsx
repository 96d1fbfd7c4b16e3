/**
 * A file change (an `edit`, or a `write` over a file) as `@arbor/session-view`'s tool diff gives it: old and
 * new line numbers, added lines green and removed ones red, a gap between hunks. A long diff is cut after
 * a few rows with a button that shows it whole (the page's Ctrl-O).
 */
import { diffCounts, diffRows, type ToolDiff } from "@arbor/session-view";
import { useState } from "react";

/** Rows shown before "show all". */
const SHOWN_ROWS = 24;

/** Props of {@link DiffView}. */
export interface DiffViewProps {
  diff: ToolDiff;
}

/** The diff (see the module comment). */
export function DiffView(props: DiffViewProps) {
  const { diff } = props;
  const [all, setAll] = useState(false);
  const { rows, more } = diffRows(diff, all ? undefined : SHOWN_ROWS);
  return (
    <div className="diff-view" data-testid="diff-view">
      <div className="diff-head">
        {diff.path}{" "}
        <span className="diff-counts">{diff.created ? `new file, +${diff.added}` : diffCounts(diff)}</span>
      </div>
      <table className="diff-table">
        <tbody>
          {rows.map((row, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: a diff's rows never move
            <tr key={index} className={`diff-${row.kind}`} data-kind={row.kind}>
              <td className="diff-ln">
                {row.kind === "add" || row.kind === "gap" ? "" : (row.number ?? "")}
              </td>
              <td className="diff-ln">
                {row.kind === "remove" || row.kind === "gap" ? "" : (row.number ?? "")}
              </td>
              <td className="diff-text">
                <span className="diff-sign">{row.sign}</span>
                {row.text}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {more > 0 &&
        (all ? (
          <div className="diff-more">… {more.toLocaleString("en-US")} more lines not recorded</div>
        ) : (
          <button type="button" className="link diff-more" onClick={() => setAll(true)}>
            … {more.toLocaleString("en-US")} more lines: show all
          </button>
        ))}
    </div>
  );
}
