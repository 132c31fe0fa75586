import type { AddressInfo } from "node:net";
import { Hono } from "hono";
import { serve } from "hono-node-server-1";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, fromHono, OpenAPIRoute } from "../../src";

// Many Hono apps on Node still run @hono/node-server 1.x, whose lightweight Response keeps the init's
// headers object and writes Content-Length into it: every answer must hand it one of its own.

class GetTask extends OpenAPIRoute {
  schema = {
    request: { params: z.object({ id: z.coerce.number().int() }) },
    responses: { "200": { description: "The task", ...contentJson(z.object({ id: z.number(), title: z.string() })) } },
  };
  async handle() {
    const { params } = await this.getValidatedData<typeof this.schema>();
    return { id: params.id, title: "t".repeat(params.id) };
  }
}

const app = new Hono();
fromHono(app).get("/tasks/:id", GetTask);
let listening!: (info: AddressInfo) => void;
const address = new Promise<AddressInfo>((resolve) => (listening = resolve));
const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => listening(info));
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("an app served by @hono/node-server 1.x", () => {
  it("answers each 200 JSON answer with its own Content-Length, one after another", async () => {
    const { port } = await address;
    for (const id of [1, 12, 3]) {
      const answer = await fetch(`http://127.0.0.1:${port}/tasks/${id}`);
      const text = await answer.text();
      expect(answer.status).toBe(200);
      expect(JSON.parse(text)).toEqual({ id, title: "t".repeat(id) });
      expect(answer.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
    }
  });
});
