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

import { clipText, type Picker, type PickerItem } from "@arbor/session-view";
import { Box, type Key, Text } from "ink";
import type { ReactNode } from "react";
import { useTheme } from "../theme.js";

/** Where a picker is: what was typed, the rows that match it, the selected row. */
export interface PickerState {
  readonly filter: string;
  readonly visible: readonly PickerItem[];
  readonly selected: number;
}

/** Rows shown at once. */
export const PICKER_ROWS = 12;

function labelOf(item: PickerItem): string {
  return typeof item.label === "string" ? item.label : item.label();
}

/** The state a picker opens in. */
export function initialPickerState(picker: Picker): PickerState {
  const selected = Math.max(0, Math.min(picker.initialIndex ?? 0, picker.items.length - 1));
  return { filter: "", visible: picker.items, selected };
}

function filtered(picker: Picker, filter: string): readonly PickerItem[] {
  if (filter === "") return picker.items;
  const needle = filter.toLowerCase();
  return picker.items.filter((item) =>
    `${labelOf(item)} ${item.detail ?? ""}`.toLowerCase().includes(needle),
  );
}

/** What a key did to a picker. */
export type PickerKeyResult =
  | { kind: "state"; state: PickerState }
  | { kind: "choose"; key: string }
  | { kind: "cancel" };

/**
 * The picker's answer to a key: a new state, a choice (Enter), or leaving (Esc, Ctrl-C).
 *
 * Contract: pure (labels are computed only to filter); Enter on an empty list changes nothing.
 */
export function pickerKey(picker: Picker, state: PickerState, input: string, key: Key): PickerKeyResult {
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
  if (key.pageUp) return move(selected - PICKER_ROWS);
  if (key.pageDown) return move(selected + PICKER_ROWS);
  if (key.home) return move(0);
  if (key.end) return move(visible.length - 1);
  if (picker.filterable !== true) return { kind: "state", state };
  let filter = state.filter;
  if (key.backspace || key.delete) filter = filter.slice(0, -1);
  else if (input !== "" && !key.ctrl && !key.meta && !key.tab) filter += input;
  if (filter === state.filter) return { kind: "state", state };
  return { kind: "state", state: { filter, visible: filtered(picker, filter), selected: 0 } };
}

/**
 * Renders a picker in its state.
 *
 * Contract: renders at most {@link PICKER_ROWS} rows; labels of other rows are not computed.
 */
export function PickerView(props: { picker: Picker; state: PickerState; width?: number }): ReactNode {
  const { picker, state } = props;
  const theme = useTheme();
  const { visible, selected } = state;
  const first = Math.max(0, Math.min(selected - Math.floor(PICKER_ROWS / 2), visible.length - PICKER_ROWS));
  const rows = visible.slice(first, first + PICKER_ROWS);
  const width = props.width ?? 92;
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
        const text = clipText(`${labelOf(item)}${item.detail ? `  ${item.detail}` : ""}`, width);
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
