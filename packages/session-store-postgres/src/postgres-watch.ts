/**
 * The live followers of {@link PostgresSessionStore.watch}: one connection that `LISTEN`s on the
 * store's channel; each notification names a session, and its watches read the rows after the last
 * one they delivered. A session notifies only while its row counts followers (`watchers`): a watch
 * counts itself when it starts and uncounts itself when it closes (`release`).
 */
import type { SessionAppendListener, SessionWatch, StoredEntry } from "@arbor/session-store";
import pg from "pg";
import { describeServer, explainConnectionError, type ServerAddress } from "./errors.js";

/** What a {@link PostgresListener} needs from its store. */
export interface PostgresListenerOptions {
  config: pg.ClientConfig;
  channel: string;
  address: ServerAddress;
  warn: (message: string) => void;
  /** The rows of `sessionId` from `seq` on, and the `seq` after the last of them. */
  readFrom: (sessionId: string, seq: number) => Promise<{ entries: StoredEntry[]; next: number }>;
  /**
   * Uncounts a closed watch of `sessionId` (the session then stops notifying when none is left).
   *
   * Contract: may throw (the failure is reported as a warning; the session then keeps notifying).
   */
  release: (sessionId: string) => Promise<void>;
}

/** Delay before reconnecting a lost listening connection (ms). */
const RECONNECT_DELAY_MS = 500;

/**
 * One watch: where it is in its session (unknown until {@link begin}), and its delivery loop (one read
 * at a time).
 */
export class PostgresWatch implements SessionWatch {
  private reading: Promise<void> | undefined;
  private again = false;
  private next: number | undefined;
  private counted = false;
  closed = false;

  constructor(
    readonly sessionId: string,
    private readonly onAppend: SessionAppendListener,
    private readonly listener: PostgresListener,
  ) {}

  /**
   * Starts delivering from row `seq` (the count the session row gave when it counted this watch); a
   * notification that came before is served now.
   */
  begin(seq: number): void {
    this.next = seq;
    this.counted = true;
    if (this.again) this.poke();
  }

  /** Reads what was appended since the last delivery; a call during a read makes it read once more. */
  poke(): void {
    if (this.closed) return;
    if (this.reading !== undefined || this.next === undefined) {
      this.again = true;
      return;
    }
    this.reading = this.drain().finally(() => {
      this.reading = undefined;
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listener.remove(this);
    await this.reading;
    if (!this.counted) return;
    await this.listener.options.release(this.sessionId).catch((error: unknown) => {
      this.listener.options.warn(
        `watch of ${this.sessionId}: could not uncount the follower (${(error as Error).message}); ` +
          "its appends keep notifying",
      );
    });
  }

  private async drain(): Promise<void> {
    do {
      this.again = false;
      try {
        const { entries, next } = await this.listener.options.readFrom(this.sessionId, this.next as number);
        if (this.closed) return;
        this.next = next;
        if (entries.length > 0) this.onAppend(entries);
      } catch (error) {
        this.listener.options.warn(`watch of ${this.sessionId}: ${(error as Error).message}`);
        return;
      }
    } while (this.again && !this.closed);
  }
}

/** The listening connection of a store, shared by its watches. */
export class PostgresListener {
  private client: pg.Client | undefined;
  private starting: Promise<void> | undefined;
  private readonly watches = new Set<PostgresWatch>();
  private closed = false;
  private retry: NodeJS.Timeout | undefined;

  constructor(readonly options: PostgresListenerOptions) {}

  /**
   * Connects and listens, once.
   *
   * Contract: resolves when `LISTEN` is in effect; throws `PostgresUnavailableError` when the server
   * cannot be reached (a later call tries again).
   */
  start(): Promise<void> {
    this.starting ??= this.connect().catch((error: unknown) => {
      this.starting = undefined;
      throw explainConnectionError(error, this.options.address);
    });
    return this.starting;
  }

  /** Registers a watch; it delivers once {@link PostgresWatch.begin} says from where. */
  add(sessionId: string, onAppend: SessionAppendListener): PostgresWatch {
    const watch = new PostgresWatch(sessionId, onAppend, this);
    this.watches.add(watch);
    return watch;
  }

  remove(watch: PostgresWatch): void {
    this.watches.delete(watch);
  }

  /** Stops every watch and ends the connection. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await Promise.all([...this.watches].map((watch) => watch.close()));
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private async connect(): Promise<void> {
    const client = new pg.Client(this.options.config);
    client.on("notification", (message) => {
      if (message.channel !== this.options.channel) return;
      for (const watch of this.watches) if (watch.sessionId === message.payload) watch.poke();
    });
    client.on("error", (error) => this.lost(client, error));
    await client.connect();
    await client.query(`LISTEN "${this.options.channel.replaceAll('"', '""')}"`);
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
  }

  /** A lost connection: reconnect after a pause, then let every watch catch up. */
  private lost(client: pg.Client, error: Error): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    this.starting = undefined;
    client.end().catch(() => {});
    const server = describeServer(this.options.address);
    this.options.warn(`the watch connection to ${server} was lost (${error.message}); reconnecting`);
    this.reconnect();
  }

  private reconnect(): void {
    if (this.closed) return;
    this.retry = setTimeout(() => {
      this.start().then(
        () => {
          for (const watch of this.watches) watch.poke();
        },
        () => this.reconnect(),
      );
    }, RECONNECT_DELAY_MS);
    this.retry.unref();
  }
}
