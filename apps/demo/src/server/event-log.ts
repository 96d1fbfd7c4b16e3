/**
 * The demo's event log: every record sent to the page gets the next id, and the latest ones are kept, so
 * that a page that lost its connection gets what it missed (`Last-Event-ID`) and two pages see the same
 * events in the same order.
 */

/** One logged record: its id and its JSON text. */
export interface LoggedEvent {
  readonly id: number;
  readonly data: string;
}

/** Records kept for pages that reconnect. */
export const DEFAULT_EVENT_CAPACITY = 20_000;

/** A bounded log of records with increasing ids, and its listeners. */
export class EventLog {
  private readonly events: LoggedEvent[] = [];
  private nextId = 1;
  private readonly listeners = new Set<(event: LoggedEvent) => void>();

  constructor(private readonly capacity: number = DEFAULT_EVENT_CAPACITY) {}

  /** The id of the latest record (0 before the first). */
  get lastId(): number {
    return this.nextId - 1;
  }

  /**
   * Appends a record and hands it to every listener.
   *
   * Contract: ids increase by one; a throwing listener is removed, the others still run.
   */
  append(record: { type: string } & Record<string, unknown>): LoggedEvent {
    const event = { id: this.nextId++, data: JSON.stringify(record) };
    this.events.push(event);
    if (this.events.length > this.capacity) this.events.splice(0, this.events.length - this.capacity);
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        this.listeners.delete(listener);
      }
    }
    return event;
  }

  /**
   * The records after `lastId`, or undefined when some of them are no longer kept (the page must reload).
   *
   * Contract: O(records returned + log (n)).
   */
  since(lastId: number): LoggedEvent[] | undefined {
    if (lastId >= this.lastId) return [];
    const first = this.events[0];
    if (first === undefined || lastId + 1 < first.id) return undefined;
    return this.events.slice(lastId + 1 - first.id);
  }

  /** Registers a listener for new records; returns the function that removes it. */
  subscribe(listener: (event: LoggedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }
}
