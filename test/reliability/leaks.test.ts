import { PGlite } from "@electric-sql/pglite";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  ApiException,
  BadGatewayException,
  type ErrorFormat,
  InternalServerErrorException,
  OpenAPIRoute,
  ResponseValidationException,
} from "../../src";
import { captureConsoleErrors, harnesses } from "../helpers";

// Errors carrying everything that must stay server-side: SQL, driver messages, file paths, secrets.
const SECRET = "hunter2-db-password";
const sqlite = new Database(":memory:");
const pglite = new PGlite();
afterAll(async () => {
  sqlite.close();
  await pglite.close();
});

async function driverError(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error("expected the driver to fail");
}

const hostile = new Proxy(
  {},
  {
    get() {
      throw new Error(`getter trap ${SECRET}`);
    },
    has() {
      throw new Error(`has trap ${SECRET}`);
    },
  },
);

const thrown: Record<string, () => unknown | Promise<unknown>> = {
  error: () => new Error(`SELECT * FROM users WHERE password = '${SECRET}' at /srv/app/src/db.ts:10:3`),
  typeError: () => new TypeError(`Cannot read properties of undefined (reading '${SECRET}')`),
  string: () => `raw string ${SECRET} /etc/passwd`,
  number: () => 42,
  nullValue: () => null,
  undefinedValue: () => undefined,
  plainObject: () => ({ message: `object ${SECRET}`, stack: "at /srv/app.js:1:1", status: 500 }),
  symbol: () => Symbol(SECRET),
  aggregate: () => new AggregateError([new Error(SECRET)], `aggregate ${SECRET}`),
  withCause: () => new Error("outer", { cause: new Error(`inner ${SECRET}`) }),
  internal: () => new InternalServerErrorException(`internal ${SECRET}`),
  // The base class shows its message (as chanfana's does) unless told not to.
  hiddenBase: () => Object.assign(new ApiException(`base ${SECRET}`), { isVisible: false }),
  responseValidation: () => new ResponseValidationException(`response ${SECRET}`),
  badGatewayWithCause: () => new BadGatewayException("Upstream failed", { cause: new Error(SECRET) }),
  hostile: () => hostile,
  // Errors straight from the drivers: better-sqlite3 (syntax, constraint) and PGlite (missing relation).
  dbSyntaxError: () =>
    driverError(() => sqlite.prepare(`SELEC password FROM secret_${SECRET.replace(/-/g, "_")}`).all()),
  dbConstraintError: () =>
    driverError(() => {
      sqlite.exec("CREATE TABLE IF NOT EXISTS t (k TEXT PRIMARY KEY)");
      sqlite.prepare("INSERT INTO t VALUES (?)").run(SECRET);
      sqlite.prepare("INSERT INTO t VALUES (?)").run(SECRET);
    }),
  dbRelationError: () => driverError(() => pglite.query(`SELECT * FROM "secret_${SECRET}"`)),
};

/** Internals: stack frames, paths, SQL keywords, driver and engine names, the secret itself. */
const LEAK =
  /hunter2|\/srv\/|\/etc\/|\/work\/|node_modules|\.ts:\d+|\.js:\d+|\bat \S+ \(|SELEC|INSERT|secret_|Sqlite|SQLITE|postgres|relation|syntax|trap|aggregate|inner/i;

class Throws extends OpenAPIRoute {
  schema = { request: { params: z.object({ kind: z.string() }) }, responses: {} };
  async handle() {
    const { params } = await this.getValidatedData();
    const value = thrown[params.kind]!();
    throw value instanceof Promise ? await value : value;
  }
}

/** Throws while the request is validated: a refinement that fails with a non-zod error. */
class ThrowsInValidation extends OpenAPIRoute {
  schema = {
    request: {
      query: z.object({
        q: z.string().refine(() => {
          throw new Error(`refinement ${SECRET} at /srv/validators.ts:3:7`);
        }),
      }),
    },
    responses: {},
  };
  async handle() {
    return { reached: true };
  }
}

const logged = captureConsoleErrors();

/** Error objects that are not the framework's: the router's own error handling answers them. */
const APP_ERRORS = new Set([
  "error",
  "typeError",
  "aggregate",
  "withCause",
  "dbSyntaxError",
  "dbConstraintError",
  "dbRelationError",
  // Awaiting handleError's result reads `then` on the proxy, whose trap throws an Error.
  "hostile",
]);

for (const harness of harnesses) {
  for (const errorFormat of ["envelope", "problem"] as ErrorFormat[]) {
    describe(`${harness.name}, ${errorFormat} errors: nothing internal reaches a client`, () => {
      const { router, request, caught } = harness.make({ errorFormat });
      router.get("/throw/:kind", Throws);
      router.get("/validate", ThrowsInValidation);

      // Error objects that are not the framework's go to the router's own handler, as in chanfana.
      const rendered = Object.keys(thrown).filter((kind) => !APP_ERRORS.has(kind));

      it.each(rendered)("answers a thrown %s with a generic 500 naming a logged request id", async (kind) => {
        const response = await request(`/throw/${kind}`);
        const text = await response.text();
        expect(text).not.toMatch(LEAK);
        expect(response.status, text).toBe(kind === "badGatewayWithCause" ? 502 : 500);
        const body = JSON.parse(text);
        const message: string = errorFormat === "problem" ? body.detail : body.errors[0].message;
        const id = response.headers.get("x-request-id");
        expect(id).toMatch(/^[0-9a-f-]{36}$/);
        // The message is chanfana's, exactly; the id travels in the header only.
        expect(message).toBe(kind === "badGatewayWithCause" ? "Upstream failed" : "Internal Error");
        // The server log keeps the detail, under the same id.
        expect(logged).toHaveLength(1);
        expect(String(logged[0]![0])).toContain(`request id ${id}`);
      });

      it.each([...APP_ERRORS])("hands a thrown %s to the router's own handler, unrendered", async (kind) => {
        caught.length = 0;
        const response = await request(`/throw/${kind}`);
        expect(await response.text()).toBe("router 500");
        expect(caught).toHaveLength(1);
        expect(caught[0]).toBeInstanceOf(Error);
      });

      it("hands an Error thrown inside validation to the router's own handler the same way", async () => {
        caught.length = 0;
        const response = await request("/validate?q=x");
        expect(await response.text()).toBe("router 500");
        expect(String(caught[0])).toContain("refinement");
      });

      it("uses the client's x-request-id when it is a plain token, and a fresh one otherwise", async () => {
        const taken = await request("/throw/internal", { headers: { "x-request-id": "edge-7f3a.9:b_2" } });
        expect(taken.headers.get("x-request-id")).toBe("edge-7f3a.9:b_2");
        expect(await taken.text()).not.toContain("edge-7f3a");
        expect(String(logged[0]![0])).toContain("request id edge-7f3a.9:b_2");
        for (const unsafe of ["<script>alert(1)</script>", "a b", "x".repeat(200), "-leading", 'quote"d', "é"]) {
          const response = await request("/throw/internal", { headers: { "x-request-id": unsafe } });
          const id = response.headers.get("x-request-id")!;
          expect(id, unsafe).toMatch(/^[0-9a-f-]{36}$/);
          expect(await response.text()).not.toContain(unsafe);
        }
      });

      it("gives concurrent failures distinct ids, each logged once", async () => {
        const responses = await Promise.all(Array.from({ length: 50 }, () => request("/throw/internal")));
        const ids = responses.map((response) => response.headers.get("x-request-id"));
        expect(new Set(ids).size).toBe(50);
        expect(logged.map((args) => String(args[0]).match(/request id (\S+):/)?.[1]).sort()).toEqual([...ids].sort());
      });
    });
  }
}
