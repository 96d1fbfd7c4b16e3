// @jsxRuntime automatic
// @jsxImportSource react
/**
 * The input editor: a multi-line text box with a cursor, history on ↑/↓, Emacs-style line keys, and
 * slash-command completion on Tab. Enter sends; Alt+Enter sends as a follow-up; Ctrl-J (or a `\` before
 * Enter) starts a new line. Esc and Ctrl-C are left to the app (they abort or quit). The keys are a pure
 * function of the buffer ({@link editorKey}); the app routes keys to it.
 */

import {
  browseHistory,
  deleteBackward,
  deleteForward,
  deleteToLineEnd,
  deleteToLineStart,
  deleteWordBackward,
  type EditorBuffer,
  insertText,
  moveCursor,
  moveLine,
  moveToLineEnd,
  moveToLineStart,
  type SubmitKind,
} from "@arbor/app-runtime/input";
import { Box, type Key, Text } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../theme.js";

/**
 * The next buffer after one key, or `submit` when the key sends the text. Esc and Ctrl-C are not handled
 * here. A chunk of several keys is split first (`splitChunk` in ../key-chunks.ts); a paste is inserted as text.
 *
 * Contract: pure.
 */
export function editorKey(
  buffer: EditorBuffer,
  input: string,
  key: Key,
): { buffer: EditorBuffer; submit?: SubmitKind; complete?: boolean } {
  if (key.escape || (key.ctrl && input === "c")) return { buffer };
  if (key.return) {
    if (key.meta) return { buffer, submit: "followUp" };
    if (buffer.text.slice(0, buffer.cursor).endsWith("\\")) {
      return { buffer: insertText(deleteBackward(buffer), "\n") };
    }
    return { buffer, submit: "enter" };
  }
  if (key.tab) return { buffer, complete: true };
  if (key.upArrow) return { buffer: moveLine(buffer, -1) ?? browseHistory(buffer, -1) };
  if (key.downArrow) return { buffer: moveLine(buffer, 1) ?? browseHistory(buffer, 1) };
  if (key.leftArrow) return { buffer: moveCursor(buffer, -1) };
  if (key.rightArrow) return { buffer: moveCursor(buffer, 1) };
  if (key.home) return { buffer: moveToLineStart(buffer) };
  if (key.end) return { buffer: moveToLineEnd(buffer) };
  if (key.backspace || key.delete) {
    return { buffer: key.meta ? deleteWordBackward(buffer) : deleteBackward(buffer) };
  }
  if (key.ctrl) {
    switch (input) {
      case "a":
        return { buffer: moveToLineStart(buffer) };
      case "e":
        return { buffer: moveToLineEnd(buffer) };
      case "b":
        return { buffer: moveCursor(buffer, -1) };
      case "f":
        return { buffer: moveCursor(buffer, 1) };
      case "u":
        return { buffer: deleteToLineStart(buffer) };
      case "k":
        return { buffer: deleteToLineEnd(buffer) };
      case "w":
        return { buffer: deleteWordBackward(buffer) };
      case "d":
        return { buffer: deleteForward(buffer) };
      case "j":
        return { buffer: insertText(buffer, "\n") };
      default:
        return { buffer };
    }
  }
  if (key.meta && input.length === 1) return { buffer };
  return { buffer: insertText(buffer, input) };
}

/** Props of {@link EditorView}. */
export interface EditorViewProps {
  buffer: EditorBuffer;
  /** Whether it takes keys (false while a picker is open): the cursor shows only then. */
  active: boolean;
  /** The agent is running (Enter steers). */
  busy: boolean;
}

/** What a tab shows as in the editor: a terminal moves a tab to its next stop, which ink cannot measure. */
const TAB_SPACES = "    ";

/** `text` as shown: each tab as {@link TAB_SPACES} (the text sent keeps its tabs). */
export function withTabsAsSpaces(text: string): string {
  return text.includes("\t") ? text.replaceAll("\t", TAB_SPACES) : text;
}

function placeholderOf(busy: boolean): string {
  return busy
    ? "Enter: steer the agent · Alt+Enter: queue a follow-up · Esc: stop"
    : "Ask anything · / for commands · Alt+Enter follow-up · Ctrl-J new line";
}

/**
 * The editor box (the app routes keys to {@link editorKey}).
 *
 * Contract: pure rendering of the buffer.
 */
export function EditorView(props: EditorViewProps): ReactNode {
  const theme = useTheme();
  const { buffer } = props;
  const promptColor = theme.colorOf(props.busy ? "muted" : "accent");
  const lines = buffer.text.split("\n");
  let offset = 0;
  const rendered = lines.map((line, index) => {
    const start = offset;
    offset += line.length + 1;
    const prefix = index === 0 ? "› " : "  ";
    const hasCursor = props.active && buffer.cursor >= start && buffer.cursor <= start + line.length;
    const column = buffer.cursor - start;
    const under = line[column] ?? " ";
    return (
      // biome-ignore lint/suspicious/noArrayIndexKey: editor lines are identified by their position
      <Text key={index}>
        <Text color={promptColor}>{prefix}</Text>
        {hasCursor ? (
          <>
            {withTabsAsSpaces(line.slice(0, column))}
            <Text inverse>{under === "\t" ? " " : under}</Text>
            {under === "\t" ? TAB_SPACES.slice(1) : ""}
            {withTabsAsSpaces(line.slice(column + 1))}
          </>
        ) : (
          withTabsAsSpaces(line)
        )}
      </Text>
    );
  });

  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.colorOf("muted")} paddingX={1}>
      {buffer.text === "" ? (
        <Text>
          <Text color={promptColor}>{"› "}</Text>
          {props.active ? <Text inverse> </Text> : null}
          <Text color={theme.colorOf("muted")}>{` ${placeholderOf(props.busy)}`}</Text>
        </Text>
      ) : (
        rendered
      )}
    </Box>
  );
}
