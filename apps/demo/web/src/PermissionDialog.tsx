/**
 * The question a tool call waits on (`--permissions ask` or `edits`, see docs/permissions.md): the server's
 * `permission_request` record opens it, one of three buttons answers with the `permission_reply` command —
 * Allow once, Allow for this session, Deny (Esc too) — and the `permission_decision` record that answers the
 * request (from this page, another page, or an abort of the run) closes it.
 */
import { useCallback, useEffect, useState } from "react";
import { command, type ServerEvent } from "./api.js";

/** A question waiting for an answer. */
export interface PermissionQuestion {
  requestId: string;
  toolName: string;
  summary: string;
  suggestedRule: string;
  mode: string;
}

/** The questions waiting, and the handler of the event stream's records that open and close them. */
export function usePermissionQuestions(): {
  questions: readonly PermissionQuestion[];
  handle: (event: ServerEvent) => void;
} {
  const [questions, setQuestions] = useState<PermissionQuestion[]>([]);
  const handle = useCallback((event: ServerEvent) => {
    if (event.type === "permission_request") {
      const question: PermissionQuestion = {
        requestId: String(event.requestId),
        toolName: String(event.toolName),
        summary: String(event.summary),
        suggestedRule: String(event.suggestedRule),
        mode: String(event.mode),
      };
      setQuestions((waiting) =>
        waiting.some((item) => item.requestId === question.requestId) ? waiting : [...waiting, question],
      );
    } else if (event.type === "permission_decision" && typeof event.requestId === "string") {
      setQuestions((waiting) => waiting.filter((item) => item.requestId !== event.requestId));
    }
  }, []);
  // A page opened (or reloaded) while a question waits shows it too.
  useEffect(() => {
    command({ type: "get_state" })
      .then((state) => {
        for (const request of state.permissionRequests ?? []) {
          handle({ ...request, type: "permission_request", sessionId: state.sessionId });
        }
      })
      .catch(() => undefined);
  }, [handle]);
  return { questions, handle };
}

/** Props of {@link PermissionDialog}. */
export interface PermissionDialogProps {
  questions: readonly PermissionQuestion[];
  onError: (message: string) => void;
}

/** The dialog of the first question waiting (see the module comment); nothing when none waits. */
export function PermissionDialog(props: PermissionDialogProps) {
  const question = props.questions[0];
  const { onError } = props;
  const [sent, setSent] = useState<string | undefined>();
  const answer = useCallback(
    (decision: "once" | "session" | "deny") => {
      if (question === undefined) return;
      setSent(question.requestId);
      command({ type: "permission_reply", requestId: question.requestId, decision }).catch((error: Error) =>
        onError(error.message),
      );
    },
    [question, onError],
  );
  useEffect(() => {
    if (question === undefined) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") answer("deny");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [question, answer]);
  if (question === undefined) return null;
  const waiting = sent === question.requestId;
  const what = question.toolName === "bash" ? "run this command" : `use ${question.toolName} on`;
  return (
    <div className="permission-backdrop">
      <div
        className="permission-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="permission-title"
        data-testid="permission-dialog"
        data-tool={question.toolName}
      >
        <strong id="permission-title">Allow {question.toolName}?</strong>
        <p>The model wants to {what}:</p>
        <pre data-testid="permission-summary">{question.summary}</pre>
        <p className="permission-mode">
          Permission mode <code>{question.mode}</code>
          {props.questions.length > 1 ? ` · ${props.questions.length - 1} more waiting` : ""}
        </p>
        <div className="permission-buttons">
          <button
            type="button"
            data-testid="permission-once"
            disabled={waiting}
            onClick={() => answer("once")}
          >
            Allow once
          </button>
          <button
            type="button"
            data-testid="permission-session"
            disabled={waiting}
            title={`adds ${question.suggestedRule} until the session ends`}
            onClick={() => answer("session")}
          >
            Allow for this session
          </button>
          <button
            type="button"
            className="deny"
            data-testid="permission-deny"
            disabled={waiting}
            onClick={() => answer("deny")}
          >
            Deny
          </button>
        </div>
        <p className="permission-hint">
          For this session adds <code>{question.suggestedRule}</code> · Esc denies
        </p>
      </div>
    </div>
  );
}
