// The D1 bookmark beside an app's own request headers, inside workerd with a real D1 (docs/sql.md "D1
// read replicas", docs/security.md: "anything else is a 400 naming the header ... The check holds
// however the route declares its own request headers").
// - An app that declares the bookmark header itself in valibot (to document it) with v.string(): the
//   app's member wins in alongside(), the bookmark shape is never checked, and "garbage" reaches
//   withSession (a 500 from D1, or a bookmark kept for ever on local D1) instead of a 400.
// - An app whose zod header object is transformed to a string: the bookmark is validated, then dropped
//   from the output, so the read starts "first-unconstrained" and the client's read-your-writes is lost.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./bundle";

describe("the D1 bookmark beside an app's own header schema (workerd)", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/d1-bookmark-declared-app.ts", {
      schema: ["CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL)"],
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  const create = () =>
    worker.fetch("/notes", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: "first" }),
    });

  it("a malformed bookmark is a 400 naming the header, though the app declared the header itself", async () => {
    const { result } = await (await create()).json();
    const response = await worker.fetch(`/loose/notes/${result.id}`, { headers: { "x-d1-bookmark": "garbage" } });
    expect(response.status).toBe(400);
    expect((await response.json()).errors[0].path).toEqual(["headers", "x-d1-bookmark"]);
  });

  it("a read sent a bookmark starts its session at it, though the app's headers transform to a string", async () => {
    const created = await create();
    const bookmark = created.headers.get("x-d1-bookmark")!;
    const { result } = await created.json();
    await worker.fetch("/started");
    const read = await worker.fetch(`/tenant/notes/${result.id}`, {
      headers: { "x-d1-bookmark": bookmark, "x-tenant": "t1" },
    });
    expect(read.status).toBe(200);
    expect(await (await worker.fetch("/started")).json()).toEqual([bookmark]);
  });
});
