// A D1ListEndpoint paging by cursor, bundled and run inside workerd with a real D1 bound as DB.
import { Hono } from "hono";
import { D1ListEndpoint, fromHono } from "specroute";
import { z } from "zod";

const Note = z.object({ id: z.number().int(), rank: z.number().int(), label: z.string().nullable() });

class ListNotes extends D1ListEndpoint {
  _meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] } };
  pagination = "cursor" as const;
  orderByFields = ["rank", "label"];
}

const app = new Hono<{ Bindings: { DB: unknown } }>();
fromHono(app).get("/notes", ListNotes);

export default app;
