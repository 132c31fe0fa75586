// A chanfana 3 style D1 app, written as its documentation writes one: only the import line differs.
import { Hono } from "hono";
import {
  D1CreateEndpoint,
  D1DeleteEndpoint,
  D1ListEndpoint,
  D1ReadEndpoint,
  D1UpdateEndpoint,
  fromHono,
} from "specroute";
import { z } from "zod";

const UserModel = {
  tableName: "users",
  primaryKeys: ["id"],
  schema: z.object({ id: z.number().int(), username: z.string(), email: z.email(), active: z.boolean() }),
};
const meta = { model: UserModel, fields: UserModel.schema.omit({ id: true }) };

class CreateUser extends D1CreateEndpoint {
  _meta = meta;
  constraintsMessages = {};
}
class ListUsers extends D1ListEndpoint {
  _meta = { model: UserModel };
  filterFields = ["active"];
  searchFields = ["username", "email"];
  orderByFields = ["id", "username"];
  defaultOrderBy = "id";
}
class GetUser extends D1ReadEndpoint {
  _meta = { model: UserModel };
}
class UpdateUser extends D1UpdateEndpoint {
  _meta = meta;
}
class DeleteUser extends D1DeleteEndpoint {
  _meta = { model: UserModel };
}

const app = new Hono<{ Bindings: { DB: unknown } }>();
const openapi = fromHono(app);
openapi.post("/users", CreateUser);
openapi.get("/users", ListUsers);
openapi.get("/users/:id", GetUser);
openapi.patch("/users/:id", UpdateUser);
openapi.delete("/users/:id", DeleteUser);

export default app;
