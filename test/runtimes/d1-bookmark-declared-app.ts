// Fixtures for the D1 bookmark beside an app's own request headers (test/runtimes/d1-bookmark-declared.workerd.test.ts):
// /loose/ declares the bookmark header itself in valibot with a looser rule (as an app documenting it
// would); /tenant/ transforms its header object to the tenant string. Each binding records the session
// start it was asked for, which GET /started answers.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { Hono } from "hono";
import { D1CreateEndpoint, type D1DatabaseLike, D1ReadEndpoint, fromHono } from "specroute";
import * as v from "valibot";
import { z } from "zod";

const Note = z.object({ id: z.number().int(), text: z.string().min(1) });
const meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };
const starts: string[] = [];

function recording(db: D1DatabaseLike): D1DatabaseLike {
  return {
    prepare: (sql) => db.prepare(sql),
    batch: (statements) => db.batch!(statements),
    withSession: (start?: string) => {
      starts.push(String(start));
      return db.withSession!(start as any);
    },
  } as D1DatabaseLike;
}

class CreateNote extends D1CreateEndpoint {
  _meta = meta;
  d1Sessions = true;
}
class LooseGetNote extends D1ReadEndpoint {
  _meta = meta;
  d1Sessions = true;
  schema = {
    request: {
      headers: toStandardJsonSchema(
        v.object({ "x-client": v.optional(v.string()), "x-d1-bookmark": v.optional(v.string()) }),
      ),
    },
  };
}
class TenantGetNote extends D1ReadEndpoint {
  _meta = meta;
  d1Sessions = true;
  schema = {
    request: { headers: z.object({ "x-tenant": z.string().optional() }).transform((h) => h["x-tenant"] ?? "public") },
  };
  override getDBBinding(): D1DatabaseLike {
    return recording(super.getDBBinding());
  }
}

const app = new Hono<{ Bindings: { DB: unknown } }>();
const openapi = fromHono(app);
openapi.post("/notes", CreateNote);
openapi.get("/loose/notes/:id", LooseGetNote);
openapi.get("/tenant/notes/:id", TenantGetNote);
app.get("/started", (c) => c.json(starts.splice(0)));

export default app;
