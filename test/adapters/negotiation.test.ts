import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { contentJson, OpenAPIRoute } from "../../src";
import { negotiate, type Offer } from "../../src/core/route/negotiate";
import { closeHttpHarnesses, httpHarnesses } from "../helpers";
import { resolvedResponse, validateDocument } from "../openapi/helpers";

// A response declared in several media types: data returned by handle() is written in the one the
// request's Accept prefers, by the router's serializers (JSON built in); nothing acceptable is a 406.
afterAll(closeHttpHarnesses);

const Row = z.object({ id: z.number(), name: z.string() });
const rows = [
  { id: 1, name: "a" },
  { id: 2, name: 'b "quoted"' },
];
const toCsv = (data: unknown) => {
  const list = data as Array<Record<string, unknown>>;
  const cell = (value: unknown) => `"${String(value).replace(/"/g, '""')}"`;
  return [Object.keys(list[0]!).join(","), ...list.map((row) => Object.values(row).map(cell).join(","))].join("\n");
};

class Export extends OpenAPIRoute {
  schema = {
    responses: {
      "200": {
        description: "The rows",
        content: {
          "application/json": { schema: z.array(Row) },
          "text/csv": { schema: z.string() },
        },
      },
    },
  };
  async handle() {
    return rows;
  }
}

/** Declares the same two types but answers a Response of its own, which is left alone. */
class OwnResponse extends Export {
  override async handle(): Promise<any> {
    return new Response("raw", { headers: { "content-type": "text/plain" } });
  }
}

class JsonOnly extends OpenAPIRoute {
  schema = { responses: { "200": { description: "One row", ...contentJson(Row) } } };
  async handle() {
    return rows[0];
  }
}

for (const harness of httpHarnesses) {
  describe(`content negotiation over HTTP: ${harness.name}`, () => {
    const make = () => {
      const app = harness.make({ serializers: { "text/csv": toCsv } });
      app.router.get("/export", Export);
      app.router.get("/own", OwnResponse);
      app.router.get("/one", JsonOnly);
      return app;
    };
    const get = (app: ReturnType<typeof make>, path: string, accept?: string) =>
      app.request(path, accept === undefined ? {} : { headers: { accept } });

    it("writes the media type Accept prefers: q-values, specificity and order decide", async () => {
      const app = make();
      const csv = await get(app, "/export", "text/csv");
      expect(csv.status).toBe(200);
      expect(csv.headers.get("content-type")).toBe("text/csv");
      expect(csv.headers.get("vary")).toBe("Accept");
      expect(await csv.text()).toBe('id,name\n"1","a"\n"2","b ""quoted"""');
      const json = await get(app, "/export", "text/csv;q=0.4, application/json;q=0.9");
      expect(json.headers.get("content-type")).toContain("application/json");
      expect(await json.json()).toEqual(rows);
      expect((await get(app, "/export", "text/*, */*;q=0.1")).headers.get("content-type")).toBe("text/csv");
      expect((await get(app, "/export", "*/*")).headers.get("content-type")).toContain("application/json");
      // No Accept: the first declared type.
      expect((await get(app, "/export")).headers.get("content-type")).toContain("application/json");
      // q=0 refuses a type even where a wildcard would take it.
      expect((await get(app, "/export", "application/json;q=0, */*")).headers.get("content-type")).toBe("text/csv");
    });

    it("answers 406, naming what it offers, when Accept takes none of its types", async () => {
      const app = make();
      const refused = await get(app, "/export", "application/xml");
      expect(refused.status).toBe(406);
      const body = await refused.json();
      expect(body.errors[0].code).toBe(7018);
      expect(body.errors[0].message).toContain("application/json or text/csv");
    });

    it("leaves a Response of the handler's own alone, and a JSON-only route ignores Accept as before", async () => {
      const app = make();
      const own = await get(app, "/own", "application/xml");
      expect(own.status).toBe(200);
      expect(await own.text()).toBe("raw");
      const one = await get(app, "/one", "text/html");
      expect(one.status).toBe(200);
      expect(await one.json()).toEqual(rows[0]);
    });

    it("documents both media types and the 406 where negotiation applies, and no 406 elsewhere", async () => {
      const app = make();
      const doc = await (await app.request("/openapi.json")).json();
      const exported = doc.paths["/export"].get.responses;
      expect(Object.keys(exported["200"].content)).toEqual(["application/json", "text/csv"]);
      expect(resolvedResponse(doc, exported["406"]).description).toBe("Not Acceptable");
      expect(doc.paths["/one"].get.responses).not.toHaveProperty("406");
      // The document says what the answer's headers say: the format follows Accept.
      expect(Object.keys(exported["200"].headers)).toEqual(["Vary"]);
      expect(doc.paths["/one"].get.responses["200"].headers).toBeUndefined();
      expect((await validateDocument(doc)).errors ?? null).toBeNull();
    });
  });
}

describe("negotiate", () => {
  const offer = (mediaType: string): Offer => ({ mediaType, essence: mediaType, serialize: String });
  const offers = [offer("application/json"), offer("text/csv"), offer("text/html")];

  it("prefers higher q, then the more specific range, then the client's order; refuses what q=0 names", () => {
    expect(negotiate("text/*;q=0.5, text/html", offers)?.mediaType).toBe("text/html");
    expect(negotiate("text/*, text/csv;q=0.2", offers)?.mediaType).toBe("text/csv");
    expect(negotiate("text/html, text/csv", offers)?.mediaType).toBe("text/html");
    expect(negotiate("*/*;q=0.1, text/*;q=0.5", offers)?.mediaType).toBe("text/csv");
    expect(negotiate("text/csv;q=0, text/*", offers)?.mediaType).toBe("text/html");
    expect(negotiate("image/png", offers)).toBeNull();
    expect(negotiate("", offers)?.mediaType).toBe("application/json");
  });

  it("reads malformed values as refusals, not errors, and stays bounded on a huge header", () => {
    expect(negotiate("text/csv;q=2, application/json", offers)?.mediaType).toBe("application/json");
    expect(negotiate("garbage, ;;, /", offers)).toBeNull();
    const huge = `${"x/y, ".repeat(100_000)}text/csv`;
    // Past the first ranges the header is not read: the request is refused rather than parsed without end.
    expect(negotiate(huge, offers)).toBeNull();
  });
});
