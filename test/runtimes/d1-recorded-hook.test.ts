import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./bundle";

// ChangeBroker.recorded (issue #45) runs "in the write's transaction once its changes are recorded"
// (docs/live.md, src/live/types.ts), so a hook that fails takes the write with it: on SQLite, PostgreSQL
// and MySQL the write is rolled back (test/live/broker-hook.test.ts). On D1 there is no transaction to
// run it in (src/sql/live.ts d1LiveStorage: `transaction(work) { return work(driver) }`): the row and its
// change are committed by the INSERT before the hook runs, and the hook's failure then answers the client
// a 500 for a write that happened. A client that retries the 500 writes it twice. Real workerd with D1.

describe("D1: a live write whose feed's broker fails in recorded", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/d1-recorded-hook-app.ts", {
      schema: ["CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL)"],
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  it("is not stored when it is answered as failed", async () => {
    const created = await worker.fetch("/notes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "once" }),
    });
    const list = await (await worker.fetch("/notes")).json();
    const stored = list.result.length;
    // Either the write happened and is answered so, or it failed and nothing is stored.
    expect({ status: created.status, stored }).toEqual(
      created.status === 201 ? { status: 201, stored: 1 } : { status: created.status, stored: 0 },
    );
  });
});
