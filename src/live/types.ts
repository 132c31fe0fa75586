/**
 * Live collections: an auto CRUD collection's changes, recorded by its writes and streamed to its
 * listeners. A write through the auto endpoints records its change in the collection's change log (an
 * outbox) in the write's own transaction; a broker wakes the listening processes, which read the log
 * from the last change they saw. The log is the source of truth: a broker only says "read again".
 */

/** What happened to one row. */
export type ChangeKind = "created" | "updated" | "deleted";

/** A row as the change log keeps it: the stored row, through JSON (a bigint as its decimal text). */
export type ChangeRow = Record<string, unknown>;

/** One change a write records. */
export interface ChangeToRecord {
  readonly kind: ChangeKind;
  /** The row as stored after the change; for a deletion, as it was. */
  readonly row: ChangeRow;
  /** For an update, the row before it, so a listener whose filter the row left hears a deletion; else null. */
  readonly before: ChangeRow | null;
}

/** One change as the log holds it. */
export interface RecordedChange extends ChangeToRecord {
  /** Its place in the collection's log: 1, 2, 3, … in the order the writes committed, never reused. */
  readonly seq: number;
  /** When it was recorded, in milliseconds since the epoch. */
  readonly at: number;
}

/** How much of a collection's log is kept for listeners that reconnect: the newest `count`, none older than `maxAgeMs`. */
export interface Retention {
  readonly count: number;
  readonly maxAgeMs: number;
}

/** The oldest change a log still holds and the newest it ever recorded; both 0 while it has recorded none. */
export interface LogBounds {
  readonly oldest: number;
  readonly newest: number;
}

/**
 * A collection's change log on one storage, run on that storage's `Session` (a `SqlDriver` for SQL).
 * Writers of one collection are serialized by `record`, so seqs follow commit order: a reader that
 * has seen seq n never later finds a change below n appear.
 */
export interface ChangeLog<Session> {
  /**
   * Takes the collection's write lock in the transaction `session` runs, held until it ends: writers of
   * one collection then run one after another, so what a write reads of a row before changing it is
   * what its change replaces. `record` takes it too where it was not taken.
   */
  lock(session: Session, collection: string): Promise<void>;
  /**
   * Records `changes`, in order, in the transaction `session` runs (a `SqlDriver.transaction`'s `tx`):
   * they are seen when it commits and never when it rolls back. What wakes the listeners is the
   * broker's (`ChangeBroker.recorded`, in the same transaction, and `committed`, after it).
   */
  record(session: Session, collection: string, changes: readonly ChangeToRecord[]): Promise<void>;
  /** The changes after `afterSeq`, oldest first, at most `limit`. */
  readAfter(session: Session, collection: string, afterSeq: number, limit: number): Promise<RecordedChange[]>;
  bounds(session: Session, collection: string): Promise<LogBounds>;
  /** Drops the changes `retention` no longer keeps. */
  trim(session: Session, collection: string, retention: Retention): Promise<void>;
}

/**
 * Wakes the listeners of a collection in every process when its log has grown: in process, by
 * PostgreSQL's LISTEN/NOTIFY, by polling, by a Durable Object. An app can add its own (Redis).
 * `Session` is what the storage's writes run on (a `SqlDriver` for SQL and Drizzle).
 */
export interface ChangeBroker<Session = unknown> {
  /** Calls `wake` whenever `collection`'s log may have grown, until the returned function is called. */
  watch(collection: string, wake: () => void): Promise<() => Promise<void>>;
  /**
   * Called in the write's transaction, on its session, once its changes to `collection` are recorded:
   * a broker whose message travels with the transaction (PostgreSQL's NOTIFY, delivered at commit and
   * never on rollback) sends it here.
   */
  recorded?(session: Session, collection: string): Promise<void>;
  /** Called after a write to `collection` committed (a broker whose message went with the transaction does nothing here). */
  committed(collection: string): void | Promise<void>;
}
