// Attack probe (issue #45 review): a D1 read with d1Sessions whose own schema declares request headers
// the way an app may: with valibot (a Standard Schema model, which specroute takes anywhere zod goes),
// or as a zod object with a transform. The bookmark header is added only to a zod object's shape.
import { Hono } from "hono";
import { D1CreateEndpoint, D1ReadEndpoint, fromHono } from "specroute";
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { z } from "zod";

const Note = z.object({ id: z.number().int(), text: z.string().min(1) });
const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };

class CreateNote extends D1CreateEndpoint {
  _meta = meta;
  d1Sessions = true;
}
class GetNoteZod extends D1ReadEndpoint {
  _meta = meta;
  d1Sessions = true;
  schema = { request: { headers: z.object({ "x-client": z.string().optional() }) } };
}
class GetNoteLoose extends D1ReadEndpoint {
  _meta = meta;
  d1Sessions = true;
  schema = { request: { headers: toStandardJsonSchema(v.looseObject({ "x-client": v.optional(v.string()) })) } };
}
class GetNoteStrict extends D1ReadEndpoint {
  _meta = meta;
  d1Sessions = true;
  schema = { request: { headers: toStandardJsonSchema(v.object({ "x-client": v.optional(v.string()) })) } };
}
class GetNoteTransformed extends D1ReadEndpoint {
  _meta = meta;
  d1Sessions = true;
  schema = {
    request: { headers: z.object({ "x-client": z.string().optional() }).transform((headers) => headers) },
  };
}

const app = new Hono<{ Bindings: { DB: unknown } }>();
const openapi = fromHono(app);
openapi.post("/notes", CreateNote);
openapi.get("/zod/notes/:id", GetNoteZod);
openapi.get("/loose/notes/:id", GetNoteLoose);
openapi.get("/strict/notes/:id", GetNoteStrict);
openapi.get("/transformed/notes/:id", GetNoteTransformed);

export default app;
