// @jsxRuntime automatic
// @jsxImportSource react
/**
 * The footer: the model and thinking level, the session's tokens and cost so far, a context-usage meter
 * with the compaction threshold marked, the session's name or id, and what the last compaction freed.
 */
import type { ContextUsage } from "@arbor/harness";
import { formatCost, formatTokens, type SessionViewModel } from "@arbor/session-view";
import { Box, Text } from "ink";
import type { ReactNode } from "react";
import { type Theme, useTheme } from "../theme.js";
import { useFooter } from "../use-session-view.js";

/** Cells of the context meter. */
export const METER_WIDTH = 20;

/** The meter's cells: filled, empty, and the threshold mark. */
export interface MeterCells {
  filled: number;
  /** Cell index of the compaction threshold (`┃`). */
  threshold: number;
}

/**
 * Where the meter's fill and threshold mark go.
 *
 * Contract: pure; `filled` is 0 … width, `threshold` 0 … width - 1.
 */
export function meterCells(usage: ContextUsage, width = METER_WIDTH): MeterCells {
  const window = usage.contextWindow > 0 ? usage.contextWindow : 1;
  const filled = Math.max(0, Math.min(width, Math.round((usage.tokens / window) * width)));
  const threshold = Math.max(
    0,
    Math.min(width - 1, Math.floor((usage.compactionThreshold / window) * width)),
  );
  return { filled, threshold };
}

function meterColor(usage: ContextUsage, theme: Theme): string | undefined {
  if (usage.tokens >= usage.compactionThreshold) return theme.colorOf("error");
  if (usage.tokens >= usage.compactionThreshold * 0.75) return theme.colorOf("meterHigh");
  return theme.colorOf("meterLow");
}

function ContextMeter(props: { usage: ContextUsage }): ReactNode {
  const theme = useTheme();
  const { usage } = props;
  const { filled, threshold } = meterCells(usage);
  const cells: ReactNode[] = [];
  for (let index = 0; index < METER_WIDTH; index++) {
    const isThreshold = index === threshold;
    const full = index < filled;
    const char = isThreshold ? "┃" : full ? "█" : "░";
    cells.push(
      <Text
        key={index}
        color={
          isThreshold ? theme.colorOf("warning") : full ? meterColor(usage, theme) : theme.colorOf("muted")
        }
      >
        {char}
      </Text>,
    );
  }
  const approximate = usage.anchored ? "" : "~";
  return (
    <Text>
      {"context "}
      {cells}
      {` ${approximate}${usage.percent.toFixed(0)}% of ${formatTokens(usage.contextWindow)}`}
      <Text color={theme.colorOf("muted")}>
        {` (${approximate}${formatTokens(usage.tokens)}; compacts at ${formatTokens(usage.compactionThreshold)})`}
      </Text>
    </Text>
  );
}

/**
 * The footer, from the store's footer slice.
 *
 * Contract: two lines; every value comes from the harness session (state, `contextUsage()`) and its events.
 */
export function Footer(props: { store: SessionViewModel }): ReactNode {
  const { store } = props;
  const theme = useTheme();
  const footer = useFooter(store);
  const muted = theme.colorOf("muted");
  const session = footer.sessionName === undefined ? footer.sessionId.slice(0, 8) : `"${footer.sessionName}"`;
  const compaction = footer.lastCompaction;
  return (
    <Box flexDirection="column">
      <Text>
        <Text bold>{footer.model}</Text>
        <Text color={muted}>{" · thinking "}</Text>
        <Text>{footer.thinkingLevel}</Text>
        <Text color={muted}>{" · "}</Text>
        <Text>{`↑${formatTokens(footer.totals.input)} ↓${formatTokens(footer.totals.output)}`}</Text>
        <Text color={muted}>{" · "}</Text>
        <Text>{formatCost(footer.totals.cost)}</Text>
        <Text color={muted}>{" · session "}</Text>
        <Text>{session}</Text>
        {footer.persistent ? null : <Text color={muted}>{" (not saved)"}</Text>}
      </Text>
      <Text>
        {footer.context === undefined ? (
          <Text color={muted}>context unknown</Text>
        ) : (
          <ContextMeter usage={footer.context} />
        )}
        {compaction === undefined ? null : (
          <Text color={muted}>
            {` · last compaction freed ${formatTokens(Math.max(0, compaction.tokensBefore - compaction.tokensAfter))}`}
          </Text>
        )}
      </Text>
    </Box>
  );
}
