import { postgresDialect } from "../dialects/postgres";

/** A notification as node-postgres emits it. */
interface PgNotification {
  channel: string;
  payload?: string;
}

/** The events of a node-postgres `Client` (or a pool's `PoolClient`) that listening needs. */
export interface PgNotifyingClient {
  on(event: "notification", listener: (message: PgNotification) => void): unknown;
  on(event: "error", listener: (error: Error) => void): unknown;
  on(event: "end", listener: () => void): unknown;
  // `any`: node-postgres types each event's listener apart; this only removes the ones added here.
  removeListener(event: string, listener: (...args: any[]) => void): unknown;
}

/** Whether a node-postgres client emits events (a `Client` does; a test double or a bare queryable may not). */
export function isNotifying(client: object): client is PgNotifyingClient {
  return typeof (client as Partial<PgNotifyingClient>).on === "function";
}

/** The one connection the listens of a driver share. */
export interface ListenConnection {
  readonly client: PgNotifyingClient;
  /** Runs LISTEN or UNLISTEN on it. */
  send(sql: string): Promise<unknown>;
  /** Gives it back once nothing is listened on it; with an error, as broken (a pool drops it). */
  release(error?: Error): void;
}

interface Listener {
  notify(payload: string): void;
  lost?(error: Error): void;
}

function report(what: string, error: unknown): void {
  console.error(`[specroute] ${what}:`, error);
}

/** One connection while channels are listened on it; dead once it is lost or given back. */
class ListenSession {
  readonly channels = new Map<string, Set<Listener>>();
  dead = false;
  readonly onNotification = (message: PgNotification) => {
    if (this.dead) return;
    for (const listener of this.channels.get(message.channel) ?? []) {
      // A throwing listener must not reach node-postgres's socket handler, nor stop the others.
      try {
        listener.notify(message.payload ?? "");
      } catch (error) {
        report(`a listener of ${message.channel} threw`, error);
      }
    }
  };

  constructor(
    readonly connection: ListenConnection,
    readonly onError: (error: Error) => void,
    readonly onEnd: () => void,
  ) {
    connection.client.on("notification", this.onNotification);
    connection.client.on("error", onError);
    connection.client.on("end", onEnd);
  }

  detach(keepErrorHandler: boolean): void {
    this.connection.client.removeListener("notification", this.onNotification);
    this.connection.client.removeListener("end", this.onEnd);
    // A broken client may still emit "error"; unheard, Node would end the process.
    if (!keepErrorHandler) this.connection.client.removeListener("error", this.onError);
  }
}

/**
 * The listens of one pg driver on one connection it opens on the first listen and gives back after the
 * last: LISTEN once per channel, notifications dispatched by channel. LISTEN, UNLISTEN and opening run
 * one at a time. A lost connection is logged and each listener's `lost` told; the next listen opens another.
 */
export class PgListens {
  #session: ListenSession | null = null;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly open: () => Promise<ListenConnection>) {}

  listen(
    channel: string,
    onNotify: (payload: string) => void,
    onLost?: (error: Error) => void,
  ): Promise<() => Promise<void>> {
    const listener: Listener = { notify: onNotify, lost: onLost };
    return this.#serial(async () => {
      const session = await this.#current();
      let listeners = session.channels.get(channel);
      if (!listeners) {
        try {
          await session.connection.send(`LISTEN ${postgresDialect.quote(channel)}`);
        } catch (error) {
          if (session.channels.size === 0)
            this.#end(session, error instanceof Error ? error : new Error(String(error)));
          throw error;
        }
        listeners = new Set();
        session.channels.set(channel, listeners);
      }
      listeners.add(listener);
      return () => this.#serial(() => this.#unlisten(session, channel, listener));
    });
  }

  /** Gives the connection back (the driver is closing); its listeners are not told. */
  close(): Promise<void> {
    return this.#serial(async () => {
      if (this.#session) this.#end(this.#session);
    });
  }

  #serial<T>(step: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(step);
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #current(): Promise<ListenSession> {
    if (this.#session && !this.#session.dead) return this.#session;
    const connection = await this.open();
    const session: ListenSession = new ListenSession(
      connection,
      (error) => this.#lose(session, error),
      () => this.#lose(session, new Error("the connection ended")),
    );
    this.#session = session;
    return session;
  }

  async #unlisten(session: ListenSession, channel: string, listener: Listener): Promise<void> {
    const listeners = session.channels.get(channel);
    if (session.dead || !listeners?.delete(listener) || listeners.size > 0) return;
    session.channels.delete(channel);
    try {
      await session.connection.send(`UNLISTEN ${postgresDialect.quote(channel)}`);
    } catch (error) {
      this.#lose(session, error instanceof Error ? error : new Error(String(error)));
      return;
    }
    if (session.channels.size === 0) this.#end(session);
  }

  #end(session: ListenSession, error?: Error): void {
    if (session.dead) return;
    session.dead = true;
    if (this.#session === session) this.#session = null;
    session.detach(error !== undefined);
    session.connection.release(error);
  }

  #lose(session: ListenSession, error: Error): void {
    if (session.dead) return;
    report("lost the PostgreSQL connection listening for notifications", error);
    const listeners = [...session.channels.values()].flatMap((set) => [...set]);
    this.#end(session, error);
    for (const listener of listeners) {
      try {
        listener.lost?.(error);
      } catch (thrown) {
        report("a listener threw when told its connection was lost", thrown);
      }
    }
  }
}
