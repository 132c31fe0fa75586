import { z } from "zod";
import { Task } from "./models";

/** What happened to a task: the task as stored after the change (as it was, for a deletion). */
export const TaskChange = z.object({
  type: z.enum(["created", "updated", "deleted"]),
  task: Task,
});
export type TaskChange = z.infer<typeof TaskChange>;

/** Most changes kept for one listener that reads slower than tasks change; past that it is let go. */
const MAX_PENDING = 1000;

/**
 * Task changes per project, for the clients listening to them (`GET /projects/{projectId}/events`).
 * In memory: a listener hears the changes made through this process (one Node process, or one Workers
 * isolate), which is what an example needs; a deployment of several would publish through a broker.
 */
export class TaskChanges {
  private readonly listeners = new Map<number, Set<Listener<unknown>>>();

  publish(projectId: number, change: TaskChange): void {
    for (const listener of this.listeners.get(projectId) ?? []) listener.push(change);
  }

  /** How many clients are listening to a project (what the tests watch go back to zero). */
  listening(projectId: number): number {
    return this.listeners.get(projectId)?.size ?? 0;
  }

  /**
   * The project's changes from now on, each made an item by `as`, as an async iterator. Ending it
   * (`return()`, which the framework calls when the client goes away) stops listening at once, even
   * while it waits for the next change: an async generator could not, being deaf until its wait ends.
   */
  subscribe<T>(projectId: number, as: (change: TaskChange) => T): AsyncIterableIterator<T> {
    let set = this.listeners.get(projectId);
    if (!set) {
      set = new Set();
      this.listeners.set(projectId, set);
    }
    const listener: Listener<T> = new Listener(as, () => {
      set.delete(listener as Listener<unknown>);
      if (set.size === 0) this.listeners.delete(projectId);
    });
    set.add(listener as Listener<unknown>);
    return listener;
  }
}

/** One client's queue of changes: filled by `publish`, drained by the stream as the client reads. */
class Listener<T> implements AsyncIterableIterator<T> {
  private readonly pending: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private failure: Error | undefined;
  private done = false;

  constructor(
    private readonly as: (change: TaskChange) => T,
    private readonly leave: () => void,
  ) {}

  push(change: TaskChange): void {
    if (this.done) return;
    if (this.waiting) {
      const wake = this.waiting;
      this.waiting = undefined;
      wake({ value: this.as(change), done: false });
    } else if (this.pending.length < MAX_PENDING) {
      this.pending.push(this.as(change));
    } else {
      // A client that cannot keep up is let go rather than buffered without end; it can listen again.
      this.failure = new Error("This listener fell too far behind the changes; listen again");
      this.end();
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.pending.length > 0) return Promise.resolve({ value: this.pending.shift()!, done: false });
    if (this.failure) return Promise.reject(this.failure);
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  return(): Promise<IteratorResult<T>> {
    this.end();
    return Promise.resolve({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  private end(): void {
    if (this.done) return;
    this.done = true;
    this.leave();
    const wake = this.waiting;
    this.waiting = undefined;
    wake?.({ value: undefined, done: true });
  }
}

/** This process's task changes: every app of the process publishes and listens here. */
export const taskChanges = new TaskChanges();
