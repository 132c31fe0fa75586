// Conditional requests on D1 endpoints inside workerd: one table with a version column, one without.
import { Hono } from "hono";
import { D1CreateEndpoint, D1DeleteEndpoint, D1ReadEndpoint, D1UpdateEndpoint, fromHono, type Model } from "specroute";
import { z } from "zod";

const Note = z.object({ id: z.number().int(), title: z.string(), body: z.string().nullable() });

function routes(prefix: string, model: Model) {
  const meta = { model, fields: model.schema.omit({ id: true }) };
  class CreateNote extends D1CreateEndpoint {
    _meta = meta;
    conditionalRequests = true;
  }
  class ReadNote extends D1ReadEndpoint {
    _meta = meta;
    conditionalRequests = true;
  }
  class UpdateNote extends D1UpdateEndpoint {
    _meta = meta;
    requireIfMatch = true;
  }
  class DeleteNote extends D1DeleteEndpoint {
    _meta = meta;
    conditionalRequests = true;
  }
  openapi.post(prefix, CreateNote);
  openapi.get(`${prefix}/:id`, ReadNote);
  openapi.patch(`${prefix}/:id`, UpdateNote);
  openapi.delete(`${prefix}/:id`, DeleteNote);
}

const app = new Hono<{ Bindings: { DB: unknown } }>();
const openapi = fromHono(app);
routes("/versioned", {
  tableName: "versioned_notes",
  schema: Note.extend({ version: z.number().int() }),
  primaryKeys: ["id"],
  versionField: "version",
});
routes("/rows", { tableName: "row_notes", schema: Note, primaryKeys: ["id"] });

export default app;
