import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { contentEventStream, fromHono, OpenAPIRoute } from "../../src";
import { createClient } from "../../src/client";
import { listenOnLoopback } from "../helpers";

// Aborting a call's signal ends a streamed answer, whenever the garbage collector runs: undici follows
// a Request's signal through a weak reference, so the client holds its Request while the body streams.

setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc") as () => void;

/** Ticks every 20 ms until the client goes away. */
class Ticks extends OpenAPIRoute {
  schema = { responses: { "200": { description: "ticks", ...contentEventStream(z.object({ n: z.number() })) } } };
  async *handle() {
    for (let n = 0; n < 1000; n++) {
      yield { data: { n } };
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

const app = new Hono();
const router = fromHono(app).get("/ticks", Ticks);
const server = await listenOnLoopback((request, env) => app.fetch(request, env));
afterAll(() => server.close());

describe("a streamed answer of the typed client", () => {
  it("ends with an AbortError when the call's signal is aborted, after a garbage collection too", async () => {
    const client = createClient<typeof router>(server.origin);
    const controller = new AbortController();
    const answer = await client.get("/ticks", undefined, { signal: controller.signal });
    if (!answer.ok) throw new Error(`answered ${answer.status}`);
    let received = 0;
    let outcome = "still streaming";
    try {
      for await (const _tick of answer.data) {
        received++;
        if (received === 3) {
          collectGarbage();
          controller.abort();
        }
        // Bounded: had the abort been lost, the loop stops here and the assertion below fails.
        if (received === 50) break;
      }
    } catch (error) {
      outcome = (error as Error).name;
    }
    expect(outcome).toBe("AbortError");
    expect(received).toBeLessThan(10);
  });

  it("goes on streaming when the Response is collected before the first item is read", async () => {
    // Only the iterator is kept, as a caller that listens and then does other work keeps it.
    const listen = async () => {
      const answer = await createClient<typeof router>(server.origin).get("/ticks");
      if (!answer.ok) throw new Error(`answered ${answer.status}`);
      return answer.data[Symbol.asyncIterator]();
    };
    const ticks = await listen();
    // Nothing holds the Response now: undici cancels a collected Response's body unless it is being read.
    for (let round = 0; round < 3; round++) {
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const first = await ticks.next();
    await ticks.return?.();
    expect(first).toEqual({ done: false, value: { data: { n: 0 } } });
  });
});
