// The schema-library case's ArkType app (specroute on Hono, through Standard Schema): ArkType's `type(...)`
// schemas passed as they are. Same endpoints as schemas-zod.js. ArkType keeps undeclared keys by default
// (zod and valibot strip them); the handlers build their answers key by key, so the answers are the same.
import { type } from "arktype";
import { Hono } from "hono";
import { contentJson, fromHono, InputValidationException, OpenAPIRoute } from "specroute";
import { createdOrder, itemOf, ROUTER_OPTIONS } from "./shared/schema-libraries.js";

const Item = type({
  id: "number.integer",
  name: "string",
  active: "boolean",
  limit: "number.integer",
  tags: "string[]",
  price: "number",
  stock: { warehouse: "string", count: "number.integer" },
});

const newOrderEntries = {
  title: "1 <= string <= 120",
  customer: "string.email",
  quantity: "1 <= number.integer <= 100",
  price: "0 <= number <= 10000",
  currency: "string == 3",
  "note?": "string <= 500",
  "shipping?": { street: "1 <= string <= 200", city: "1 <= string <= 100", zip: "3 <= string <= 10" },
  items: type("string[]").atLeastLength(1).atMostLength(20),
};

const NewOrder = type(newOrderEntries);
const Order = type({ ...newOrderEntries, id: "number.integer" });

class GetItem extends OpenAPIRoute {
  schema = {
    summary: "Get an item",
    request: {
      params: type({ id: "number.integer" }),
      query: type({ "limit?": "1 <= number.integer <= 100", "active?": "boolean", "tags?": "string[]" }),
    },
    responses: { 200: { description: "The item", ...contentJson(Item) }, ...InputValidationException.schema() },
  };

  async handle() {
    const { params, query } = await this.getValidatedData();
    // Checked (and stripped) against the declared 200 response.
    return this.validateResponse(itemOf(params, query));
  }
}

class CreateOrder extends OpenAPIRoute {
  schema = {
    summary: "Create an order",
    request: { body: contentJson(NewOrder) },
    responses: { 201: { description: "The order", ...contentJson(Order) }, ...InputValidationException.schema() },
  };

  async handle(c) {
    const { body } = await this.getValidatedData();
    return c.json(createdOrder(body), 201);
  }
}

export function createApp() {
  const app = new Hono();
  const openapi = fromHono(app, ROUTER_OPTIONS);
  openapi.get("/items/:id", GetItem);
  openapi.post("/orders", CreateOrder);
  return app;
}
