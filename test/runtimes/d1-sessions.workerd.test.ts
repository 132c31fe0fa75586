import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentErrors } from "../helpers";
import { startWorker } from "./bundle";

// D1 bookmarks sort from oldest to newest (D1's glossary), so "at least as new" is a string comparison.
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

describe("D1 sessions (read replication) inside workerd", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/d1-sessions-app.ts", {
      schema: ["CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL)"],
    });
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  const json = { "content-type": "application/json" };
  const create = (text: string) =>
    worker.fetch("/notes", { method: "POST", headers: json, body: JSON.stringify({ text }) });

  it("answers a write's bookmark; a read sent it sees the write and answers one at least as new", async () => {
    const created = await create("first");
    expect(created.status).toBe(201);
    const written = created.headers.get("x-d1-bookmark");
    expect(written).toMatch(BOOKMARK);
    const { id } = (await created.json()).result;

    const read = await worker.fetch(`/notes/${id}`, { headers: { "x-d1-bookmark": written! } });
    expect(read.status).toBe(200);
    expect((await read.json()).result).toEqual({ id, text: "first" });
    const readBookmark = read.headers.get("x-d1-bookmark");
    expect(readBookmark).toMatch(BOOKMARK);
    expect(readBookmark! >= written!).toBe(true);

    const updated = await worker.fetch(`/notes/${id}`, {
      method: "PATCH",
      headers: { ...json, "x-d1-bookmark": readBookmark! },
      body: JSON.stringify({ text: "second" }),
    });
    expect(updated.status).toBe(200);
    const afterUpdate = updated.headers.get("x-d1-bookmark");
    expect(afterUpdate! > written!).toBe(true);
    const reread = await worker.fetch(`/notes/${id}`, { headers: { "x-d1-bookmark": afterUpdate! } });
    expect((await reread.json()).result.text).toBe("second");
  });

  it("reads without a bookmark, and answers one", async () => {
    await create("unbookmarked");
    const read = await worker.fetch("/notes/1");
    expect(read.status).toBe(200);
    expect(read.headers.get("x-d1-bookmark")).toMatch(BOOKMARK);
  });

  it("uses the header the endpoint names", async () => {
    const { headers } = await create("listed");
    const list = await worker.fetch("/notes", { headers: { "x-notes-bookmark": headers.get("x-d1-bookmark")! } });
    expect(list.status).toBe(200);
    expect((await list.json()).result.map((note: { text: string }) => note.text)).toContain("listed");
    expect(list.headers.get("x-notes-bookmark")).toMatch(BOOKMARK);
    expect(list.headers.get("x-d1-bookmark")).toBeNull();
  });

  it("refuses a malformed bookmark with a 400 naming the header", async () => {
    for (const sent of ["garbage", "first-primary", "ZZZZZZZZ-00000000-00000000-00000000000000000000000000000000"]) {
      const read = await worker.fetch("/notes/1", { headers: { "x-d1-bookmark": sent } });
      expect(read.status).toBe(400);
      const body = await read.json();
      expect(body.errors[0].path).toEqual(["headers", "x-d1-bookmark"]);
    }
    // A write starts on the primary, newer than any bookmark: it takes none, so it reads no header.
    const write = await worker.fetch("/notes/1", {
      method: "PATCH",
      headers: { ...json, "x-d1-bookmark": "garbage" },
      body: JSON.stringify({ text: "still written" }),
    });
    expect(write.status).toBe(200);
    expect(write.headers.get("x-d1-bookmark")).toMatch(BOOKMARK);
  });

  it("checks and documents the bookmark beside request headers declared in valibot or a transformed zod object", async () => {
    const { headers } = await create("beside");
    const written = headers.get("x-d1-bookmark")!;
    const doc = await (await worker.fetch("/openapi.json")).json();
    for (const path of ["/valibot/notes/1", "/transformed/notes"]) {
      const malformed = await worker.fetch(path, { headers: { "x-d1-bookmark": "garbage" } });
      expect(malformed.status, path).toBe(400);
      expect((await malformed.json()).errors[0].path).toEqual(["headers", "x-d1-bookmark"]);
      const ownRule = await worker.fetch(path, { headers: { "x-client": "ab" } });
      expect(ownRule.status, path).toBe(400);
      expect((await ownRule.json()).errors[0].path).toEqual(["headers", "x-client"]);
      const read = await worker.fetch(path, { headers: { "x-d1-bookmark": written, "x-client": "app" } });
      expect(read.status, path).toBe(200);
      expect(read.headers.get("x-d1-bookmark")! >= written).toBe(true);
      const documented = doc.paths[path.replace("/1", "/{id}")].get.parameters.filter(
        (p: { in: string }) => p.in === "header",
      );
      expect(documented.map((p: { name: string }) => p.name).sort()).toEqual(["x-client", "x-d1-bookmark"]);
    }
  });

  it("answers no bookmark where sessions are off or the binding has no Sessions API", async () => {
    await create("plain");
    for (const path of ["/plain/notes/1", "/without-sessions/notes/1"]) {
      const read = await worker.fetch(path);
      expect(read.status).toBe(200);
      expect((await read.json()).result.id).toBe(1);
      expect(read.headers.get("x-d1-bookmark")).toBeNull();
    }
  });

  it("documents the header: sent on reads, answered on success, absent where sessions are off", async () => {
    const doc = await (await worker.fetch("/openapi.json")).json();
    expect(await documentErrors(doc)).toBeNull();
    const parameter = (path: string, method: string) =>
      (doc.paths[path][method].parameters ?? []).find(
        (p: { in: string; name: string }) => p.in === "header" && p.name.endsWith("bookmark"),
      );
    expect(parameter("/notes/{id}", "get")).toMatchObject({ name: "x-d1-bookmark", required: false });
    expect(parameter("/notes", "get")).toMatchObject({ name: "x-notes-bookmark", required: false });
    expect(parameter("/notes", "post")).toBeUndefined();
    expect(parameter("/plain/notes/{id}", "get")).toBeUndefined();
    expect(Object.keys(doc.paths["/notes/{id}"].get.responses["200"].headers)).toEqual(["ETag", "x-d1-bookmark"]);
    expect(doc.paths["/notes/{id}"].get.responses["304"].headers["x-d1-bookmark"]).toBeUndefined();
    expect(doc.paths["/notes"].post.responses["201"].headers).toHaveProperty("x-d1-bookmark");
    expect(doc.paths["/notes/{id}"].patch.responses["200"].headers).toHaveProperty("x-d1-bookmark");
    expect(Object.keys(doc.paths["/notes"].get.responses["200"].headers)).toEqual(["Link", "x-notes-bookmark"]);
    expect(doc.paths["/plain/notes/{id}"].get.responses["200"].headers).toBeUndefined();
  });
});
