import { Hono } from "hono";
import { fromHono } from "specroute";
import { Hello } from "./hello";
import { CreateNote, DeleteNote, GetNote, ListNotes, UpdateNote } from "./notes";

/** The Worker's bindings (wrangler.jsonc): the D1 database the note endpoints use. */
export type Env = { DB: D1Database };

export const app = new Hono<{ Bindings: Env }>();

// Also serves the OpenAPI document at /openapi.json and docs pages at /docs, /redocs and /scalar.
// "before-handle": a request that fails validation is answered 400 before any handler code runs.
fromHono(app, { schema: { info: { title: "{{name}}", version: "0.1.0" } }, validationFailures: "before-handle" })
  .get("/hello", Hello)
  .post("/notes", CreateNote)
  .get("/notes", ListNotes)
  .get("/notes/:id", GetNote)
  .patch("/notes/:id", UpdateNote)
  .delete("/notes/:id", DeleteNote);

export default app;
