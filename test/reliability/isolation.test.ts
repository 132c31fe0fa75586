import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { betterSqlite3Driver, contentJson, OpenAPIRoute, SqlCreateEndpoint, SqlReadEndpoint } from "../../src";
import { harnesses, jsonBody } from "../helpers";

const CONCURRENT = 10_000;

const pause = () =>
  new Promise<void>((resolve) =>
    Math.random() < 0.5 ? setTimeout(resolve, Math.random() * 3) : setImmediate(resolve),
  );

/**
 * Reads every per-request value before and after yielding to other requests, and keeps a value of
 * its own on `this`: if anything were shared on the endpoint instance, a response would show
 * another request's data.
 */
class Mirror extends OpenAPIRoute {
  schema = {
    request: {
      params: z.object({ n: z.number().int() }),
      query: z.object({ q: z.string() }),
      headers: z.object({ "X-Req": z.string() }),
      cookies: z.object({ c: z.string() }),
      body: contentJson(z.object({ n: z.number().int(), payload: z.string() })),
    },
    responses: {},
  };
  /** Set by each request on its own object; a shared instance would see it overwritten. */
  mine: number | undefined;

  async handle(...args: unknown[]) {
    const first = await this.getValidatedData();
    this.mine = first.body.n;
    await pause();
    const raw = await this.getUnvalidatedData();
    await pause();
    const again = await this.getValidatedData();
    // The router's own argument for this call: Hono's context or itty-router's request.
    const arg = args[0] as { req?: { header(name: string): string | undefined }; headers?: Headers };
    const fromArgs = arg.req ? arg.req.header("x-req") : arg.headers?.get("x-req");
    return {
      params: again.params.n,
      query: again.query.q,
      header: again.headers["X-Req"],
      cookie: again.cookies.c,
      body: again.body.n,
      payload: again.body.payload.length,
      raw: (raw.body as { n: number }).n,
      mine: this.mine,
      fromArgs,
      sameArgs: this.args[0] === args[0],
    };
  }
}

const Item = z.object({ id: z.number().int(), title: z.string().min(1), n: z.number().int() });
const itemMeta = { model: { tableName: "items", schema: Item, primaryKeys: ["id"] } };
class CreateItem extends SqlCreateEndpoint {
  _meta = { ...itemMeta, fields: Item.omit({ id: true }) };
  async before(data: { n: number }) {
    await pause();
    return data;
  }
  /** Re-reads this request's body after yielding: it must still be the one this row came from. */
  async after(data: { n: number }) {
    await pause();
    const { body } = (await this.getValidatedData()) as { body: { n: number } };
    if (body.n !== data.n) throw new Error(`request for ${body.n} answered row ${data.n}`);
    return data;
  }
}
class ReadItem extends SqlReadEndpoint {
  _meta = itemMeta;
}

for (const harness of harnesses) {
  describe(`${harness.name}: concurrent requests on one endpoint instance`, () => {
    it(`answers ${CONCURRENT} concurrent requests each with its own data`, async () => {
      const { router, request } = harness.make();
      router.post("/mirror/:n", Mirror);
      const responses = await Promise.all(
        Array.from({ length: CONCURRENT }, async (_, n) => {
          const response = await request(
            `/mirror/${n}?q=q${n}`,
            jsonBody({ n, payload: "x".repeat(n % 97) }, { headers: { "X-Req": `h${n}`, cookie: `c=k${n}` } }),
          );
          return { n, status: response.status, body: await response.json() };
        }),
      );
      const mismatched = responses.filter(
        ({ n, status, body }) =>
          status !== 200 ||
          JSON.stringify(body) !==
            JSON.stringify({
              params: n,
              query: `q${n}`,
              header: `h${n}`,
              cookie: `k${n}`,
              body: n,
              payload: n % 97,
              raw: n,
              mine: n,
              fromArgs: `h${n}`,
              sameArgs: true,
            }),
      );
      expect(mismatched.slice(0, 3)).toEqual([]);
    });

    it("creates and reads 2000 rows concurrently through the auto endpoints, each answer its own", async () => {
      const sqlite = new Database(":memory:");
      sqlite.exec("CREATE TABLE items (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, n INTEGER NOT NULL)");
      const { router, request } = harness.make({ db: betterSqlite3Driver(sqlite) });
      router.post("/items", CreateItem);
      router.get("/items/:id", ReadItem);
      const count = 2000;
      const created = await Promise.all(
        Array.from({ length: count }, async (_, n) => {
          const response = await request("/items", jsonBody({ title: `item ${n}`, n }));
          return { n, status: response.status, result: (await response.json()).result };
        }),
      );
      expect(
        created.filter(({ n, status, result }) => status !== 201 || result.n !== n || result.title !== `item ${n}`),
      ).toEqual([]);
      expect(new Set(created.map(({ result }) => result.id)).size).toBe(count);
      const read = await Promise.all(
        created.map(async ({ n, result }) => {
          const response = await request(`/items/${result.id}`);
          return { n, id: result.id, result: (await response.json()).result };
        }),
      );
      expect(read.filter(({ n, id, result }) => result.id !== id || result.n !== n)).toEqual([]);
      sqlite.close();
    });
  });
}
