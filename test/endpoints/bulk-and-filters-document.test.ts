import { createConfig, lintFromString } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import {
  CreateEndpoint,
  type FilterCondition,
  type FilterOperatorName,
  ListEndpoint,
  type ListFilters,
  SqlListEndpoint,
} from "../../src";
import { documentErrors, harnesses, jsonBody } from "../helpers";

// What the document says about bulk create and filter parameters (3.0 and 3.1), and what requests get.
const Event = z.object({
  id: z.number().int(),
  title: z.string().min(1),
  seats: z.number().int().min(0),
  price: z.number(),
  day: z.iso.date().nullable().optional(),
  at: z.date(),
  stamp: z.iso.datetime(),
  kind: z.enum(["talk", "workshop"]),
  open: z.boolean().default(true),
  note: z.string().nullable(),
});
const model = { tableName: "events", schema: Event, primaryKeys: ["id"] };

/** The filters the last list request handed to `list()`. */
let received: FilterCondition[] = [];
const created: string[] = [];

class ListEvents extends ListEndpoint {
  _meta = { model };
  filterFields = ["kind", "open"];
  filterOperators: Record<string, FilterOperatorName[]> = {
    seats: ["gt", "gte", "lt", "lte", "ne", "in"],
    price: ["gte"],
    day: ["gte", "in", "isnull"],
    at: ["lt", "in"],
    stamp: ["gte"],
    kind: ["in", "ne"],
    note: ["isnull"],
  };
  async list(filters: ListFilters) {
    received = filters.filters;
    return { result: [] };
  }
}
class CountedEvents extends SqlListEndpoint {
  _meta = { model };
}
class CreateEvents extends CreateEndpoint {
  _meta = { model, fields: Event.pick({ title: true, seats: true }) };
  bulk = true;
  async before(data: { title: string }) {
    created.push(`before ${data.title}`);
    return data;
  }
  async create(data: { title: string; seats: number }) {
    created.push(`create ${data.title}`);
    return { ...data, id: created.length };
  }
  async after(data: { title: string }) {
    created.push(`after ${data.title}`);
    return data;
  }
}
class CreateEvent extends CreateEndpoint {
  _meta = { model, fields: Event.pick({ title: true, seats: true }) };
}

for (const harness of harnesses) {
  for (const version of ["3", "3.1"] as const) {
    describe(`the document (OpenAPI ${version}, ${harness.name})`, () => {
      const app = harness.make({ openapiVersion: version });
      app.router.get("/events", ListEvents);
      app.router.get("/counted", CountedEvents);
      app.router.post("/events", CreateEvents);
      app.router.post("/event", CreateEvent);
      const doc = app.router.schema;
      const parameters = Object.fromEntries(
        doc.paths["/events"].get.parameters.map((parameter: any) => [parameter.name, parameter]),
      );
      const schemaOf = (name: string) => parameters[name].schema;

      it("is a valid document, with no error under redocly's recommended rules", async () => {
        expect(await documentErrors(doc)).toBeNull();
        const config = await createConfig({ extends: ["recommended"] });
        const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "/openapi.json", config });
        // Servers, summaries and security are this test app's to set, not what the endpoints derive.
        const appLevel = new Set(["no-empty-servers", "operation-summary", "security-defined"]);
        const errors = problems
          .filter((problem) => problem.severity === "error" && !appLevel.has(problem.ruleId))
          .map((problem) => `${problem.ruleId}: ${problem.message} @ ${problem.location[0]?.pointer}`);
        expect(errors).toEqual([]);
      });

      it("gives each operator parameter its field's type and format", () => {
        for (const name of ["seats__gt", "seats__gte", "seats__lt", "seats__lte", "seats__ne"]) {
          expect(schemaOf(name), name).toEqual({ type: "integer", minimum: 0 });
        }
        expect(schemaOf("price__gte")).toEqual({ type: "number" });
        expect(schemaOf("day__gte")).toMatchObject({ type: "string", format: "date" });
        expect(schemaOf("at__lt")).toMatchObject({ type: "string", format: "date-time" });
        expect(schemaOf("stamp__gte")).toMatchObject({ type: "string", format: "date-time" });
        expect(schemaOf("kind__ne")).toEqual({ type: "string", enum: ["talk", "workshop"] });
        expect(schemaOf("open")).toEqual({ type: "boolean" });
        for (const name of Object.keys(parameters)) expect(parameters[name].required, name).toBe(false);
      });

      it("documents __in as an exploded form array of the field's type", () => {
        for (const [name, items] of [
          ["seats__in", { type: "integer", minimum: 0 }],
          ["kind__in", { type: "string", enum: ["talk", "workshop"] }],
          ["at__in", { type: "string", format: "date-time" }],
        ] as const) {
          expect(parameters[name], name).toMatchObject({ in: "query", style: "form", explode: true });
          expect(schemaOf(name), name).toEqual({ type: "array", items });
        }
        expect(schemaOf("day__in").items).toMatchObject({ type: "string", format: "date" });
      });

      it("documents __isnull as a boolean, on nullable fields too", () => {
        expect(schemaOf("note__isnull")).toEqual({ type: "boolean" });
        expect(schemaOf("day__isnull")).toEqual({ type: "boolean" });
        expect(parameters.note__isnull.description).toBe(
          "Only objects whose note is null (true) or is not null (false)",
        );
      });

      it("lists total_count as required only where every answer carries it", () => {
        const info = (path: string) =>
          doc.paths[path].get.responses["200"].content["application/json"].schema.properties.result_info;
        expect(info("/counted").required).toEqual(["count", "page", "per_page", "total_count"]);
        expect(info("/events").required).toEqual(["count", "page", "per_page"]);
        expect(info("/events").properties.total_count).toEqual({ type: "integer" });
      });

      it("documents a bulk create body and answer as one object or an array", () => {
        const create = doc.paths["/events"].post;
        const body = create.requestBody.content["application/json"].schema;
        expect(body.oneOf).toHaveLength(2);
        expect(body.oneOf[0]).toMatchObject({ type: "object", required: ["title", "seats"] });
        expect(body.oneOf[1]).toMatchObject({ type: "array", minItems: 1, maxItems: 100 });
        expect(body.oneOf[1].items).toEqual(body.oneOf[0]);
        const result = create.responses["201"].content["application/json"].schema.properties.result;
        expect(result.oneOf.map((member: { type: string }) => member.type)).toEqual(["object", "array"]);
        expect(Object.keys(create.responses)).toEqual(["201", "400", "413", "415"]);
      });

      it("leaves a create endpoint without bulk documented as before", () => {
        const body = doc.paths["/event"].post.requestBody.content["application/json"].schema;
        expect(body.oneOf).toBeUndefined();
        expect(body).toMatchObject({ type: "object", required: ["title", "seats"] });
        const result = doc.paths["/event"].post.responses["201"].content["application/json"].schema.properties.result;
        expect(result.type).toBe("object");
      });
    });
  }

  describe(`filter values and bulk create on requests (${harness.name})`, () => {
    const app = harness.make();
    app.router.get("/events", ListEvents);
    app.router.post("/events", CreateEvents);
    const list = async (query: string) => {
      const response = await app.request(`/events?${query}`);
      return { status: response.status, body: await response.json() };
    };

    it("coerces each operator's value to the field's type", async () => {
      const { status } = await list(
        "seats__gte=2&seats__in=1&seats__in=3&at__lt=2024-05-01T10:00:00Z&day__gte=2024-05-01&day__in=2024-05-02&note__isnull=true&day__isnull=False&kind__in=talk&open=false&price__gte=1.5",
      );
      expect(status).toBe(200);
      const byKey = Object.fromEntries(
        received.map((condition) => [`${condition.field} ${condition.operator}`, condition]),
      );
      expect(byKey["seats GTE"]!.value).toBe(2);
      expect(byKey["seats IN"]!.value).toEqual([1, 3]);
      expect(byKey["at LT"]!.value).toEqual(new Date("2024-05-01T10:00:00Z"));
      expect(byKey["day GTE"]!.value).toBe("2024-05-01");
      expect(byKey["day IN"]!.value).toEqual(["2024-05-02"]);
      expect(byKey["note ISNULL"]!.value).toBe(true);
      expect(byKey["day ISNULL"]!.value).toBe(false);
      expect(byKey["kind IN"]!.value).toEqual(["talk"]);
      expect(byKey["open EQ"]!.value).toBe(false);
      expect(byKey["price GTE"]!.value).toBe(1.5);
    });

    it("refuses values that are not of the field's type or format, naming the parameter", async () => {
      for (const [query, path] of [
        ["seats__gte=1.5", ["query", "seats__gte"]],
        ["seats__gt=-1", ["query", "seats__gt"]],
        ["at__lt=yesterday", ["query", "at__lt"]],
        ["day__gte=2024-02-30", ["query", "day__gte"]],
        ["stamp__gte=2024-05-01", ["query", "stamp__gte"]],
        ["kind__in=talk&kind__in=party", ["query", "kind__in", "1"]],
        ["note__isnull=1", ["query", "note__isnull"]],
      ] as const) {
        const { status, body } = await list(query);
        expect(status, query).toBe(400);
        expect(body.errors[0].path, query).toEqual(path);
      }
    });

    it("runs before and after per item and createMany once, on an endpoint without SQL", async () => {
      created.length = 0;
      const response = await app.request(
        "/events",
        jsonBody([
          { title: "a", seats: 1 },
          { title: "b", seats: 2 },
        ]),
      );
      expect(response.status).toBe(201);
      expect((await response.json()).result).toEqual([
        { title: "a", seats: 1, id: 3 },
        { title: "b", seats: 2, id: 4 },
      ]);
      expect(created).toEqual(["before a", "before b", "create a", "create b", "after a", "after b"]);
    });
  });
}
