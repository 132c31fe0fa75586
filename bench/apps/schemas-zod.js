// The schema-library case's zod app (specroute on Hono): `GET /items/:id` and `POST /orders`, the same
// endpoints as schemas-valibot.js and schemas-arktype.js, handlers in shared/schema-libraries.js.
import { Hono } from "hono";
import { contentJson, fromHono, InputValidationException, OpenAPIRoute } from "specroute";
import { z } from "zod";
import { createdOrder, itemOf, ROUTER_OPTIONS } from "./shared/schema-libraries.js";

const Item = z.object({
  id: z.number().int(),
  name: z.string(),
  active: z.boolean(),
  limit: z.number().int(),
  tags: z.array(z.string()),
  price: z.number(),
  stock: z.object({ warehouse: z.string(), count: z.number().int() }),
});

const Shipping = z.object({
  street: z.string().min(1).max(200),
  city: z.string().min(1).max(100),
  zip: z.string().min(3).max(10),
});

const NewOrder = z.object({
  title: z.string().min(1).max(120),
  customer: z.email(),
  quantity: z.number().int().min(1).max(100),
  price: z.number().min(0).max(10000),
  currency: z.string().length(3),
  note: z.string().max(500).optional(),
  shipping: Shipping.optional(),
  items: z.array(z.string()).min(1).max(20),
});

const Order = NewOrder.extend({ id: z.number().int() });

class GetItem extends OpenAPIRoute {
  schema = {
    summary: "Get an item",
    request: {
      params: z.object({ id: z.number().int() }),
      query: z.object({
        limit: z.number().int().min(1).max(100).optional(),
        active: z.boolean().optional(),
        tags: z.array(z.string()).optional(),
      }),
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
