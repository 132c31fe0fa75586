// D1 read replication as a Worker: the auto endpoints open a D1 session per request inside workerd and
// answer its bookmark; /plain/ serves the same model without sessions, /custom/ names its own header,
// /valibot/ and /transformed/ declare request headers in schemas zod cannot extend.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { Hono } from "hono";
import {
  D1CreateEndpoint,
  type D1DatabaseLike,
  D1ListEndpoint,
  D1ReadEndpoint,
  D1UpdateEndpoint,
  fromHono,
} from "specroute";
import * as v from "valibot";
import { z } from "zod";

const Note = z.object({ id: z.number().int(), text: z.string().min(1) });
const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };

class CreateNote extends D1CreateEndpoint {
  _meta = meta;
  d1Sessions = true;
}
class GetNote extends D1ReadEndpoint {
  _meta = meta;
  d1Sessions = true;
  conditionalRequests = true;
}
class UpdateNote extends D1UpdateEndpoint {
  _meta = meta;
  d1Sessions = true;
}
class ListNotes extends D1ListEndpoint {
  _meta = meta;
  d1Sessions = true;
  d1BookmarkHeader = "x-notes-bookmark";
  pagination = "both" as const; // its 200 declares the Link header as a zod object
  orderByFields = ["id"];
}
class PlainGetNote extends D1ReadEndpoint {
  _meta = meta;
}
// A binding without the Sessions API (as on an older runtime): a wrapper with only prepare and batch.
class WithoutSessionsGetNote extends D1ReadEndpoint {
  _meta = meta;
  d1Sessions = true;
  override getDBBinding(): D1DatabaseLike {
    const db = super.getDBBinding();
    return { prepare: (sql) => db.prepare(sql), batch: (statements) => db.batch!(statements) };
  }
}

// The app's own header, with the same rule, in a valibot object and in a transformed zod object.
const clientHeaders = {
  valibot: toStandardJsonSchema(v.object({ "x-client": v.optional(v.pipe(v.string(), v.minLength(3))) })),
  transformed: z.object({ "x-client": z.string().min(3).optional() }).transform((headers) => ({ ...headers })),
};
class ValibotHeadersGetNote extends D1ReadEndpoint {
  _meta = meta;
  d1Sessions = true;
  schema = { request: { headers: clientHeaders.valibot } };
}
class TransformedHeadersListNotes extends D1ListEndpoint {
  _meta = meta;
  d1Sessions = true;
  schema = { request: { headers: clientHeaders.transformed } };
}

const app = new Hono<{ Bindings: { DB: unknown } }>();
const openapi = fromHono(app);
openapi.post("/notes", CreateNote);
openapi.get("/notes/:id", GetNote);
openapi.patch("/notes/:id", UpdateNote);
openapi.get("/notes", ListNotes);
openapi.get("/plain/notes/:id", PlainGetNote);
openapi.get("/without-sessions/notes/:id", WithoutSessionsGetNote);
openapi.get("/valibot/notes/:id", ValibotHeadersGetNote);
openapi.get("/transformed/notes", TransformedHeadersListNotes);

export default app;
