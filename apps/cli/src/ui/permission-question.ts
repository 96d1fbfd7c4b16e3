/**
 * The terminal as the permission gate's asker (docs/permissions.md): a question opens app-runtime's
 * permission picker in place of the editor, and each decision is a line of the transcript.
 */
import type { AppRuntime } from "@arbor/app-runtime";
import { attachPermissionQuestions, type Picker } from "@arbor/app-runtime/input";
import type { SessionViewModel } from "@arbor/session-view";
import { useEffect } from "react";

/** Attaches the app as the gate's asker while it is mounted (`open` shows a picker, `close` removes it). */
export function usePermissionQuestions(
  runtime: AppRuntime,
  store: SessionViewModel,
  overlay: { open: (picker: Picker) => void; close: (picker: Picker) => void },
): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: attached once, for the app's lifetime
  useEffect(
    () =>
      attachPermissionQuestions(runtime.permissions, {
        ...overlay,
        notice: (level, text) => store.notice(level, text),
      }),
    [runtime, store],
  );
}
