// Bulk create and typed filters as a Worker: D1 endpoints reading env.DB inside workerd.
import { Hono } from "hono";
import { D1CreateEndpoint, D1ListEndpoint, type FilterOperatorName, fromHono } from "specroute";
import { z } from "zod";

const Person = z.object({
  id: z.number().int(),
  email: z.string().min(3),
  name: z.string().min(1),
  score: z.number().int().default(0),
  note: z.string().nullable().optional(),
});
const model = { tableName: "people", schema: Person, primaryKeys: ["id"], unique: ["email"] };

class CreatePeople extends D1CreateEndpoint {
  _meta = { model, fields: Person.omit({ id: true }) };
  bulk = true;
  maxBulkItems = 10;
  async before(data: { name: string }) {
    return { ...data, name: data.name.toUpperCase() };
  }
}
class ListPeople extends D1ListEndpoint {
  _meta = { model };
  filterOperators: Record<string, FilterOperatorName[]> = { score: ["gte", "in"], note: ["isnull"] };
  orderByFields = ["id"];
}

const app = new Hono<{ Bindings: { DB: unknown } }>();
const openapi = fromHono(app);
openapi.post("/people", CreatePeople);
openapi.get("/people", ListPeople);

export default app;
