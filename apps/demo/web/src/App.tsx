/**
 * The demo page: sessions on the left, the tree in the middle with the selected node's panel, the chat
 * and the context meter on the right. State comes from commands; the event stream feeds
 * `@arbor/session-view`'s view model (through the page's transport), whose live slice is the streaming reply,
 * the running tools and the busy state, and says when to read the tree, the transcript and the meter again.
 */
import { type ProtocolEvent, SessionViewModel } from "@arbor/session-view";
import { startTransition, useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";
import {
  type ContextAnswer,
  command,
  connectEvents,
  type GraphAnswer,
  type GraphNode,
  type ServerEvent,
  type ServerInfo,
  serverInfo,
  type TranscriptAnswer,
} from "./api.js";
import { Chat } from "./Chat.js";
import { ContextMeter } from "./ContextMeter.js";
import { ExtensionCommands, type ExtensionNoticeView } from "./ExtensionCommands.js";
import { NodePanel } from "./NodePanel.js";
import { PermissionDialog, usePermissionQuestions } from "./PermissionDialog.js";
import { createPageTransport } from "./page-transport.js";
import { SessionList } from "./SessionList.js";
import { TreeGraph } from "./TreeGraph.js";

/** Events after which the tree, the transcript and the meter are read again. */
const REFRESH_ON = new Set([
  "session",
  "save_point",
  "settled",
  "compaction_end",
  "branch_summary",
  "message_end",
  "tour_end",
  "error",
]);

/** Notices of extensions kept on the page. */
const NOTICES_SHOWN = 5;

export function App() {
  const [info, setInfo] = useState<ServerInfo | undefined>();
  const [notices, setNotices] = useState<ExtensionNoticeView[]>([]);
  const permissions = usePermissionQuestions();
  const [graph, setGraph] = useState<GraphAnswer | undefined>();
  const [transcript, setTranscript] = useState<TranscriptAnswer | undefined>();
  const [breakdown, setBreakdown] = useState<ContextAnswer | undefined>();
  // The live part: the view model over the page's transport (the history comes from `get_transcript`).
  const [transport] = useState(() => createPageTransport({ messages: false }));
  const [view] = useState(() => new SessionViewModel());
  const live = useSyncExternalStore(view.subscribe, () => view.live);
  /** A prompt was sent and its run has not shown yet. */
  const [sending, setSending] = useState(false);
  const busy = live.busy || sending;
  const [selection, setSelection] = useState<string[]>([]);
  const [focusId, setFocusId] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [connected, setConnected] = useState(false);
  const [sessionsVersion, setSessionsVersion] = useState(0);
  const expanded = useRef(new Set<string>());
  const sessionId = useRef<string | undefined>(undefined);
  const timer = useRef<number | undefined>(undefined);
  const opened = useRef(false);

  const refresh = useCallback(async () => {
    try {
      const [nextGraph, nextTranscript, nextBreakdown] = await Promise.all([
        command({ type: "get_graph", expanded: [...expanded.current] }),
        command({ type: "get_transcript" }),
        command({ type: "get_context" }),
      ]);
      sessionId.current = nextGraph.sessionId;
      setGraph(nextGraph);
      // The chat and the meter after the tree: a long transcript does not hold back the tree's first draw.
      startTransition(() => {
        setTranscript(nextTranscript);
        setBreakdown(nextBreakdown);
      });
    } catch (caught) {
      setError((caught as Error).message);
    }
  }, []);

  const scheduleRefresh = useCallback(() => {
    if (timer.current !== undefined) return;
    timer.current = window.setTimeout(() => {
      timer.current = undefined;
      void refresh();
    }, 30);
  }, [refresh]);

  const onError = useCallback((message: string) => setError(message), []);

  useEffect(() => {
    serverInfo()
      .then(setInfo)
      .catch((caught: Error) => setError(caught.message));
    void refresh();
    view.attach(transport, { replay: false });
    const disconnect = connectEvents({
      onEvent: (event: ServerEvent) => {
        if (event.type === "session" && event.sessionId !== sessionId.current) {
          expanded.current = new Set();
          setSelection([]);
          view.attach(transport, { replay: false });
          setSessionsVersion((version) => version + 1);
        }
        if (
          event.sessionId !== undefined &&
          sessionId.current !== undefined &&
          event.sessionId !== sessionId.current &&
          event.type !== "session"
        )
          return;
        transport.push(event as unknown as ProtocolEvent);
        permissions.handle(event);
        if (event.type === "settled") setSending(false);
        if (event.type === "error") setError(String(event.error));
        if (event.type === "notice") {
          const notice = {
            level: String(event.level),
            message: String(event.message),
            source: String(event.source ?? ""),
          };
          setNotices((shown) => [...shown.slice(1 - NOTICES_SHOWN), notice]);
        }
        if (REFRESH_ON.has(event.type)) scheduleRefresh();
      },
      onReset: () => {
        view.attach(transport, { replay: false });
        void refresh();
      },
      onOpen: () => {
        setConnected(true);
        // A reconnection may have missed a change of session; the first connection follows the first read.
        if (opened.current) scheduleRefresh();
        opened.current = true;
      },
      onError: () => setConnected(false),
    });
    return () => {
      disconnect();
      view.detach();
    };
  }, [refresh, scheduleRefresh, transport, view, permissions.handle]);

  // The run of a sent prompt shows in the live slice: from then on, its busy state is the view model's.
  useEffect(() => {
    if (live.busy) setSending(false);
  }, [live.busy]);

  // Bring the new leaf into view when it moves (a prompt, a navigation, another session).
  const leafId = graph?.leafId ?? undefined;
  useEffect(() => {
    if (leafId !== undefined) setFocusId(leafId);
  }, [leafId]);

  const nodes = graph?.nodes ?? [];
  const byEntry = new Map<string, GraphNode>();
  for (const node of nodes) byEntry.set(node.id, node);
  const selected = selection[0] === undefined ? undefined : byEntry.get(selection[0]);
  const second = selection[1] === undefined ? undefined : byEntry.get(selection[1]);

  const focus = useCallback(
    (entryId: string) => {
      const present = graph?.nodes.some((node) => node.id === entryId) ?? false;
      if (!present) expanded.current.add(entryId);
      setSelection([entryId]);
      setFocusId(entryId);
      if (!present) void refresh();
    },
    [graph, refresh],
  );

  const select = useCallback((node: GraphNode, additive: boolean) => {
    setSelection((current) =>
      additive && current[0] !== undefined && current[0] !== node.id ? [current[0], node.id] : [node.id],
    );
  }, []);
  const expand = useCallback(
    (node: GraphNode) => {
      expanded.current.add(node.entryId);
      void refresh();
    },
    [refresh],
  );

  return (
    <div className="app">
      <header>
        <strong>Arbor</strong> — the session tree, live
        <span className="meta">
          {info === undefined ? "" : ` · ${info.model} · ${info.store}`}
          {info === undefined ? (
            ""
          ) : (
            <span data-testid="tools-folder" title="where the agent's tools run (--cwd)">
              {` · tools in ${info.cwd}${info.freshCwd ? " (a fresh temporary folder)" : ""}`}
            </span>
          )}
          {graph === undefined
            ? ""
            : ` · session ${graph.sessionId.slice(0, 8)} · ${graph.entryCount.toLocaleString("en-US")} entries`}
          {connected ? "" : " · reconnecting…"}
        </span>
        {error !== undefined && (
          <button type="button" className="error" data-testid="error" onClick={() => setError(undefined)}>
            {error} ✕
          </button>
        )}
      </header>
      <PermissionDialog questions={permissions.questions} onError={onError} />
      <aside className="left">
        <SessionList
          currentId={graph?.sessionId}
          entryCount={graph?.entryCount}
          version={sessionsVersion}
          onError={onError}
        />
        <ExtensionCommands notices={notices} onError={onError} />
      </aside>
      <main className="middle">
        <TreeGraph
          nodes={nodes}
          selection={selection}
          focusId={focusId}
          onSelect={select}
          onExpand={expand}
        />
        <NodePanel
          node={selected}
          second={second}
          leafId={graph?.leafId ?? null}
          busy={busy}
          onFocus={focus}
          onError={onError}
          onDone={scheduleRefresh}
        />
      </main>
      <aside className="right">
        <ContextMeter breakdown={breakdown} onSummary={focus} />
        <Chat
          transcript={transcript}
          live={live}
          busy={busy}
          onSelect={focus}
          onSend={(text) => {
            setSending(true);
            command({ type: "prompt", text })
              .then((answer) => {
                // An extension command runs no agent: nothing more will show.
                if (answer?.command === true) setSending(false);
              })
              .catch((caught: Error) => {
                setSending(false);
                setError(caught.message);
              });
          }}
          onAbort={() => {
            command({ type: "abort" }).catch((caught: Error) => setError(caught.message));
          }}
        />
      </aside>
    </div>
  );
}
