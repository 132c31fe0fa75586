import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./runtimes/bundle";

// docs/sql.md "D1 read replicas" and docs/security.md "D1 sessions": with d1Sessions a Read or List
// starts at the bookmark the request sends, and "anything else is a 400 naming the header". That holds
// only when the endpoint's own `schema.request.headers` is absent or a plain zod object: `withBookmarkHeader`
// (src/sql/endpoints/d1-session.ts, reached through the storage's `describe` hook) extends a ZodObject's
// shape and leaves any other headers schema alone, so with headers declared in valibot (a Standard
// Schema, which specroute takes wherever zod goes) or as a zod object with a transform, the header is
// never read: a malformed bookmark is answered 200, a good one is silently dropped (the read starts on
// any replica, losing read-your-writes), and the document does not list it. Real workerd with D1.

const forged = `ffffffff-ffffffff-ffffffff-${"f".repeat(32)}`;

describe("D1 sessions: the bookmark header on a read whose schema declares its own headers", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  let doc: any;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/attack-d1-headers-app.ts", {
      schema: ["CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL)"],
    });
    const created = await worker.fetch("/notes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "first" }),
    });
    expect(created.status).toBe(201);
    doc = await (await worker.fetch("/openapi.json")).json();
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  // "zod" (a plain zod object) is the control: it behaves as documented.
  for (const route of ["zod", "loose", "strict", "transformed"]) {
    describe(`headers declared as ${route}`, () => {
      it("refuses a malformed bookmark with a 400 naming the header", async () => {
        const read = await worker.fetch(`/${route}/notes/1`, { headers: { "x-d1-bookmark": "garbage" } });
        expect(read.status).toBe(400);
        expect((await read.json()).errors[0].path).toEqual(["headers", "x-d1-bookmark"]);
      });

      it("starts the read's session at the bookmark sent (local D1 answers a newer bookmark it is given as is)", async () => {
        const read = await worker.fetch(`/${route}/notes/1`, { headers: { "x-d1-bookmark": forged } });
        expect(read.status).toBe(200);
        expect(read.headers.get("x-d1-bookmark")).toBe(forged);
      });

      it("documents the header on the read", () => {
        const names = doc.paths[`/${route}/notes/{id}`].get.parameters.map((p: { name: string }) => p.name);
        expect(names).toContain("x-d1-bookmark");
      });
    });
  }
});
