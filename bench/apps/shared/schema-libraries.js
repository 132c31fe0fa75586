// What the schema-library apps (schemas-zod.js, schemas-valibot.js, schemas-arktype.js) answer: the same
// handlers for the three, so the apps differ only by the schemas they declare.

/** The item of `GET /items/:id`: built from the validated params and query, every key declared. */
export function itemOf(params, query) {
  return {
    id: params.id,
    name: `item ${params.id}`,
    active: query.active ?? true,
    limit: query.limit ?? 20,
    tags: query.tags ?? [],
    price: 19.5,
    stock: { warehouse: "north", count: 42 },
  };
}

let nextOrder = 1;

/** The order `POST /orders` answers with 201: the validated body's fields (by name) and an id. */
export function createdOrder(body) {
  const order = {
    id: nextOrder++,
    title: body.title,
    customer: body.customer,
    quantity: body.quantity,
    price: body.price,
    currency: body.currency,
    items: body.items,
  };
  if (body.note !== undefined) order.note = body.note;
  if (body.shipping !== undefined)
    order.shipping = { street: body.shipping.street, city: body.shipping.city, zip: body.shipping.zip };
  return order;
}

/**
 * The three apps' router options. No router-wide `validateResponse`: `GET /items/:id` checks its answer
 * itself (`this.validateResponse(...)`, against its declared 200), and `POST /orders` does not, so its
 * figure is the request body's validation (a router-wide check of a `c.json(..., 201)` Response clones
 * and re-reads it, about as much CPU again as the whole request, the same for the three libraries).
 */
export const ROUTER_OPTIONS = { schema: { info: { title: "Schema libraries", version: "1.0.0" } } };
