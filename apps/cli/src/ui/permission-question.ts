/**
 * The terminal's side of the permission gate (docs/permissions.md): while the app runs it is the gate's
 * asker, so a tool call that needs permission opens a picker in place of the editor — Allow once, Allow for
 * this session, Deny (also `y`, `a`, `n`; Esc or Ctrl-C is a "no") — showing the command or path; and every
 * decision the gate records is a short line of the transcript.
 */
import type { AppRuntime, PermissionAnswer, PermissionRequest } from "@arbor/app-runtime";
import type { Picker } from "@arbor/app-runtime/input";
import { describePermissionRecord, type SessionViewModel } from "@arbor/session-view";
import { useEffect } from "react";

const ANSWERS: readonly { key: PermissionAnswer; label: string; shortcut: string }[] = [
  { key: "once", label: "Allow once", shortcut: "y" },
  { key: "session", label: "Allow for this session", shortcut: "a" },
  { key: "deny", label: "Deny", shortcut: "n" },
];

/**
 * The picker of one question; `answer` is called once, with the user's answer.
 *
 * Contract: pure; the picker's own keys (`y`, `a`, `n`) answer and ask the caller to close it.
 */
export function permissionPicker(
  request: PermissionRequest,
  answer: (answer: PermissionAnswer) => void,
  close: (picker: Picker) => void,
): Picker {
  const what =
    request.toolName === "bash" ? `run ${request.summary}` : `${request.toolName} ${request.summary}`;
  const picker: Picker = {
    title: `Permission (mode ${request.mode}): allow ${what}?`,
    items: ANSWERS.map((item) => ({
      key: item.key,
      label: item.label,
      detail: item.key === "session" ? `(${request.suggestedRule})` : `[${item.shortcut}]`,
    })),
    hint: "↑↓ move · Enter choose · y once · a session · n or Esc deny",
    keys: Object.fromEntries(
      ANSWERS.map((item) => [
        item.shortcut,
        () => {
          close(picker);
          answer(item.key);
        },
      ]),
    ),
    onSelect: (key) => answer(key as PermissionAnswer),
    onCancel: () => answer("deny"),
  };
  return picker;
}

/**
 * Attaches the app as the gate's asker and shows its decisions as transcript lines.
 *
 * Contract: `open` shows a picker in place of the editor; `close` removes it if it is still shown.
 */
export function usePermissionQuestions(
  runtime: AppRuntime,
  store: SessionViewModel,
  overlay: { open: (picker: Picker) => void; close: (picker: Picker) => void },
): void {
  // biome-ignore lint/correctness/useExhaustiveDependencies: attached once, for the app's lifetime
  useEffect(() => {
    const shown = new Map<string, Picker>();
    const stopAsking = runtime.permissions.attachAsker((request) => {
      const picker = permissionPicker(
        request,
        (answer) => {
          shown.delete(request.requestId);
          runtime.permissions.reply(request.requestId, answer);
        },
        overlay.close,
      );
      shown.set(request.requestId, picker);
      overlay.open(picker);
    });
    const stopDecisions = runtime.permissions.onDecision((decision) => {
      const picker = decision.requestId === undefined ? undefined : shown.get(decision.requestId);
      if (picker !== undefined) {
        // Answered elsewhere (the run was stopped): the question goes away.
        shown.delete(decision.requestId as string);
        overlay.close(picker);
      }
      store.notice(decision.decision === "denied" ? "warning" : "info", describePermissionRecord(decision));
    });
    return () => {
      stopAsking();
      stopDecisions();
    };
  }, [runtime, store]);
}
