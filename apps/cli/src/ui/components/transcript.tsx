// @jsxRuntime automatic
// @jsxImportSource react
/**
 * The printed transcript: finished items go through ink's `<Static>`, which writes each one to the terminal
 * once and never renders it again, so a long session costs nothing per frame.
 */

import {
  type AssistantBlock,
  clipText,
  diffRows,
  formatTokens,
  type HeadLines,
  type NoticeLevel,
  type SessionViewModel,
  TOOL_DIFF_ROWS,
  type ToolDiff,
  type TranscriptItem,
} from "@arbor/session-view";
import { Box, Static, Text } from "ink";
import { Lexer } from "marked";
import { type ReactNode, useLayoutEffect, useMemo } from "react";
import { MarkdownBlocks } from "../markdown/markdown-view.js";
import { useTheme } from "../theme.js";
import { useTranscript } from "../use-session-view.js";

/** The hint under a cut tool output. */
const EXPAND_HINT = " (Ctrl-O to expand)";

/** A file change: numbered lines, added ones green, removed ones red, cut after a few rows unless expanded. */
function DiffLines(props: { diff: ToolDiff; expanded: boolean }): ReactNode {
  const theme = useTheme();
  const { rows, more, numberWidth } = diffRows(props.diff, props.expanded ? undefined : TOOL_DIFF_ROWS);
  const colors = { add: "success", remove: "error", context: "muted", gap: "muted" } as const;
  return (
    <Box flexDirection="column">
      {rows.map((row, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: diff rows are identified by their position
        <Text key={index} color={theme.colorOf(colors[row.kind])}>
          {`${index === 0 ? "  ⎿ " : "    "}${String(row.number ?? "").padStart(numberWidth)} ${row.sign} ${row.text}`}
        </Text>
      ))}
      {more > 0 ? (
        <Text color={theme.colorOf("muted")}>
          {`    … ${more} more line${more === 1 ? "" : "s"}${props.expanded ? "" : EXPAND_HINT}`}
        </Text>
      ) : null}
    </Box>
  );
}

function OutputLines(props: { output: HeadLines; isError: boolean; hint?: string }): ReactNode {
  const theme = useTheme();
  const color = props.isError ? theme.colorOf("error") : theme.colorOf("muted");
  const { lines, more } = props.output;
  if (lines.length === 0) return <Text color={theme.colorOf("muted")}>{"  ⎿ (no output)"}</Text>;
  return (
    <Box flexDirection="column">
      {lines.map((line, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: output lines are identified by their position
        <Text key={index} color={color}>{`${index === 0 ? "  ⎿ " : "    "}${line}`}</Text>
      ))}
      {more > 0 ? (
        <Text
          color={theme.colorOf("muted")}
        >{`    … ${more} more line${more === 1 ? "" : "s"}${props.hint ?? ""}`}</Text>
      ) : null}
    </Box>
  );
}

/**
 * A thinking block on one dimmed line: while it streams, its last line; once done, its word count and first
 * line (the rest stays in the session file).
 *
 * Contract: O(last line) per render while `live`.
 */
export function ThinkingLine(props: { text: string; redacted: boolean; live?: boolean }): ReactNode {
  const theme = useTheme();
  if (props.redacted)
    return (
      <Text color={theme.colorOf("muted")} italic>
        {"✻ thinking (redacted)"}
      </Text>
    );
  const text = props.text.trimEnd();
  let label: string;
  if (props.live === true) {
    // While streaming: the last line only (O(line), not O(thinking so far), per update).
    label = `✻ thinking… ${clipText(text.slice(text.lastIndexOf("\n") + 1).trim(), 100)}`;
  } else {
    const words = text === "" ? 0 : text.trim().split(/\s+/).length;
    const end = text.indexOf("\n");
    label = `✻ thought (${words} words): ${clipText((end === -1 ? text : text.slice(0, end)).trim(), 90)}`;
  }
  return (
    <Text color={theme.colorOf("muted")} dimColor={theme.dim} italic>
      {label}
    </Text>
  );
}

/** A finished reply's Markdown, lexed once (a transcript item renders once). */
function MarkdownText(props: { text: string; first: boolean }): ReactNode {
  const tokens = useMemo(() => Lexer.lex(props.text), [props.text]);
  return <MarkdownBlocks tokens={tokens} first={props.first} />;
}

function AssistantView(props: { blocks: readonly AssistantBlock[] }): ReactNode {
  return (
    <Box flexDirection="column">
      {props.blocks.map((block, index) =>
        block.kind === "markdown" ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: a reply's blocks never move
          <MarkdownText key={index} text={block.text} first={index === 0} />
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: a reply's blocks never move
          <ThinkingLine key={index} text={block.text} redacted={block.redacted} />
        ),
      )}
    </Box>
  );
}

/**
 * One transcript item.
 *
 * Contract: pure rendering of the item's data; the same item always renders the same.
 */
export function TranscriptItemView(props: { item: TranscriptItem }): ReactNode {
  const theme = useTheme();
  const { item } = props;
  switch (item.kind) {
    case "banner":
      return (
        <Box flexDirection="column">
          <Text bold color={theme.colorOf("accent")}>
            {item.title}
          </Text>
          {item.lines.map((line) => (
            <Text key={line} color={theme.colorOf("muted")}>
              {line}
            </Text>
          ))}
        </Box>
      );
    case "user":
      return (
        <Box flexDirection="row">
          <Box width={2} flexShrink={0}>
            <Text bold color={theme.colorOf("user")}>
              ›
            </Text>
          </Box>
          <Text bold>
            {item.text}
            {item.note === undefined ? null : (
              <Text color={theme.colorOf("muted")}>{`  (${item.note})`}</Text>
            )}
          </Text>
        </Box>
      );
    case "assistant":
      return <AssistantView blocks={item.blocks} />;
    case "tool":
      return (
        <Box flexDirection="column">
          <Text>
            <Text color={item.isError ? theme.colorOf("error") : theme.colorOf("success")}>
              {item.isError ? "✗ " : "✓ "}
            </Text>
            <Text bold>{item.name}</Text>
            {item.argumentLine === "" ? null : (
              <Text color={theme.colorOf("muted")}>{` ${item.argumentLine}`}</Text>
            )}
            {item.expanded === true ? <Text color={theme.colorOf("muted")}>{" · full output"}</Text> : null}
          </Text>
          {item.diff === undefined ? (
            <OutputLines
              output={item.output}
              isError={item.isError}
              hint={item.expanded ? "" : EXPAND_HINT}
            />
          ) : (
            <DiffLines diff={item.diff} expanded={item.expanded === true} />
          )}
        </Box>
      );
    case "notice": {
      const mark = NOTICE_MARKS[item.level];
      const color = theme.colorOf(item.level === "info" ? "muted" : item.level);
      // Continuation lines line up under the first line's text.
      return <Text color={color}>{`${mark}${item.text.replaceAll("\n", "\n  ")}`}</Text>;
    }
    case "compaction": {
      const text =
        item.tokensAfter === undefined
          ? `◆ earlier history compacted (the context held ${formatTokens(item.tokensBefore)} tokens)`
          : `◆ compacted: ${formatTokens(item.tokensBefore)} → ${formatTokens(item.tokensAfter)} tokens, freed ${formatTokens(
              Math.max(0, item.tokensBefore - item.tokensAfter),
            )}${item.reason === "manual" ? "" : ` (${item.reason === "overflow" ? "the context overflowed" : "threshold crossed"})`}`;
      return <Text color={theme.colorOf("accent")}>{text}</Text>;
    }
    case "branchSummary":
      return (
        <Box flexDirection="column">
          <Text color={theme.colorOf("accent")}>◇ branch summary (the branch left behind)</Text>
          <OutputLines output={item.summary} isError={false} />
        </Box>
      );
    case "custom":
      return (
        <Box flexDirection="column">
          <Text color={theme.colorOf("accent")}>{`[${item.label}]`}</Text>
          <OutputLines output={item.text} isError={false} />
        </Box>
      );
    case "separator":
      return <Text color={theme.colorOf("muted")}>{`── ${item.text} ──`}</Text>;
  }
}

/**
 * Tool results, warnings and errors follow what they belong to (a reply, a call); everything else, informative
 * notices included, starts after a blank line.
 */
function marginOf(item: TranscriptItem): number {
  if (item.kind === "tool") return 0;
  if (item.kind === "notice") return item.level === "info" || item.text.includes("\n") ? 1 : 0;
  return 1;
}

const NOTICE_MARKS: Readonly<Record<NoticeLevel, string>> = {
  info: "· ",
  success: "✓ ",
  warning: "! ",
  error: "✗ ",
};

/**
 * The printed part of the transcript, from the store's static slice.
 *
 * Contract: each item is rendered once; the store is told what was printed (see `acknowledgeTranscript`).
 */
export function Transcript(props: { store: SessionViewModel }): ReactNode {
  const { store } = props;
  const view = useTranscript(store);
  useLayoutEffect(() => {
    store.acknowledgeTranscript(view.generation, view.items.length);
  }, [store, view]);
  return (
    <Static key={view.generation} items={view.items as TranscriptItem[]}>
      {(item) => (
        <Box key={item.key} marginTop={marginOf(item)} flexDirection="column">
          <TranscriptItemView item={item} />
        </Box>
      )}
    </Static>
  );
}
