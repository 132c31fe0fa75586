// The schema-library case's valibot app (specroute on Hono, through Standard Schema): every schema wrapped
// with `toStandardJsonSchema()` as docs/schema-libraries.md says. Same endpoints as schemas-zod.js.
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { Hono } from "hono";
import { contentJson, fromHono, InputValidationException, OpenAPIRoute } from "specroute";
import * as v from "valibot";
import { createdOrder, itemOf, ROUTER_OPTIONS } from "./shared/schema-libraries.js";

const int = v.pipe(v.number(), v.integer());

const Item = v.object({
  id: int,
  name: v.string(),
  active: v.boolean(),
  limit: int,
  tags: v.array(v.string()),
  price: v.number(),
  stock: v.object({ warehouse: v.string(), count: int }),
});

const Shipping = v.object({
  street: v.pipe(v.string(), v.minLength(1), v.maxLength(200)),
  city: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
  zip: v.pipe(v.string(), v.minLength(3), v.maxLength(10)),
});

const newOrderEntries = {
  title: v.pipe(v.string(), v.minLength(1), v.maxLength(120)),
  customer: v.pipe(v.string(), v.email()),
  quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100)),
  price: v.pipe(v.number(), v.minValue(0), v.maxValue(10000)),
  currency: v.pipe(v.string(), v.length(3)),
  note: v.optional(v.pipe(v.string(), v.maxLength(500))),
  shipping: v.optional(Shipping),
  items: v.pipe(v.array(v.string()), v.minLength(1), v.maxLength(20)),
};

const NewOrder = v.object(newOrderEntries);
const Order = v.object({ ...newOrderEntries, id: int });

class GetItem extends OpenAPIRoute {
  schema = {
    summary: "Get an item",
    request: {
      params: toStandardJsonSchema(v.object({ id: int })),
      query: toStandardJsonSchema(
        v.object({
          limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100))),
          active: v.optional(v.boolean()),
          tags: v.optional(v.array(v.string())),
        }),
      ),
    },
    responses: {
      200: { description: "The item", ...contentJson(toStandardJsonSchema(Item)) },
      ...InputValidationException.schema(),
    },
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
    request: { body: contentJson(toStandardJsonSchema(NewOrder)) },
    responses: {
      201: { description: "The order", ...contentJson(toStandardJsonSchema(Order)) },
      ...InputValidationException.schema(),
    },
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
