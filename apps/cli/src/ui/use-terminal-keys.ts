/**
 * The interactive UI's one key listener: ink's `useInput`, with each input event split into the keys it
 * holds ({@link KeyReader}), so keys that reach the app in one chunk act as if typed one by one.
 */
import { useInput, useStdin } from "ink";
import { useEffect, useMemo, useRef } from "react";
import { KeyReader, type TerminalKey } from "./key-chunks.js";

/**
 * Calls `handler` with the keys of each input event, in order (a paste is one key).
 *
 * Contract: `handler` is called synchronously for each event that holds keys, inside ink's batched update
 * (so what it sets renders once); it is never called with an empty list.
 */
export function useTerminalKeys(handler: (keys: readonly TerminalKey[]) => void): void {
  // ink hands each event of its input parser to its listeners; `useInput` sees it only as parsed (an escape
  // sequence loses its ESC, a chunk of text and control characters is one "key"). This listener, put first,
  // keeps the event as it came, for the reader.
  const { internal_eventEmitter: events } = useStdin();
  const raw = useRef<string | undefined>(undefined);
  const reader = useMemo(() => new KeyReader(), []);
  useEffect(() => {
    const record = (input: string) => {
      raw.current = input;
    };
    events.prependListener("input", record);
    return () => {
      events.removeListener("input", record);
    };
  }, [events]);
  useInput((input, key) => {
    const event = raw.current;
    raw.current = undefined;
    const keys = event === undefined ? [{ input, key }] : reader.read(event, input, key);
    if (keys.length > 0) handler(keys);
  });
}
