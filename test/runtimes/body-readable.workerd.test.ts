import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "./bundle";

describe("inside workerd, a handler reads the body again after validation", () => {
  let worker: Awaited<ReturnType<typeof startWorker>>;
  beforeAll(async () => {
    worker = await startWorker("test/runtimes/body-readable-app.ts");
  }, 60_000);
  afterAll(() => worker?.mf.dispose());

  const send = (path: string, init: RequestInit) => worker.fetch(path, init);
  const json = (title: string): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
  const upload = async (): Promise<RequestInit> => {
    const form = new FormData();
    form.append("title", "Grüße");
    form.append("file", new File(["file text"], "a.txt", { type: "text/plain" }));
    // Encoded here: Miniflare's dispatchFetch does not serialize a FormData body itself.
    const encoded = new Request("http://localhost/", { method: "POST", body: form });
    const headers = { "content-type": encoded.headers.get("content-type")! };
    return { method: "POST", headers, body: await encoded.arrayBuffer() };
  };

  it.each(["hono", "itty"])("%s: json() then text() of a JSON body", async (adapter) => {
    const response = await send(`/${adapter}/json`, json("on workerd"));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ json: "on workerd", text: '{"title":"on workerd"}' });
  });

  it("itty: request.clone() of a validated request still has the body", async () => {
    const response = await send("/itty/json", json("cloned"));
    expect((await response.json()).clone).toBe('{"title":"cloned"}');
  });

  it("hono: c.req.raw.clone(), c.req.raw.body and c.req.raw.json() of a validated JSON body", async () => {
    const response = await send("/hono/json", json("raw"));
    const body = '{"title":"raw"}';
    expect(await response.json()).toMatchObject({ clone: body, stream: body, raw: "raw" });
  });

  it("hono: c.req.parseBody() and c.req.raw.formData() of a multipart body", async () => {
    const response = await send("/hono/upload", await upload());
    expect(await response.json()).toEqual({ title: "Grüße", file: "file text", rawFile: "file text" });
  });

  it("itty: request.formData() of a multipart body", async () => {
    const response = await send("/itty/upload", await upload());
    expect(await response.json()).toEqual({ title: "Grüße", file: "file text" });
  });
});
