import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { InputValidationException, UpdateEndpoint, type UpdateFilters } from "../../src";
import { type AdapterHarness, closeHttpHarnesses, harnesses, httpHarnesses, jsonBody } from "../helpers";

// An app that keeps whole records in a Map (as it would in KV, R2 or a Durable Object) and stores
// `filters.updatedData` as the record: as in chanfana, that must be the whole object, not the members sent.
const Item = z.object({ id: z.number().int(), a: z.number().optional(), b: z.string().optional() });
type Item = z.infer<typeof Item>;
const meta = { model: { schema: Item, primaryKeys: ["id"], tableName: "items" } };

let store: Map<number, Item>;
const idOf = (filters: UpdateFilters) => filters.filters[0]!.value as number;

class SaveItem extends UpdateEndpoint {
  _meta = meta;
  async getObject(filters: UpdateFilters) {
    const found = store.get(idOf(filters));
    return found ? { ...found } : null;
  }
  async update(_oldObj: Item, filters: UpdateFilters) {
    store.set(idOf(filters), filters.updatedData as Item);
    return filters.updatedData;
  }
}

/** Reads the live stored object (no copy) and logs each change from `oldObj` to `updatedData`. */
class AuditedItem extends UpdateEndpoint {
  _meta = meta;
  static log: string[] = [];
  async getObject(filters: UpdateFilters) {
    return store.get(idOf(filters)) ?? null;
  }
  async before(_oldObj: Item, filters: UpdateFilters) {
    if (filters.updatedData.b === "forbidden") throw new InputValidationException("b may not be forbidden");
    return filters;
  }
  async update(oldObj: Item, filters: UpdateFilters) {
    for (const key of ["a", "b"] as const) {
      if (oldObj[key] !== filters.updatedData[key])
        AuditedItem.log.push(`${key}: ${oldObj[key]} → ${filters.updatedData[key]}`);
    }
    store.set(idOf(filters), { ...filters.updatedData } as Item);
    return filters.updatedData;
  }
}

/** Calls the public `getFilters()` on its own, as an app's own `handle()` may. */
class EchoFilters extends UpdateEndpoint {
  _meta = meta;
  async handle() {
    return Response.json(await this.getFilters());
  }
}

/** specroute's former `getFilters()`, written in an app: `updatedData` holds the members sent, `b` upper-cased. */
class OldStyleFilters extends SaveItem {
  async getFilters(): Promise<UpdateFilters> {
    const { body } = (await this.getValidatedData()) as { body: Record<string, unknown> };
    const sent = (await this.getUnvalidatedData()).body as Record<string, unknown>;
    const updatedData: Record<string, unknown> = {};
    for (const key of Object.keys(body)) if (key in sent) updatedData[key] = body[key];
    if (typeof updatedData.b === "string") updatedData.b = updatedData.b.toUpperCase();
    return { filters: await this.pathFilters(), updatedData };
  }
}

/** chanfana's own `getFilters()` shape: filters only, no `updatedData`. */
class ChanfanaStyleFilters extends SaveItem {
  async getFilters() {
    return { filters: await this.pathFilters() } as UpdateFilters;
  }
}

/** chanfana's `getUpdatedData()` overridden: what it returns is what the hooks get. */
class DoubledA extends SaveItem {
  async getUpdatedData(oldObj: Item) {
    const { updatedData } = await super.getUpdatedData(oldObj);
    return { updatedData: { ...updatedData, a: (updatedData.a ?? 0) * 2 } };
  }
}

function runUpdateDataSuite(harness: AdapterHarness) {
  describe(`${harness.name}${harness.transport === "http" ? " over HTTP" : ""}: updatedData in the hooks`, () => {
    let request: (path: string, init?: RequestInit) => Promise<Response>;
    beforeEach(() => {
      store = new Map([[1, { id: 1, a: 1, b: "kept" }]]);
      AuditedItem.log = [];
      const app = harness.make();
      for (const [path, endpoint] of [
        ["/items/:id", SaveItem],
        ["/audited/:id", AuditedItem],
        ["/echo/:id", EchoFilters],
        ["/old-style/:id", OldStyleFilters],
        ["/chanfana-style/:id", ChanfanaStyleFilters],
        ["/doubled/:id", DoubledA],
      ] as const) {
        app.router.patch(path, endpoint);
        app.router.put(path, endpoint);
      }
      request = app.request;
    });
    const send = (method: "PATCH" | "PUT", path: string, body: unknown) => request(path, jsonBody(body, { method }));

    for (const method of ["PATCH", "PUT"] as const) {
      it(`${method}: storing updatedData keeps every member the client did not send`, async () => {
        const response = await send(method, "/items/1", { a: 2 });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({ success: true, result: { id: 1, a: 2, b: "kept" } });
        expect(store.get(1)).toEqual({ id: 1, a: 2, b: "kept" });
        await send(method, "/items/1", { b: "new" });
        expect(store.get(1)).toEqual({ id: 1, a: 2, b: "new" });
      });
    }

    it("oldObj stays as fetched: update() sees what changed, from the old value to the new", async () => {
      expect((await send("PATCH", "/audited/1", { a: 2 })).status).toBe(200);
      expect((await send("PUT", "/audited/1", { a: 2, b: "changed" })).status).toBe(200);
      expect(AuditedItem.log).toEqual(["a: 1 → 2", "b: kept → changed"]);
      expect(store.get(1)).toEqual({ id: 1, a: 2, b: "changed" });
    });

    it("a hook that refuses the change leaves the object getObject returned untouched", async () => {
      const stored = store.get(1);
      const response = await send("PATCH", "/audited/1", { a: 9, b: "forbidden" });
      expect(response.status).toBe(400);
      expect(store.get(1)).toBe(stored);
      expect(stored).toEqual({ id: 1, a: 1, b: "kept" });
    });

    it("getFilters() called on its own gives the path filters and the members sent", async () => {
      const response = await send("PATCH", "/echo/1", { b: "x" });
      expect(await response.json()).toEqual({
        filters: [{ field: "id", operator: "EQ", value: 1 }],
        updatedData: { b: "x" },
      });
    });

    it("a getFilters() override returning only the members sent still keeps the rest, with its own values", async () => {
      expect((await send("PATCH", "/old-style/1", { b: "new" })).status).toBe(200);
      expect(store.get(1)).toEqual({ id: 1, a: 1, b: "NEW" });
      expect((await send("PATCH", "/old-style/1", { a: 5 })).status).toBe(200);
      expect(store.get(1)).toEqual({ id: 1, a: 5, b: "NEW" });
    });

    it("a getFilters() override in chanfana's form (no updatedData) still gets the members sent applied", async () => {
      const response = await send("PATCH", "/chanfana-style/1", { a: 3 });
      expect(response.status).toBe(200);
      expect(store.get(1)).toEqual({ id: 1, a: 3, b: "kept" });
    });

    it("an overridden getUpdatedData() is what update() receives", async () => {
      expect((await send("PATCH", "/doubled/1", { b: "x" })).status).toBe(200);
      expect(store.get(1)).toEqual({ id: 1, a: 2, b: "x" });
    });
  });
}

afterAll(closeHttpHarnesses);
for (const harness of [...harnesses, ...httpHarnesses]) runUpdateDataSuite(harness);
