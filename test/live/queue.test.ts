import { describe, expect, it } from "vitest";
import { SentQueue } from "../../src/live/queue";

describe("a listener's queue", () => {
  it("gives items back in order with their seqs, across the compactions of a queue never emptied", () => {
    const queue = new SentQueue<string>();
    const taken: Array<[string, number]> = [];
    let next = 1;
    // Three in, two out, a thousand times: the queue always holds some, so only compaction frees the head.
    for (let round = 0; round < 1000; round++) {
      for (let n = 0; n < 3; n++, next++) queue.push(`item ${next}`, next);
      for (let n = 0; n < 2; n++) taken.push([queue.shift(), queue.lastSeq]);
    }
    expect(queue.length).toBe(1000);
    while (queue.length > 0) taken.push([queue.shift(), queue.lastSeq]);
    expect(taken).toEqual(Array.from({ length: 3000 }, (_, n) => [`item ${n + 1}`, n + 1]));
  });
});
