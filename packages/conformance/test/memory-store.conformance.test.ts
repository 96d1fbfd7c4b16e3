import { MemorySessionStore } from "@arbor/session-store";
import { describeSessionStore } from "@internal/conformance";

/** The memory store, with a way in to damage a stored header (for the corrupt-data specs). */
class CorruptibleMemoryStore extends MemorySessionStore {
  corruptHeader(sessionId: string): void {
    const session = this.sessions.get(sessionId);
    if (session !== undefined) session.header = '{"type":"session","id":';
  }
}

describeSessionStore({
  name: "memory",
  create: () => new CorruptibleMemoryStore(),
  corrupt: (store, sessionId) => store.corruptHeader(sessionId),
});
