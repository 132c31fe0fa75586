// A worker whose handlers read the body themselves after specroute validated it, on both adapters.
import { Hono } from "hono";
import { AutoRouter } from "itty-router";
import { contentJson, contentMultipart, fileField, fromHono, fromIttyRouter, OpenAPIRoute } from "specroute";
import { z } from "zod";

const Task = contentJson(z.object({ title: z.string() }));
const Upload = contentMultipart(z.object({ title: z.string(), file: fileField({ maxSize: 1024 }) }));

class HonoJson extends OpenAPIRoute {
  schema = { request: { body: Task }, responses: {} };
  async handle(c: any) {
    const { body } = await this.getValidatedData();
    const clone = await c.req.raw.clone().text();
    const stream = await new Response(c.req.raw.clone().body).text();
    const raw = (await c.req.raw.json()).title;
    return { validated: body.title, json: (await c.req.json()).title, text: await c.req.text(), clone, stream, raw };
  }
}

class HonoUpload extends OpenAPIRoute {
  schema = { request: { body: Upload }, responses: {} };
  async handle(c: any) {
    const parsed = await c.req.parseBody();
    const raw = await c.req.raw.formData();
    return { title: parsed.title, file: await (parsed.file as File).text(), rawFile: await raw.get("file").text() };
  }
}

class IttyJson extends OpenAPIRoute {
  schema = { request: { body: Task }, responses: {} };
  async handle(request: Request) {
    await this.getValidatedData();
    const json = ((await request.json()) as { title: string }).title;
    return { json, text: await request.text(), clone: await request.clone().text() };
  }
}

class IttyUpload extends OpenAPIRoute {
  schema = { request: { body: Upload }, responses: {} };
  async handle(request: Request) {
    const form = await request.formData();
    return { title: form.get("title"), file: await (form.get("file") as File).text() };
  }
}

const hono = new Hono();
const honoRouter = fromHono(hono);
honoRouter.post("/hono/json", HonoJson);
honoRouter.post("/hono/upload", HonoUpload);

const itty = fromIttyRouter(AutoRouter({ base: "/itty" }), { base: "/itty" });
itty.post("/json", IttyJson);
itty.post("/upload", IttyUpload);

export default {
  fetch(request: Request, env: unknown, ctx: unknown) {
    return new URL(request.url).pathname.startsWith("/hono")
      ? hono.fetch(request, env as any, ctx as any)
      : itty.fetch(request, env, ctx);
  },
};
