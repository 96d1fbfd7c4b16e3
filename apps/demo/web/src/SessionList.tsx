/**
 * The sessions of the store (a page at a time, newest activity first): open or resume one, start a new
 * one, import a session file (the pi agent's or Arbor's JSONL), or delete one (after asking; the current
 * session and one another process writes are refused, with the reason). The current session is always listed:
 * a new one is stored with its first entry, so until then it shows as "new session", and the list is read
 * again as its entries come.
 */
import { useCallback, useEffect, useState } from "react";
import { command, type RpcCommand, type SessionPageAnswer } from "./api.js";

type Summary = SessionPageAnswer["sessions"][number];

/** Props of {@link SessionList}. */
export interface SessionListProps {
  currentId: string | undefined;
  /** The current session's entries: when they change and the session is not listed yet, the list is read again. */
  entryCount: number | undefined;
  /** Changes when the list may have changed (a fork, an import). */
  version: number;
  onError: (message: string) => void;
}

/** The list (see the module comment). */
export function SessionList(props: SessionListProps) {
  const [sessions, setSessions] = useState<Summary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);
  const { onError } = props;
  const load = useCallback(
    async (after: string | null) => {
      try {
        const page = await command({
          type: "list_sessions",
          // Every working directory's sessions: an imported one keeps its own.
          all: true,
          limit: 20,
          ...(after === null ? {} : { cursor: after }),
        });
        setSessions((previous) => (after === null ? page.sessions : [...previous, ...page.sessions]));
        setLoaded(true);
        setCursor(page.nextCursor);
      } catch (error) {
        onError(String((error as Error).message));
      }
    },
    [onError],
  );
  const { version, currentId } = props;
  // biome-ignore lint/correctness/useExhaustiveDependencies: read the first page again when the list may have changed
  useEffect(() => {
    void load(null);
  }, [load, version, currentId]);
  // A new session is stored with its first entry: read the list again until it is in it.
  const listed = currentId === undefined || sessions.some((session) => session.id === currentId);
  const { entryCount } = props;
  // biome-ignore lint/correctness/useExhaustiveDependencies: only the current session's new entries matter
  useEffect(() => {
    if (!listed) void load(null);
  }, [entryCount]);
  const run = (body: RpcCommand) => {
    command(body).catch((error: Error) => onError(error.message));
  };
  const remove = async (session: Summary) => {
    const title = session.name ?? session.firstMessage ?? session.id.slice(0, 8);
    if (
      !window.confirm(
        `Delete the session "${title}" (${session.messageCount} messages)? This cannot be undone.`,
      )
    )
      return;
    try {
      const result = await command({ type: "delete_sessions", sessionIds: [session.id] });
      for (const refused of result.refused) onError(`Not deleted: ${refused.reason}`);
      setSessions((previous) => previous.filter((item) => !result.deleted.includes(item.id)));
    } catch (error) {
      onError(String((error as Error).message));
    }
  };
  return (
    <div className="sessions" data-testid="sessions">
      <div className="sessions-head">
        <strong>Sessions</strong>
        <button type="button" data-testid="new-session" onClick={() => run({ type: "new_session" })}>
          New
        </button>
        <label className="button">
          Import…
          <input
            type="file"
            accept=".jsonl,application/json,text/plain"
            data-testid="import-file"
            onChange={async (event) => {
              const file = event.target.files?.[0];
              if (file === undefined) return;
              run({ type: "import_session", text: await file.text() });
              event.target.value = "";
            }}
          />
        </label>
      </div>
      <ul>
        {!listed && loaded && props.entryCount === 0 && (
          <li className="current">
            <button
              type="button"
              className="link"
              data-testid="session-item"
              data-session-id={currentId}
              title="a new session is saved with its first message"
            >
              New session
            </button>
            <span className="meta">nothing saved yet</span>
          </li>
        )}
        {sessions.map((session) => (
          <li key={session.id} className={session.id === props.currentId ? "current" : ""}>
            <button
              type="button"
              className="link"
              data-testid="session-item"
              data-session-id={session.id}
              onClick={() => run({ type: "open_session", sessionId: session.id })}
            >
              {session.name ?? session.firstMessage ?? session.id.slice(0, 8)}
            </button>
            {session.id !== props.currentId && (
              <button
                type="button"
                className="link delete"
                data-testid="delete-session"
                title="delete this session"
                aria-label="delete this session"
                onClick={() => void remove(session)}
              >
                ×
              </button>
            )}
            <span className="meta">
              {session.messageCount} messages · {new Date(session.updatedAt).toLocaleString()}
              {session.parentSession !== null ? " · fork" : ""}
            </span>
          </li>
        ))}
      </ul>
      {cursor !== null && (
        <button type="button" onClick={() => void load(cursor)}>
          More…
        </button>
      )}
    </div>
  );
}
