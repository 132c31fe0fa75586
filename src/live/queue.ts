/**
 * A listener's queue: items in order, each with the seq of the log its sending leaves the client at.
 * Taken by index rather than `Array#shift`, so taking one moves nothing; the space before the head is
 * given back once it is half the arrays.
 *
 * @example
 * const queue = new SentQueue<string>();
 * queue.push("created 7", 7);
 * queue.shift(); // "created 7", and queue.lastSeq is 7
 */
export class SentQueue<T> {
  /** The seq the item `shift()` took last leaves the client at. */
  lastSeq = 0;
  private items: (T | undefined)[] = [];
  private seqs: number[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T, seq: number): void {
    this.items.push(item);
    this.seqs.push(seq);
  }

  /** The oldest item, removed (the queue must not be empty); `lastSeq` becomes its seq. */
  shift(): T {
    const item = this.items[this.head] as T;
    this.lastSeq = this.seqs[this.head]!;
    this.items[this.head] = undefined;
    this.head++;
    if (this.head === this.items.length) this.clear();
    else if (this.head >= 64 && this.head * 2 >= this.items.length) {
      this.items.splice(0, this.head);
      this.seqs.splice(0, this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): void {
    this.items.length = 0;
    this.seqs.length = 0;
    this.head = 0;
  }
}
