import { type StreamHeartbeat, streamPosition } from "../core/route/respond";
import type { ChangeFeed } from "./feed";
import { catchUpRead, type ListenerSlot } from "./limits";
import { SentQueue } from "./queue";
import type { ChangeBroker, ChangeLog, RecordedChange } from "./types";

/** Changes read from the log at once, by the collection's reader and by a listener catching up (at most its buffer). */
const PAGE = 200;
const NOTHING: RecordedChange[] = [];

/** Where a collection's changes are: its log on a storage's session, and the broker that says it grew. */
export interface ChangeSource<Session> {
  readonly feed: ChangeFeed;
  readonly log: ChangeLog<Session>;
  /** The session reads run on; one reader per collection is shared by every listener of the same session. */
  readonly session: Session & object;
  readonly broker: ChangeBroker<Session>;
  readonly collection: string;
}

/**
 * What one listener is sent, made by the caller: a change it may see (else null), and the notices. A
 * notice given a seq carries it as the id the client reconnects with: the changes after it are the
 * ones the client has not been sent.
 */
export interface ListenerView<T> {
  /** The item a change is for this listener, or null when the listener is not to see it. */
  select(change: RecordedChange): T | null;
  /** The notice that changes were missed (an id older than the log keeps, or than the feed replays): the client lists again. */
  reset(): T;
  /** The last item of a listener that could not keep up; the client goes on after `resumeAfter`. */
  lagged(resumeAfter: number): T;
  /** The last item of a stream that reached its lifetime; the client goes on after `resumeAfter`. */
  reconnect(resumeAfter: number): T;
}

/** Where a listener starts, and the place among its feed's streams it holds until it ends. */
export interface ListenOptions {
  /** The `Last-Event-ID` the client sent, as a seq; else the listener starts from now. */
  after?: number;
  /** Released when the listener ends (see `admitListener`). */
  slot?: ListenerSlot;
}

/**
 * A listener of `source`'s collection: the changes after `after` (a `Last-Event-ID`, within the feed's
 * `replay.maxChanges`; else `reset` first), else from now, each made an item by `view`, with a heartbeat
 * after each quiet `heartbeatMs`, until the feed's `lifetimeMs` ends it with `reconnect`. A start from now,
 * and each heartbeat, carry the place the client resumes from (see `streamPosition`). Ending the
 * iterator (`return()`, which the framework calls when the client goes away) stops listening at once.
 * Resolves once the listener is registered and knows where it starts; fails when the log cannot be read.
 */
export async function listen<Session, T>(
  source: ChangeSource<Session>,
  view: ListenerView<T>,
  { after, slot }: ListenOptions = {},
): Promise<AsyncIterableIterator<T | StreamHeartbeat>> {
  const collection = liveCollection(source);
  const { feed, log, session } = source;
  const listener = new Listener(collection, view, feed, slot);
  try {
    await collection.add(listener);
    if (after === undefined) {
      // From now: where the collection's reader stands, with no read of its own.
      listener.startLive(collection.position, false);
      return listener;
    }
    const { oldest, newest } = await catchUpRead(feed, session, () => log.bounds(session, source.collection));
    // An id past the newest is forged or another deployment's; one before the oldest kept, or further back than the feed replays, missed changes.
    const missed = after > newest || oldest > after + 1 || newest - after > feed.replay.maxChanges;
    if (missed) listener.startLive(collection.position, true);
    else listener.catchUpFrom(after);
  } catch (error) {
    await listener.return();
    throw error;
  }
  return listener;
}

/** One reader of one collection on one session, fanning each change out to the listeners of this process. */
class LiveCollection<Session> {
  private readonly listeners = new Set<Listener<unknown>>();
  /** The newest change read and offered to the listeners. */
  private readSeq = 0;
  private started: Promise<void> | undefined;
  private stopWatching: (() => Promise<void>) | undefined;
  /** Whether the head was read: until then a wake is only remembered. */
  private ready = false;
  private reading = false;
  private readAgain = false;

  constructor(
    readonly source: ChangeSource<Session>,
    private readonly forget: () => void,
  ) {}

  /**
   * Adds a listener; the first starts watching the broker, then reads where the log stands. When that
   * fails, each listener waiting for it is removed by its own `return()`, and the last one forgets this
   * reader: the next listener starts another, as a database that was down may be back.
   */
  async add(listener: Listener<unknown>): Promise<void> {
    this.listeners.add(listener);
    this.started ??= this.start();
    await this.started;
  }

  /** Removes a listener, which has been added (its `add` settled); with the last one, watching the broker stops. */
  async remove(listener: Listener<unknown>): Promise<void> {
    if (!this.listeners.delete(listener) || this.listeners.size > 0) return;
    this.forget();
    // Watching began before the head was read, so no wake between the two is lost; a start that failed stopped its own.
    await this.stopWatching?.().catch(() => {});
  }

  /** The newest change this reader has offered: a listener that starts here misses none of what it offers next. */
  get position(): number {
    return this.readSeq;
  }

  /** The log after `seq`, at most `limit` changes: a page of this reader's, or of a listener catching up from its own position. */
  readAfter(seq: number, limit = PAGE): Promise<RecordedChange[]> {
    const { log, session, collection } = this.source;
    return log.readAfter(session, collection, seq, limit);
  }

  private async start(): Promise<void> {
    const { broker, log, session, collection } = this.source;
    const stop = await broker.watch(collection, () => void this.read());
    try {
      this.readSeq = (await log.bounds(session, collection)).newest;
    } catch (error) {
      await stop().catch(() => {});
      throw error;
    }
    this.stopWatching = stop;
    this.ready = true;
    // A wake that came while the head was read: the changes after it are read now.
    if (this.readAgain) void this.read();
  }

  /** Reads what the log gained since the last read and offers it; wakes while a read runs make one more. */
  private async read(): Promise<void> {
    if (this.reading || !this.ready) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.readAgain = false;
        await this.readToEnd();
      } while (this.readAgain && this.listeners.size > 0);
    } catch (error) {
      for (const listener of this.listeners) listener.fail(error);
    } finally {
      this.reading = false;
    }
  }

  private async readToEnd(): Promise<void> {
    for (;;) {
      const page = await this.readAfter(this.readSeq);
      // Seqs have no gaps; one means the log was trimmed past this reader, so every listener missed changes.
      if (page.length > 0 && page[0]!.seq > this.readSeq + 1) for (const listener of this.listeners) listener.missed();
      for (const change of page) for (const listener of this.listeners) listener.offer(change);
      if (page.length > 0) this.readSeq = page.at(-1)!.seq;
      if (page.length < PAGE) return;
    }
  }
}

/**
 * One client's stream of changes. With a `Last-Event-ID`, it starts by catching up from there, reading
 * the log a page no larger than its buffer each time its client has taken what it was given; it takes
 * what the collection's reader offers once caught up, or from the start without one. Its queue is bounded by
 * the feed's `bufferSize`: a client that reads slower is sent `lagged` with the id it was last sent, and
 * let go. After the feed's `lifetimeMs` it ends with `reconnect`, so the client comes back through the
 * route's authentication.
 */
class Listener<T> implements AsyncIterableIterator<T | StreamHeartbeat> {
  /** The newest change this listener was offered or read: anything at or below it is not sent again. */
  private cursor = 0;
  /** The newest change the client has been sent, or had nothing to see of with nothing unsent before it: where it resumes after a lag. */
  private sent = 0;
  private catchingUp = true;
  /** Changes offered while catching up, at most `bufferSize`: they may have committed after the read's snapshot. */
  // Stryker disable next-line ArrayDeclaration: each catch-up read, and a live start, empties it before anything reads it
  private readonly offeredDuringRead: RecordedChange[] = [];
  /** Whether an offer found `offeredDuringRead` full: the catch-up then reads on instead of trusting it. */
  // Stryker disable next-line BooleanLiteral: each catch-up read sets it to false before anything reads it
  private droppedDuringRead = false;
  /**
   * Whether the stream's place is still to be sent: when the client first finds nothing queued (after a
   * `reset`, a burst, or a catch-up that went past changes it may not see), so a client cut off before
   * its next event still reconnects where it was, and never from before what it was sent.
   */
  private placeDue = true;
  private readonly queue = new SentQueue<T>();
  /** The `next()` waiting for an item, while one waits. */
  private waiting: Waiting<T> | undefined;
  private failure: unknown;
  private ending = false;
  private done = false;
  private lifetime: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly collection: LiveCollection<unknown>,
    private readonly view: ListenerView<T>,
    private readonly feed: ChangeFeed,
    private readonly slot: ListenerSlot | undefined,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** Starts by reading the log after `seq` (a `Last-Event-ID`) itself. */
  catchUpFrom(seq: number): void {
    this.start(seq);
  }

  /**
   * Starts with what the collection's reader offers after `seq`, its position; `missed`: the position the
   * client asked for is no longer (or too far back) in the log, so it is told to list again first.
   */
  startLive(seq: number, missed: boolean): void {
    this.catchingUp = false;
    // Offered before the start: at or below the reader's position, so none is the listener's.
    this.offeredDuringRead.length = 0;
    this.start(seq);
    if (missed) this.enqueue(this.view.reset(), seq);
  }

  private start(seq: number): void {
    this.cursor = seq;
    this.sent = seq;
    // Between 80 % and 100 % of the lifetime: streams opened together (after a deploy) come back spread out.
    const lifetimeMs = this.feed.lifetimeMs * (0.8 + 0.2 * Math.random());
    this.lifetime = setTimeout(() => this.expire(), lifetimeMs);
    (this.lifetime as { unref?: () => void }).unref?.();
  }

  offer(change: RecordedChange): void {
    // Stryker disable next-line ConditionalExpression,LogicalOperator: an ended listener queues nothing more (enqueue refuses it) and reads no more, so what it is offered goes nowhere; this spares the work
    if (this.done || this.ending) return;
    if (this.catchingUp) {
      // Past the buffer they are dropped: they are in the log, and the catch-up reads on.
      if (this.offeredDuringRead.length < this.feed.bufferSize) this.offeredDuringRead.push(change);
      else this.droppedDuringRead = true;
      return;
    }
    this.deliver(change);
  }

  /** The log lost changes this listener had not seen: it is told to list again, and goes on from here. */
  missed(): void {
    if (!this.done && !this.ending && !this.catchingUp) this.enqueue(this.view.reset(), this.cursor);
  }

  fail(error: unknown): void {
    if (this.done) return;
    this.failure = error;
    this.ending = true;
    this.settle();
  }

  async next(): Promise<IteratorResult<T | StreamHeartbeat>> {
    // A page that held nothing for this client is followed by the next at once, not after a heartbeat.
    while (this.queue.length === 0 && this.catchingUp && !this.done && !this.ending) {
      try {
        await this.catchUp();
      } catch (error) {
        this.fail(error);
      }
    }
    if (this.queue.length > 0) {
      const value = this.queue.shift();
      this.sent = this.queue.lastSeq;
      return { done: false, value };
    }
    if (this.placeDue && !this.done && !this.ending) {
      this.placeDue = false;
      return { done: false, value: streamPosition(String(this.sent)) };
    }
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.failure = undefined;
      await this.return();
      throw failure;
    }
    if (this.done || this.ending) return this.return();
    return new Promise((resolve, reject) => {
      const heartbeat = setTimeout(() => {
        this.waiting = undefined;
        // Where the client is: past the changes it had nothing to see of, so a reconnect replays none of them.
        resolve({ done: false, value: streamPosition(String(this.sent)) });
      }, this.feed.heartbeatMs);
      this.waiting = {
        resolve(result) {
          clearTimeout(heartbeat);
          resolve(result);
        },
        reject(error) {
          clearTimeout(heartbeat);
          reject(error);
        },
      };
    });
  }

  /** Ends the listener; each step holds when taken again (the slot is released once), so a second call changes nothing. */
  async return(): Promise<IteratorResult<T | StreamHeartbeat>> {
    this.done = true;
    this.queue.clear();
    clearTimeout(this.lifetime);
    this.slot?.release();
    this.settle();
    await this.collection.remove(this as Listener<unknown>);
    return { done: true, value: undefined };
  }

  /**
   * Reads one page of the log after the cursor, no larger than the buffer (the queue is empty when it
   * runs, so a catch-up never overflows it), through the feed's catch-up limiter. A short page ends the
   * catch-up with what was offered meanwhile, unless some of that was dropped or would not fit: then the
   * next page is read when the client has taken this one.
   */
  private async catchUp(): Promise<void> {
    this.offeredDuringRead.length = 0;
    this.droppedDuringRead = false;
    const limit = Math.min(PAGE, this.feed.bufferSize);
    const page = await catchUpRead(this.feed, this.collection.source.session, () =>
      this.done || this.ending ? Promise.resolve(NOTHING) : this.collection.readAfter(this.cursor, limit),
    );
    if (this.done || this.ending) return;
    if (page.length > 0 && page[0]!.seq > this.cursor + 1) {
      // The log was trimmed past this listener: it lists again, and reads on from the oldest change kept.
      this.cursor = page[0]!.seq - 1;
      this.enqueue(this.view.reset(), this.cursor);
      return;
    }
    for (const change of page) this.deliver(change);
    if (page.length === limit) return;
    if (this.droppedDuringRead || this.queue.length + this.offeredDuringRead.length > this.feed.bufferSize) return;
    this.catchingUp = false;
    for (const change of this.offeredDuringRead) this.deliver(change);
    this.offeredDuringRead.length = 0;
  }

  private deliver(change: RecordedChange): void {
    if (change.seq <= this.cursor) return;
    this.cursor = change.seq;
    const item = this.view.select(change);
    if (item !== null) this.enqueue(item, change.seq);
    else if (this.queue.length === 0) this.sent = change.seq;
  }

  /** Queues `item`, after which the client is at `seq`; past the buffer, the listener lags. */
  private enqueue(item: T, seq: number): void {
    if (this.done || this.ending) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      this.sent = seq;
      resolve({ done: false, value: item });
      return;
    }
    this.queue.push(item, seq);
    if (this.queue.length > this.feed.bufferSize) {
      // Memory stays bounded: what is queued is dropped for the one notice, which says where the client resumes.
      this.queue.clear();
      this.finish(this.view.lagged(this.sent), this.sent);
    }
  }

  /** The lifetime is over: what is queued is still sent, then `reconnect` with the newest change this listener went through. */
  private expire(): void {
    if (this.done || this.ending) return;
    this.finish(this.view.reconnect(this.cursor), this.cursor);
  }

  /** Ends the stream with `notice` as its last item, taking no more changes; the listener's slot is held until the client goes. */
  private finish(notice: T, seq: number): void {
    this.ending = true;
    clearTimeout(this.lifetime);
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      this.sent = seq;
      resolve({ done: false, value: notice });
    } else {
      this.queue.push(notice, seq);
    }
    void this.collection.remove(this as Listener<unknown>);
  }

  /** Wakes a `next()` that waits: it throws the failure (the stream's error event), else the stream ends. */
  private settle(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (!waiting) return;
    if (this.failure === undefined) {
      waiting.resolve({ done: true, value: undefined });
      return;
    }
    const failure = this.failure;
    this.failure = undefined;
    void this.return();
    waiting.reject(failure);
  }
}

interface Waiting<T> {
  resolve(result: IteratorResult<T | StreamHeartbeat>): void;
  reject(error: unknown): void;
}

/** The readers of this process, by feed, session and collection: one per collection however many listen. */
const collections = new WeakMap<ChangeFeed, WeakMap<object, Map<string, LiveCollection<unknown>>>>();

function liveCollection<Session>(source: ChangeSource<Session>): LiveCollection<Session> {
  let bySession = collections.get(source.feed);
  if (!bySession) {
    bySession = new WeakMap();
    collections.set(source.feed, bySession);
  }
  let byName = bySession.get(source.session);
  if (!byName) {
    byName = new Map();
    bySession.set(source.session, byName);
  }
  const name = source.collection;
  let collection = byName.get(name) as LiveCollection<Session> | undefined;
  if (!collection) {
    const created: LiveCollection<Session> = new LiveCollection(source, () => {
      if (byName.get(name) === (created as LiveCollection<unknown>)) byName.delete(name);
    });
    collection = created;
    byName.set(name, collection as LiveCollection<unknown>);
  }
  return collection;
}
