/**
 * A picker front end's side of the permission gate (docs/permissions.md): {@link attachPermissionQuestions}
 * makes the front end the gate's asker, so a tool call that needs permission opens a {@link Picker} — Allow
 * once, Allow for this session, Deny (also `y`, `a`, `n`; leaving the picker is a "no") — showing the
 * command or path; and every decision the gate records becomes a notice line. The terminal draws it; any
 * other front end that draws pickers can use it as it is.
 */
import { describePermissionRecord } from "@arbor/session-view";
import type { PermissionAnswer, PermissionGate, PermissionRequest } from "../permissions/permission-gate.js";
import type { Picker } from "./slash/command-types.js";

const ANSWERS: readonly { key: PermissionAnswer; label: string; shortcut: string }[] = [
  { key: "once", label: "Allow once", shortcut: "y" },
  { key: "session", label: "Allow for this session", shortcut: "a" },
  { key: "deny", label: "Deny", shortcut: "n" },
];

/**
 * The picker of one question; `answer` is called once, with the user's answer (`deny` when the picker is
 * left without a choice).
 *
 * Contract: pure; the picker's own keys (`y`, `a`, `n`) call `close` with the picker, then answer.
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

/** What {@link attachPermissionQuestions} needs from the front end. */
export interface PermissionQuestionHost {
  /**
   * Shows a picker in place of the input.
   *
   * Contract: must not throw.
   */
  open(picker: Picker): void;
  /**
   * Removes the picker if it is still shown (the question was answered elsewhere, or by a key).
   *
   * Contract: must not throw.
   */
  close(picker: Picker): void;
  /**
   * Shows one line of the transcript: a decision (`warning` for a refusal).
   *
   * Contract: must not throw.
   */
  notice(level: "info" | "warning", text: string): void;
}

/**
 * Attaches a picker front end to the gate (see the module comment); returns the function that detaches it.
 *
 * Contract: each question opens one picker; a decision that answers a shown question closes it.
 */
export function attachPermissionQuestions(gate: PermissionGate, host: PermissionQuestionHost): () => void {
  const shown = new Map<string, Picker>();
  const stopAsking = gate.attachAsker((request) => {
    const picker = permissionPicker(
      request,
      (answer) => {
        shown.delete(request.requestId);
        gate.reply(request.requestId, answer);
      },
      host.close,
    );
    shown.set(request.requestId, picker);
    host.open(picker);
  });
  const stopDecisions = gate.onDecision((decision) => {
    const picker = decision.requestId === undefined ? undefined : shown.get(decision.requestId);
    if (picker !== undefined && decision.requestId !== undefined) {
      shown.delete(decision.requestId);
      host.close(picker);
    }
    host.notice(decision.decision === "denied" ? "warning" : "info", describePermissionRecord(decision));
  });
  return () => {
    stopAsking();
    stopDecisions();
  };
}
