import { Hono } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { fromHono } from "specroute";
import {
  BookCreate,
  BookDelete,
  BookImport,
  BookList,
  BookRead,
  BookUpdate,
  Brew,
  type Env,
  LegacyBookRead,
  LegacyError,
  WhoAmI,
} from "./endpoints";

const app = new Hono<Env>().basePath("/api");

app.onError((err, c) => {
  if (err instanceof LegacyError) {
    return c.json(
      { ok: false, error: { code: err.original.code, message: err.original.message } },
      err.original.status as ContentfulStatusCode,
    );
  }
  if (err instanceof HTTPException) {
    return err.getResponse();
  }
  return c.json({ success: false, errors: [{ code: 7000, message: "Internal Server Error" }] }, 500);
});

const openapi = fromHono(app, {
  docs_url: "/docs",
  openapi_url: "/openapi.json",
  schema: {
    info: {
      title: "Library API",
      version: "1.0.0",
      description: "Books on D1, written from chanfana's documentation",
    },
  },
});

openapi.registry.registerComponent("securitySchemes", "bearerAuth", {
  type: "http",
  scheme: "bearer",
});

openapi.get("/books", BookList);
openapi.post("/books", BookCreate);
openapi.post("/books/import", BookImport);
openapi.get("/books/:id", BookRead);
openapi.put("/books/:id", BookUpdate);
openapi.delete("/books/:id", BookDelete);
openapi.get("/brew", Brew);
openapi.get("/me", WhoAmI);
openapi.get("/legacy/books/:id", LegacyBookRead);

export default app;
