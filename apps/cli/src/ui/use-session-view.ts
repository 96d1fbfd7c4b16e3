/**
 * The ink app's adapter to `@arbor/session-view`: React hooks that read a slice of a `SessionViewModel`
 * through `useSyncExternalStore`, so a component re-renders only when its own slice changes.
 */
import { type FooterView, type LiveView, SessionViewModel, type TranscriptView } from "@arbor/session-view";
import { useSyncExternalStore } from "react";

/** The view model of the interactive UI (a replay points at `arbor sessions show` for what it leaves out). */
export function createSessionView(persistent: boolean): SessionViewModel {
  return new SessionViewModel({ persistent, replayHint: "arbor sessions show lists them all" });
}

/** The transcript slice (the items of the current generation). */
export function useTranscript(model: SessionViewModel): TranscriptView {
  return useSyncExternalStore(model.subscribe, () => model.transcript);
}

/** The live slice (the streaming reply, running tools, queues, the hint). */
export function useLive(model: SessionViewModel): LiveView {
  return useSyncExternalStore(model.subscribe, () => model.live);
}

/** The footer slice (model, usage and cost totals, context usage). */
export function useFooter(model: SessionViewModel): FooterView {
  return useSyncExternalStore(model.subscribe, () => model.footer);
}
