import type { CustomMessageInput, Session, SessionEntry } from "@arbor/session-store";

/**
 * A settings change waiting for the next save point (docs/reference/harness.md). Messages go to the session as
 * their `message_end` arrives (the session queues them in memory); settings changes made while an operation
 * is in flight wait here and join the session at the next save point, after the turn's messages — they take
 * effect from the next model call, which is where they belong in the tree.
 */
export type PendingWrite =
  | { type: "model_change"; provider: string; modelId: string }
  | { type: "thinking_level_change"; thinkingLevel: string }
  | { type: "active_tools_change"; activeToolNames: readonly string[] }
  | { type: "label"; targetId: string; label: string | undefined }
  | { type: "session_info"; name: string }
  | { type: "custom"; customType: string; data?: unknown }
  | { type: "custom_message"; input: CustomMessageInput };

/** Appends one pending write to a session (in memory; `flush()` writes it). */
export function appendPendingWrite(session: Session, write: PendingWrite): SessionEntry {
  switch (write.type) {
    case "model_change":
      return session.appendModelChange(write.provider, write.modelId);
    case "thinking_level_change":
      return session.appendThinkingLevelChange(write.thinkingLevel);
    case "active_tools_change":
      return session.appendActiveToolsChange(write.activeToolNames);
    case "label":
      return session.appendLabel(write.targetId, write.label);
    case "session_info":
      return session.appendSessionInfo(write.name);
    case "custom":
      return session.appendCustom(write.customType, write.data);
    case "custom_message":
      return session.appendCustomMessage(write.input);
  }
}

/** The queue of {@link PendingWrite}s, in the order they were made. */
export class PendingWrites {
  private writes: PendingWrite[] = [];

  /** Number of writes waiting. */
  get length(): number {
    return this.writes.length;
  }

  /** Queues a write. */
  push(write: PendingWrite): void {
    this.writes.push(write);
  }

  /**
   * Appends every queued write to the session, in order, and empties the queue. A write the session refuses
   * (e.g. a label whose target vanished) is skipped and returned, so nothing is silently lost.
   */
  applyTo(session: Session): { entries: SessionEntry[]; refused: { write: PendingWrite; error: unknown }[] } {
    const writes = this.writes;
    this.writes = [];
    const entries: SessionEntry[] = [];
    const refused: { write: PendingWrite; error: unknown }[] = [];
    for (const write of writes) {
      try {
        entries.push(appendPendingWrite(session, write));
      } catch (error) {
        refused.push({ write, error });
      }
    }
    return { entries, refused };
  }
}
