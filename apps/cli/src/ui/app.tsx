// @jsxRuntime automatic
// @jsxImportSource react
/**
 * The interactive app: the printed transcript, the live part, the editor (or a picker in its place) and the
 * footer. One key handler routes every key — to the open picker, to the global keys (Esc and Ctrl-C stop a
 * run; Ctrl-C twice while idle quits), or to the editor — so a key is never handled twice.
 */

import type { AppRuntime } from "@arbor/app-runtime";
import {
  commandMenu,
  createEditorBuffer,
  createFileMentions,
  type EditorBuffer,
  expandPastes,
  InteractiveController,
  insertText,
  type Picker,
  replaceText,
  submitted,
} from "@arbor/app-runtime/input";
import { contentText, type SessionViewModel } from "@arbor/session-view";
import { Box, type Key, useApp } from "ink";
import { type ReactNode, useEffect, useMemo, useRef, useState } from "react";
import { EditorView, editorKey } from "./components/editor.js";
import { Footer } from "./components/footer.js";
import { LiveView } from "./components/live-view.js";
import {
  initialPickerState,
  type PickerState,
  PickerView,
  pickerKey,
  usePickerSize,
} from "./components/select-list.js";
import { Transcript } from "./components/transcript.js";
import type { TerminalKey } from "./key-chunks.js";
import { usePermissionQuestions } from "./permission-question.js";
import { type Theme, ThemeProvider } from "./theme.js";
import { useLive } from "./use-session-view.js";
import { useTerminalKeys } from "./use-terminal-keys.js";

/** Props of {@link App}. */
export interface AppProps {
  runtime: AppRuntime;
  store: SessionViewModel;
  theme: Theme;
  /** Sent as the first prompt once the app is up. */
  initialPrompt?: string;
  /**
   * Receives the controller (tests drive and await it).
   *
   * Contract: called once, after the first render; must not throw.
   */
  onController?: (controller: InteractiveController) => void;
  /**
   * Called when the app quits, before it unmounts.
   *
   * Contract: called at most once, with the session idle; must not throw.
   */
  onQuit?: () => void;
}

const HISTORY_SEED = 100;

/** The user messages of the session's context, oldest first: the editor's history at start. */
function historyOf(runtime: AppRuntime): string[] {
  const history: string[] = [];
  for (const message of runtime.session.state.messages) {
    if ((message as { role?: unknown }).role !== "user") continue;
    const text = contentText((message as { content?: unknown }).content);
    if (text.trim() !== "" && !text.startsWith("<skill ")) history.push(text);
  }
  return history.slice(-HISTORY_SEED);
}

/**
 * The interactive UI.
 *
 * Contract: never lets an error escape a key handler; every failure becomes a notice.
 */
export function App(props: AppProps): ReactNode {
  const { runtime, store, theme } = props;
  const { exit } = useApp();
  const [buffer, setBufferState] = useState<EditorBuffer>(() => createEditorBuffer(historyOf(runtime)));
  const bufferRef = useRef(buffer);
  const [overlay, setOverlayState] = useState<{ picker: Picker; state: PickerState } | undefined>(undefined);
  const overlayRef = useRef(overlay);
  const quitArmed = useRef(false);
  const live = useLive(store);
  const pickerRows = usePickerSize().rows;

  // While a chunk of keys is applied, the refs change and the state is set once at its end.
  const inChunk = useRef(false);
  const setBuffer = (next: EditorBuffer) => {
    bufferRef.current = next;
    if (!inChunk.current) setBufferState(next);
  };
  const setOverlay = (next: { picker: Picker; state: PickerState } | undefined) => {
    overlayRef.current = next;
    if (!inChunk.current) setOverlayState(next);
  };

  // biome-ignore lint/correctness/useExhaustiveDependencies: the controller lives as long as the app
  const controller = useMemo(
    () =>
      new InteractiveController(
        runtime,
        store,
        {
          openPicker: (picker) => setOverlay({ picker, state: initialPickerState(picker) }),
          setEditorText: (text) => setBuffer(replaceText(bufferRef.current, text)),
          editorText: () => bufferRef.current.text,
          exit: () => {
            props.onQuit?.();
            exit();
          },
        },
        {
          shell: (command, signal) => runtime.runShellCommand(command, signal),
          mentions: createFileMentions(runtime.cwd),
        },
      ),
    [],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: runs once, at start
  useEffect(() => {
    props.onController?.(controller);
    if (props.initialPrompt !== undefined && props.initialPrompt.trim() !== "") {
      controller.submit(props.initialPrompt, "enter");
    }
  }, []);

  // A tool call that needs permission opens its question in place of the editor (Esc: no).
  usePermissionQuestions(runtime, store, {
    open: (picker) => setOverlay({ picker, state: initialPickerState(picker) }),
    close: (picker) => {
      if (overlayRef.current?.picker === picker) setOverlay(undefined);
    },
  });

  // Extensions' notices (`ui.notify`, failed commands) are lines of the transcript.
  useEffect(
    () => runtime.extensions.onNotice((notice) => store.notice(notice.level, notice.message)),
    [runtime, store],
  );

  const globalKey = (input: string, key: Key): boolean => {
    const isCtrlC = key.ctrl && input === "c";
    if (!isCtrlC && quitArmed.current) {
      quitArmed.current = false;
      store.setHint(undefined);
    }
    if (isCtrlC) {
      if (controller.interrupt()) return true;
      if (bufferRef.current.text !== "") {
        setBuffer(replaceText(bufferRef.current, ""));
        return true;
      }
      if (quitArmed.current) {
        store.setHint(undefined);
        void controller.quit();
        return true;
      }
      quitArmed.current = true;
      store.setHint("Press Ctrl-C again to quit");
      return true;
    }
    if (key.escape) {
      controller.interrupt();
      return true;
    }
    if (key.ctrl && input === "o") return store.expandLastTool() || true;
    return false;
  };

  // One chunk of keys is applied in order to the refs; what changed renders once, at the end.
  const applyKey = (terminalKey: TerminalKey, rest: TerminalKey[]) => {
    const { input, key } = terminalKey;
    const open = overlayRef.current;
    if (open !== undefined) {
      // A picker takes typed text a letter at a time (a letter may be one of its actions, or choose).
      if (terminalKey.paste === undefined && input.length > 1 && !key.ctrl && !key.meta) {
        rest.unshift(...[...input].map((letter) => ({ input: letter, key })));
        return;
      }
      const typed = terminalKey.paste ? input.replace(/\s+/g, " ") : input;
      const result = pickerKey(open.picker, open.state, typed, key, pickerRows);
      if (result.kind === "state") {
        if (result.state !== open.state) setOverlay({ picker: open.picker, state: result.state });
        return;
      }
      if (result.kind === "action") return result.run();
      setOverlay(undefined);
      if (result.kind === "choose") open.picker.onSelect(result.key);
      else open.picker.onCancel?.();
      return;
    }
    if (globalKey(input, key)) return;
    if (terminalKey.paste) return setBuffer(insertText(bufferRef.current, input));
    if (input === "/" && bufferRef.current.text === "" && !key.ctrl && !key.meta) {
      setBuffer(replaceText(bufferRef.current, "/"));
      return controller.openPicker(commandMenu(controller));
    }
    const result = editorKey(bufferRef.current, input, key);
    if (result.submit !== undefined) {
      const text = expandPastes(result.buffer);
      if (controller.submit(text, result.submit)) {
        store.setHint(undefined);
        setBuffer(submitted(bufferRef.current, text));
      }
      return;
    }
    if (result.complete === true) {
      const completed = controller.complete(result.buffer.text);
      if (completed !== undefined) setBuffer(replaceText(result.buffer, completed));
      return;
    }
    if (result.buffer !== bufferRef.current) setBuffer(result.buffer);
  };

  useTerminalKeys((keys) => {
    const queue = [...keys];
    inChunk.current = true;
    try {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        try {
          applyKey(next, queue);
        } catch (error) {
          store.notice("error", error instanceof Error ? error.message : String(error));
        }
      }
    } finally {
      inChunk.current = false;
      setBufferState(bufferRef.current);
      setOverlayState(overlayRef.current);
    }
  });

  return (
    <ThemeProvider theme={theme}>
      <Box flexDirection="column">
        <Transcript store={store} />
        <LiveView store={store} escapeInterrupts={overlay === undefined} />
        {overlay === undefined ? (
          <EditorView buffer={buffer} active busy={live.busy} />
        ) : (
          <PickerView picker={overlay.picker} state={overlay.state} />
        )}
        <Footer store={store} />
      </Box>
    </ThemeProvider>
  );
}
