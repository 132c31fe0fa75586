import { TooManyRequestsException } from "../errors/exceptions";
import type { ChangeFeed } from "./feed";

/**
 * What bounds a feed's listeners in one process: how many streams may be open (per caller and in all,
 * `maxListeners`), and how many of their catch-up reads run at once on one database (`replay.concurrency`),
 * so replays never take the whole pool from the requests beside them.
 */

/** A listener's place among its feed's open streams in this process; `release()` gives it back (once, however often called). */
export interface ListenerSlot {
  release(): void;
}

interface Admitted {
  total: number;
  /** Open streams per caller: an entry lives while its caller has one, so there are at most `perProcess`. */
  readonly byCaller: Map<string, number>;
}

const admitted = new WeakMap<ChangeFeed, Admitted>();

/**
 * Takes a place for one more stream of `feed`, counted against `caller` (none: only against the process's
 * bound). Past `maxListeners.perCaller` for the caller, or `perProcess` in all, it throws a 429.
 *
 * @example
 * const slot = admitListener(feed, "203.0.113.7");
 * try { ... } finally { slot.release(); }
 */
export function admitListener(feed: ChangeFeed, caller: string | undefined): ListenerSlot {
  let counts = admitted.get(feed);
  if (!counts) {
    counts = { total: 0, byCaller: new Map() };
    admitted.set(feed, counts);
  }
  const { perCaller, perProcess } = feed.maxListeners;
  const mine = caller === undefined ? 0 : (counts.byCaller.get(caller) ?? 0);
  if (mine >= perCaller) {
    throw new TooManyRequestsException(
      `Too many open streams of this collection for one client (at most ${perCaller})`,
    );
  }
  if (counts.total >= perProcess)
    throw new TooManyRequestsException("Too many open streams of this collection: try later");
  counts.total++;
  if (caller !== undefined) counts.byCaller.set(caller, mine + 1);
  const held = counts;
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      held.total--;
      if (caller === undefined) return;
      const left = (held.byCaller.get(caller) ?? 1) - 1;
      if (left > 0) held.byCaller.set(caller, left);
      else held.byCaller.delete(caller);
    },
  };
}

interface Gate {
  running: number;
  /** Reads waiting their turn, oldest first: each listener waits for at most one, so there are at most `perProcess`. */
  readonly waiting: Array<() => void>;
}

// By session too: a pool's replays wait for each other. On Workers each listener has a session of its
// own, as a request may not wait on a promise another request settles.
const gates = new WeakMap<ChangeFeed, WeakMap<object, Gate>>();

/**
 * Runs `read` (a listener's own read of the log on `session`) once fewer than `replay.concurrency` of the
 * feed's reads on that session run in this process; the others wait in the order they came.
 *
 * @example
 * const page = await catchUpRead(feed, driver, () => log.readAfter(driver, "tasks", seq, 200));
 */
export async function catchUpRead<T>(feed: ChangeFeed, session: object, read: () => Promise<T>): Promise<T> {
  let bySession = gates.get(feed);
  if (!bySession) {
    bySession = new WeakMap();
    gates.set(feed, bySession);
  }
  let gate = bySession.get(session);
  if (!gate) {
    gate = { running: 0, waiting: [] };
    bySession.set(session, gate);
  }
  if (gate.running >= feed.replay.concurrency) {
    const mine = gate;
    // The finishing read hands its turn on, so `running` stays as it was.
    await new Promise<void>((resolve) => mine.waiting.push(resolve));
  } else {
    gate.running++;
  }
  try {
    return await read();
  } finally {
    const next = gate.waiting.shift();
    if (next) next();
    else gate.running--;
  }
}
