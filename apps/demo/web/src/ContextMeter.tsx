/**
 * The context meter: tokens against the window, the compaction threshold marked, and what fills the
 * context by category (the same figures as the CLI's `/context`); a warning under the bar when the context
 * is over the threshold and the last compaction freed nothing (the server's `notice`).
 */
import type { ContextAnswer } from "./api.js";

const COLORS: Record<string, string> = {
  systemPrompt: "cat-system",
  tools: "cat-tools",
  compactionSummary: "cat-compaction",
  branchSummary: "cat-branch",
  messages: "cat-messages",
  toolResults: "cat-results",
};

function count(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

/** The meter; `onSummary` opens a compaction summary's details. */
export function ContextMeter(props: {
  breakdown: ContextAnswer | undefined;
  onSummary: (entryId: string) => void;
}) {
  const breakdown = props.breakdown;
  if (breakdown === undefined) return <div className="meter">…</div>;
  const window = Math.max(1, breakdown.contextWindow);
  const scale = Math.max(breakdown.total, breakdown.estimated, 1);
  const threshold = (breakdown.compactionThreshold / window) * 100;
  return (
    <div className="meter" data-testid="context-meter" data-tokens={breakdown.total}>
      <div className="meter-head">
        <strong>Context</strong> {count(breakdown.total)} of {count(window)} tokens (
        {breakdown.percent.toFixed(1)} %) · compaction above {count(breakdown.compactionThreshold)}
      </div>
      <div className="meter-bar">
        <div className="meter-fill" style={{ width: `${Math.min(100, (breakdown.total / window) * 100)}%` }}>
          {breakdown.categories.map((category) => (
            <div
              key={`${category.kind}:${category.entryId ?? ""}`}
              className={`meter-part ${COLORS[category.kind] ?? ""}`}
              style={{ width: `${(category.tokens / scale) * 100}%` }}
              title={`${category.label}: ${count(category.tokens)} tokens`}
            />
          ))}
        </div>
        <div
          className="meter-threshold"
          style={{ left: `${Math.min(100, threshold)}%` }}
          title="compaction threshold"
        />
      </div>
      {breakdown.notice !== undefined && (
        <p
          className={`meter-notice notice-${breakdown.notice.level}`}
          role="status"
          data-testid="compaction-notice"
          data-outcome={breakdown.notice.outcome}
        >
          {breakdown.notice.text}
        </p>
      )}
      <ul className="meter-legend">
        {breakdown.categories.map((category) => (
          <li key={`${category.kind}:${category.entryId ?? ""}`}>
            <span className={`swatch ${COLORS[category.kind] ?? ""}`} />
            {category.entryId === undefined ? (
              category.label
            ) : (
              <button type="button" className="link" onClick={() => props.onSummary(category.entryId!)}>
                {category.label}
              </button>
            )}
            : {count(category.tokens)}
          </li>
        ))}
      </ul>
    </div>
  );
}
