// @jsxRuntime automatic
// @jsxImportSource react
/**
 * A picker: a list shown a window at a time, moved through with the arrow keys (Page Up/Down, Home/End),
 * chosen with Enter, left with Esc. A filterable list narrows as the user types. Labels may be computed
 * lazily, so a list of tens of thousands of entries (the session tree) renders only the rows on screen.
 *
 * The keys are a pure function of the picker's state ({@link pickerKey}); the app routes keys to it, so
 * one key is never handled twice by two listeners.
 */

import type { Picker, PickerItem } from "@arbor/app-runtime/input";
import { clipText } from "@arbor/session-view";
import { Box, type Key, Text, useStdout } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../theme.js";

/** Where a picker is: what was typed, the rows that match it, the selected row. */
export interface PickerState {
  readonly filter: string;
  readonly visible: readonly PickerItem[];
  readonly selected: number;
}

/** Rows shown at once when the terminal's height is unknown. */
export const PICKER_ROWS = 12;

/** Lines around a picker's rows: its border, title, filter, "more" lines and hint, the footer. */
const PICKER_CHROME_LINES = 9;

/** Columns taken by the border, padding and markers of a row. */
const PICKER_CHROME_COLUMNS = 7;

/**
 * How many rows a picker shows and how wide they are in a terminal of `rows` × `columns` (each undefined
 * when unknown: {@link PICKER_ROWS} rows of 92 columns).
 *
 * Contract: pure; at least 5 rows of 20 columns.
 */
export function pickerSize(
  rows: number | undefined,
  columns: number | undefined,
): { rows: number; width: number } {
  return {
    rows: rows === undefined || rows <= 0 ? PICKER_ROWS : Math.max(5, rows - PICKER_CHROME_LINES),
    width: columns === undefined || columns <= 0 ? 92 : Math.max(20, columns - PICKER_CHROME_COLUMNS),
  };
}

/** The picker's size in the terminal ink draws to. */
export function usePickerSize(): { rows: number; width: number } {
  const { stdout } = useStdout();
  return pickerSize(stdout.rows, stdout.columns);
}

function labelOf(item: PickerItem, width?: number): string {
  return typeof item.label === "string" ? item.label : item.label(width);
}

/** The state a picker opens in. */
export function initialPickerState(picker: Picker): PickerState {
  const selected = Math.max(0, Math.min(picker.initialIndex ?? 0, picker.items.length - 1));
  return { filter: "", visible: picker.items, selected };
}

/** Whether the letters of `needle` appear in `text` in order (`cmpct` in `compact`). */
function inOrder(needle: string, text: string): boolean {
  let at = 0;
  for (const letter of text) if (letter === needle[at]) at++;
  return at === needle.length;
}

/**
 * How well a row matches what was typed (lower is better; undefined: not at all): its key or label exactly,
 * then one starting with it, then a label or a note holding it, then a key holding its letters in order.
 */
function matchRank(item: PickerItem, needle: string): number | undefined {
  const name = needle.replace(/^\//, "");
  const key = item.key.toLowerCase();
  const label = labelOf(item).toLowerCase();
  if (key === name || label === needle || label.split(/\s/)[0] === `/${name}`) return 0;
  if (key.startsWith(name) || label.startsWith(needle) || label.startsWith(`/${name}`)) return 1;
  if (label.includes(needle)) return 2;
  if ((item.detail ?? "").toLowerCase().includes(needle)) return 3;
  return name.length > 1 && inOrder(name, key) ? 4 : undefined;
}

/** The rows matching `filter`, best first (exact name, prefix, text, letters in order); stable within a rank. */
function filtered(picker: Picker, filter: string): readonly PickerItem[] {
  if (filter === "") return picker.items;
  const needle = filter.toLowerCase();
  const ranked: { item: PickerItem; rank: number }[] = [];
  for (const item of picker.items) {
    const rank = matchRank(item, needle);
    if (rank !== undefined) ranked.push({ item, rank });
  }
  return ranked.sort((a, b) => a.rank - b.rank).map(({ item }) => item);
}

/** What a key did to a picker. */
export type PickerKeyResult =
  | { kind: "state"; state: PickerState }
  | { kind: "action"; run: () => void }
  | { kind: "choose"; key: string }
  | { kind: "cancel" };

/**
 * The picker's answer to a key: a new state, a choice (Enter), one of the picker's own `keys` (an action,
 * on a picker that does not filter), or leaving (Esc, Ctrl-C). Page Up/Down move by `pageRows`.
 *
 * Contract: pure (labels are computed only to filter); Enter on an empty list changes nothing.
 */
export function pickerKey(
  picker: Picker,
  state: PickerState,
  input: string,
  key: Key,
  pageRows: number = PICKER_ROWS,
): PickerKeyResult {
  if (key.escape || (key.ctrl && input === "c")) return { kind: "cancel" };
  const { visible, selected } = state;
  if (key.return) {
    const item = visible[selected];
    return item === undefined ? { kind: "state", state } : { kind: "choose", key: item.key };
  }
  const move = (to: number): PickerKeyResult => ({
    kind: "state",
    state: { ...state, selected: Math.max(0, Math.min(to, visible.length - 1)) },
  });
  if (key.upArrow) return move(selected - 1);
  if (key.downArrow) return move(selected + 1);
  if (key.pageUp) return move(selected - pageRows);
  if (key.pageDown) return move(selected + pageRows);
  if (key.home) return move(0);
  if (key.end) return move(visible.length - 1);
  if (picker.filterable !== true) {
    const action = key.ctrl || key.meta ? undefined : picker.keys?.[input];
    return action === undefined ? { kind: "state", state } : { kind: "action", run: action };
  }
  let filter = state.filter;
  if (key.backspace || key.delete) filter = filter.slice(0, -1);
  else if (input !== "" && !key.ctrl && !key.meta && !key.tab) filter += input;
  if (filter === state.filter) return { kind: "state", state };
  return { kind: "state", state: { filter, visible: filtered(picker, filter), selected: 0 } };
}

/**
 * Renders a picker in its state.
 *
 * Contract: renders at most as many rows as the terminal has room for ({@link pickerSize}), as wide as it
 * is; labels of other rows are not computed.
 */
export function PickerView(props: { picker: Picker; state: PickerState }): ReactNode {
  const { picker, state } = props;
  const theme = useTheme();
  const { visible, selected } = state;
  const size = usePickerSize();
  const first = Math.max(0, Math.min(selected - Math.floor(size.rows / 2), visible.length - size.rows));
  const rows = visible.slice(first, first + size.rows);
  const width = size.width;
  const muted = theme.colorOf("muted");
  return (
    <Box flexDirection="column" borderStyle="round" borderColor={theme.colorOf("accent")} paddingX={1}>
      <Text bold color={theme.colorOf("accent")}>
        {picker.title}
      </Text>
      {picker.filterable === true ? (
        <Text color={muted}>{state.filter === "" ? "type to filter" : `filter: ${state.filter}`}</Text>
      ) : null}
      {first > 0 ? <Text color={muted}>{`  ↑ ${first} more`}</Text> : null}
      {rows.length === 0 ? <Text color={muted}>{picker.emptyText ?? "(nothing to choose)"}</Text> : null}
      {rows.map((item, offset) => {
        const chosen = first + offset === selected;
        const text = clipText(`${labelOf(item, width)}${item.detail ? `  ${item.detail}` : ""}`, width);
        return (
          <Text
            key={item.key}
            inverse={chosen}
            color={!chosen && item.current === true ? theme.colorOf("accent") : undefined}
          >
            {`${chosen ? "›" : " "}${item.current === true ? "•" : " "} ${text}`}
          </Text>
        );
      })}
      {first + rows.length < visible.length ? (
        <Text color={muted}>{`  ↓ ${visible.length - first - rows.length} more`}</Text>
      ) : null}
      <Text color={muted}>{picker.hint ?? "↑↓ move · Enter choose · Esc cancel"}</Text>
    </Box>
  );
}
