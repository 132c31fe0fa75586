import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ListEndpoint, OpenAPIRoute } from "../../src";
import { harnesses } from "../helpers";

/** Endpoint state written the way chanfana code writes it: chanfana builds one instance per request. */
class Stateful extends OpenAPIRoute {
  schema = { request: { query: z.object({ name: z.string(), wait: z.coerce.number().default(0) }) }, responses: {} };
  seen: string[] = [];
  counts: Record<string, number> = {};
  tags = new Set<string>();
  byName = new Map<string, number>();
  user: { name: string } | undefined;
  /** Frozen: shared as it is, never copied. */
  readonly limits = Object.freeze({ max: 3 });

  async handle() {
    const { query } = await this.getValidatedData();
    const before = { seen: [...this.seen], user: this.user?.name ?? null };
    this.user = { name: query.name };
    this.seen.push(query.name);
    this.counts[query.name] = (this.counts[query.name] ?? 0) + 1;
    this.tags.add(query.name);
    this.byName.set(query.name, query.wait);
    if (query.wait) await new Promise((resolve) => setTimeout(resolve, query.wait));
    return {
      before,
      seen: this.seen,
      counts: this.counts,
      tags: [...this.tags],
      byName: [...this.byName.keys()],
      user: this.user.name,
      limits: this.limits,
    };
  }
}

for (const harness of harnesses) {
  describe(`${harness.name}: endpoint state does not leak between requests`, () => {
    const { router, request } = harness.make();
    router.get("/state", Stateful);
    const call = async (name: string, wait = 0) => (await request(`/state?name=${name}&wait=${wait}`)).json();

    it("starts every request from the class fields' initial values", async () => {
      await call("ada");
      const second = await call("bob");
      expect(second).toEqual({
        before: { seen: [], user: null },
        seen: ["bob"],
        counts: { bob: 1 },
        tags: ["bob"],
        byName: ["bob"],
        user: "bob",
        limits: { max: 3 },
      });
    });

    it("keeps a field assigned in handle() to its own request", async () => {
      await call("carol");
      expect((await call("dave")).before.user).toBeNull();
    });

    it("keeps two concurrent requests apart", async () => {
      const [slow, fast] = await Promise.all([call("slow", 30), call("fast")]);
      expect(slow).toMatchObject({ seen: ["slow"], user: "slow", counts: { slow: 1 } });
      expect(fast).toMatchObject({ seen: ["fast"], user: "fast", counts: { fast: 1 } });
    });
  });
}

/** What each request's object holds as its own, rather than inherits from the registered instance. */
const ownFields: string[][] = [];

/** A list endpoint with a state field of its own beside the framework's configuration fields. */
class AuditedList extends ListEndpoint {
  _meta = { model: { tableName: "notes", schema: z.object({ id: z.number().int() }), primaryKeys: ["id"] } };
  filterFields = ["id"];
  visited: number[] = [];

  async list() {
    ownFields.push(["visited", "filterFields", "_meta"].filter((name) => Object.hasOwn(this, name)));
    this.visited.push(this.visited.length);
    return { result: [{ id: this.visited.length }] };
  }
}

describe("configuration fields are shared, state fields copied", () => {
  it("gives each request its own state field and the registered instance's configuration", async () => {
    const { router, request } = harnesses[0]!.make();
    router.get("/notes", AuditedList);
    const first = await (await request("/notes")).json();
    const second = await (await request("/notes")).json();
    expect([first.result, second.result]).toEqual([[{ id: 1 }], [{ id: 1 }]]);
    expect(ownFields).toEqual([["visited"], ["visited"]]);
  });
});

describe("configurationFields: a class lists its own, its parents' count too", () => {
  const seen: { registry: object; filterFields: object; scratch: object }[] = [];
  class RegistryList extends ListEndpoint {
    // Only its own field: ListEndpoint's (filterFields, ...) and ModelEndpoint's (_meta) still count.
    static override readonly configurationFields = ["registry"];
    _meta = { model: { tableName: "notes", schema: z.object({ id: z.number().int() }), primaryKeys: ["id"] } };
    filterFields = ["id"];
    registry: Record<string, number> = {};
    scratch: string[] = [];
    override async list() {
      seen.push({ registry: this.registry, filterFields: this.filterFields, scratch: this.scratch });
      return { result: [] };
    }
  }

  it("shares the fields listed by the class and by the classes it extends, and copies the rest", async () => {
    const { router, request } = harnesses[0]!.make();
    router.get("/notes", RegistryList);
    expect((await request("/notes")).status).toBe(200);
    expect((await request("/notes")).status).toBe(200);
    const [first, second] = seen;
    expect(second!.registry).toBe(first!.registry);
    expect(second!.filterFields).toBe(first!.filterFields);
    expect(second!.scratch).not.toBe(first!.scratch);
  });
});
