import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  apiKeyAuth,
  basicAuth,
  bearerAuth,
  contentJson,
  ForbiddenException,
  OpenAPIRoute,
  type RouterOptions,
} from "../../src";
import { type AdapterHarness, documentErrors, jsonBody } from "../helpers";

interface User {
  id: string;
  role: "admin" | "member";
}

const tokens: Record<string, User> = {
  "tok-ada": { id: "ada", role: "admin" },
  "tok-bob": { id: "bob", role: "member" },
};

const bearer = bearerAuth({
  schemeName: "bearer",
  bearerFormat: "opaque",
  verify: async (token) => {
    if (token === "tok-suspended") throw new ForbiddenException("Account suspended");
    return tokens[token] ?? null;
  },
});

const basic = basicAuth({
  realm: "admin area",
  verify: ({ username, password }) => (username === "ada" && password === "pa:ss wörd" ? { username } : null),
});

const headerKey = apiKeyAuth({
  schemeName: "headerKey",
  in: "header",
  name: "X-API-Key",
  verify: (key) => (key === "k-1" ? { client: "one" } : null),
});
const queryKey = apiKeyAuth({
  schemeName: "queryKey",
  in: "query",
  name: "api_key",
  verify: (key) => (key === "q-1" ? { client: "query" } : null),
});
const cookieKey = apiKeyAuth({
  schemeName: "cookieKey",
  in: "cookie",
  name: "session",
  verify: (key) => (key === "s 1" ? { client: "cookie" } : null),
});

let bodiesParsed = 0;

class Me extends OpenAPIRoute {
  schema = {
    auth: bearer,
    request: {
      body: contentJson(
        z.object({
          note: z.string().refine(() => {
            bodiesParsed++;
            return true;
          }),
        }),
      ),
    },
    responses: { "200": { description: "Who you are", ...contentJson(z.object({ id: z.string() })) } },
  };

  async handle() {
    const user = await this.getPrincipal();
    const { body } = await this.getValidatedData();
    return { id: user.id, role: user.role, note: body.note };
  }
}

/** An endpoint enforcing `auth`, echoing the principal; the kind of auth is chosen per class below. */
function echo(auth: NonNullable<OpenAPIRoute["schema"]["auth"]>, query = false) {
  return class extends OpenAPIRoute {
    schema = {
      auth,
      request: query ? { query: z.object({ page: z.number().int().default(1) }) } : {},
      responses: {},
    };
    async handle() {
      return { principal: await this.getPrincipal() };
    }
  };
}

class Whoever extends OpenAPIRoute {
  schema = { responses: {} };
  async handle() {
    return { principal: (await this.getPrincipal()) ?? null };
  }
}

class Public extends OpenAPIRoute {
  schema = { security: [], responses: {} };
  async handle() {
    return { principal: (await this.getPrincipal()) ?? null };
  }
}

class Scoped extends OpenAPIRoute {
  schema = { security: [{ bearer: ["admin"] }], responses: {} };
  async handle() {
    return { principal: await this.getPrincipal() };
  }
}

async function json(response: Response): Promise<any> {
  return JSON.parse(await response.text());
}

const auth = (value: string) => ({ headers: { authorization: value } });
const basicHeader = (user: string, password: string) =>
  `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${user}:${password}`)))}`;

/** Authentication helpers and router-level security, the same on every adapter. */
export function runSecuritySuite(harness: AdapterHarness): void {
  describe(`${harness.name}: bearer authentication`, () => {
    const { router, request } = harness.make();
    router.post("/me", Me);
    const send = (init: RequestInit = {}, body: unknown = { note: "hi" }) => request("/me", jsonBody(body, init));

    it("answers a request without credentials with 401 and a Bearer challenge", async () => {
      const response = await send();
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
      expect(await json(response)).toEqual({
        success: false,
        errors: [{ code: 7003, message: "Missing credentials: send a bearer token in the Authorization header" }],
        result: {},
      });
    });

    it("answers a malformed Authorization header with 401 invalid_request", async () => {
      for (const header of ["Bearer", "Bearer two words", "Bearer t@ken"]) {
        const response = await send(auth(header));
        expect(response.status, header).toBe(401);
        expect(response.headers.get("www-authenticate"), header).toBe('Bearer error="invalid_request"');
      }
    });

    it("treats credentials of another scheme as missing", async () => {
      const response = await send(auth("Basic YWRhOnB3"));
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe("Bearer");
    });

    it("answers an unknown token with 401 invalid_token", async () => {
      const response = await send(auth("Bearer tok-eve"));
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toBe('Bearer error="invalid_token"');
      expect((await json(response)).errors[0].message).toBe("Invalid bearer token");
    });

    it("answers 403 when the verifier denies a known caller", async () => {
      const response = await send(auth("Bearer tok-suspended"));
      expect(response.status).toBe(403);
      expect((await json(response)).errors[0]).toEqual({ code: 7004, message: "Account suspended" });
    });

    it("hands the verified principal to handle()", async () => {
      const response = await send(auth("bearer tok-ada"));
      expect(response.status).toBe(200);
      expect(await json(response)).toEqual({ id: "ada", role: "admin", note: "hi" });
    });

    it("authenticates before reading the body", async () => {
      const before = bodiesParsed;
      const malformed = await request("/me", jsonBody('{"note": ', auth("Bearer tok-eve")));
      expect(malformed.status).toBe(401);
      expect((await send(auth("Bearer nope"))).status).toBe(401);
      expect(bodiesParsed).toBe(before);
      expect((await send(auth("Bearer tok-bob"))).status).toBe(200);
      expect(bodiesParsed).toBe(before + 1);
    });
  });

  describe(`${harness.name}: basic and API-key authentication`, () => {
    const { router, request } = harness.make();
    router.get("/basic", echo(basic));
    router.get("/header", echo(headerKey));
    router.get("/query", echo(queryKey, true));
    router.get("/cookie", echo(cookieKey));
    router.get("/either", echo([bearer, headerKey]));

    it("checks Basic credentials, password colons and UTF-8 included", async () => {
      const missing = await request("/basic");
      expect(missing.status).toBe(401);
      expect(missing.headers.get("www-authenticate")).toBe('Basic realm="admin area", charset="UTF-8"');
      for (const header of ["Basic !!!", `Basic ${btoa("no-colon")}`, "Basic"]) {
        const malformed = await request("/basic", auth(header));
        expect(malformed.status, header).toBe(401);
        expect((await json(malformed)).errors[0].message, header).toMatch(/^Malformed Authorization header/);
      }
      const wrong = await request("/basic", auth(basicHeader("ada", "guess")));
      expect(wrong.status).toBe(401);
      expect((await json(wrong)).errors[0].message).toBe("Invalid user name or password");
      const right = await request("/basic", auth(basicHeader("ada", "pa:ss wörd")));
      expect(await json(right)).toEqual({ principal: { username: "ada" } });
    });

    const keys: Array<[string, string, (key: string) => RequestInit | string, string, unknown]> = [
      ["header", "/header", (key) => ({ headers: { "x-api-key": key } }), "k-1", { client: "one" }],
      ["query", "/query", (key) => `?api_key=${encodeURIComponent(key)}`, "q-1", { client: "query" }],
      [
        "cookie",
        "/cookie",
        (key) => ({ headers: { cookie: `other=1; session=${encodeURIComponent(key)}` } }),
        "s 1",
        { client: "cookie" },
      ],
    ];
    for (const [where, path, send, valid, principal] of keys) {
      it(`checks an API key in a ${where}: missing, wrong, valid`, async () => {
        const call = (key: string) => {
          const init = send(key);
          return typeof init === "string" ? request(path + init) : request(path, init);
        };
        const missing = await request(path);
        expect(missing.status).toBe(401);
        const name = { header: "X-API-Key", query: "api_key", cookie: "session" }[where];
        expect(missing.headers.get("www-authenticate")).toBe(`ApiKey in="${where}", name="${name}"`);
        // An empty key is no key: the client is told what to send, as when it sent none.
        const empty = await call("");
        expect(empty.status).toBe(401);
        expect((await json(empty)).errors[0].message).toBe((await json(await request(path))).errors[0].message);
        const wrong = await call("nope");
        expect(wrong.status).toBe(401);
        expect((await json(wrong)).errors[0].message).toBe("Invalid API key");
        const right = await call(valid);
        expect(right.status).toBe(200);
        expect(await json(right)).toEqual({ principal });
      });
    }

    it("does not count a query-string API key as an unknown query parameter", async () => {
      expect((await request("/query?api_key=q-1&page=2")).status).toBe(200);
      expect((await request("/query?api_key=q-1&other=1")).status).toBe(400);
    });

    it("exempts only a query API key's own name from the unknown-parameter check, not a header key's or a cookie's", async () => {
      const { router: own, request: call } = harness.make();
      own.get("/mixed", echo([queryKey, headerKey, cookieKey], true));
      expect((await call("/mixed?api_key=q-1&page=2")).status).toBe(200);
      for (const name of ["X-API-Key", "session", "x-api-key"]) {
        const response = await call(`/mixed?api_key=q-1&${name}=k-1`);
        expect(response.status, name).toBe(400);
      }
    });

    it("hands verify the request and the router's arguments", async () => {
      const seen: unknown[] = [];
      const tenantToken = bearerAuth({
        verify: (token, ctx) => {
          seen.push(ctx.args.length > 0);
          return ctx.request.headers.get("x-tenant") === "acme" && token === "t-1" ? { tenant: "acme" } : null;
        },
      });
      const { router: own, request: call } = harness.make();
      own.get("/tenant", echo(tenantToken));
      expect(
        await json(await call("/tenant", { headers: { authorization: "Bearer t-1", "x-tenant": "acme" } })),
      ).toEqual({
        principal: { tenant: "acme" },
      });
      expect((await call("/tenant", { headers: { authorization: "Bearer t-1", "x-tenant": "other" } })).status).toBe(
        401,
      );
      expect(seen).toEqual([true, true]);
    });

    it("accepts any of several schemes and challenges with all of them", async () => {
      expect(await json(await request("/either", auth("Bearer tok-bob")))).toEqual({ principal: tokens["tok-bob"] });
      expect(await json(await request("/either", { headers: { "x-api-key": "k-1" } }))).toEqual({
        principal: { client: "one" },
      });
      const missing = await request("/either");
      expect(missing.status).toBe(401);
      expect(missing.headers.get("www-authenticate")).toBe('Bearer, ApiKey in="header", name="X-API-Key"');
      expect((await json(missing)).errors[0].message).toBe(
        "Missing credentials: send a bearer token in the Authorization header, or an API key in the X-API-Key header",
      );
    });

    it("keeps WWW-Authenticate on problem-details responses", async () => {
      const problem = harness.make({ errorFormat: "problem" });
      problem.router.get("/basic", echo(basic));
      const response = await problem.request("/basic");
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
      expect(response.headers.get("www-authenticate")).toContain("Basic");
    });
  });

  describe(`${harness.name}: what each scheme's challenge, header parsing and document entry say`, () => {
    const quoted = bearerAuth({
      schemeName: "realmBearer",
      realm: 'the "inner" \\ realm',
      verify: (token) => (token === "tok==" ? { token } : null),
    });
    const plainBasic = basicAuth({
      description: "Staff accounts",
      verify: ({ username, password }) => ({ username, password }),
    });
    const realmKey = apiKeyAuth({
      in: "header",
      name: "X-Key",
      realm: "keys",
      description: "Issued per client",
      verify: (key) => (key === "k" ? { key } : null),
    });
    const queryOnly = apiKeyAuth({ in: "query", name: "api_key", verify: () => null });
    const cookieOnly = apiKeyAuth({ in: "cookie", name: "sid", verify: () => null });
    const jwt = bearerAuth({ bearerFormat: "JWT", description: "A session token", verify: () => null });
    const { router, request } = harness.make();
    router.get("/quoted", echo(quoted));
    router.get("/basic", echo(plainBasic));
    router.get("/key", echo(realmKey));
    router.get("/query", echo(queryOnly));
    router.get("/cookie", echo(cookieOnly));
    router.get("/jwt", echo(jwt));

    it("quotes a realm in every challenge, missing, malformed and invalid credentials alike", async () => {
      const realm = 'realm="the \\"inner\\" \\\\ realm"';
      expect((await request("/quoted")).headers.get("www-authenticate")).toBe(`Bearer ${realm}`);
      const malformed = await request("/quoted", auth("Bearer =tok"));
      expect(malformed.headers.get("www-authenticate")).toBe(`Bearer ${realm}, error="invalid_request"`);
      const invalid = await request("/quoted", auth("Bearer tok="));
      expect(invalid.headers.get("www-authenticate")).toBe(`Bearer ${realm}, error="invalid_token"`);
      expect((await request("/basic")).headers.get("www-authenticate")).toBe('Basic realm="api", charset="UTF-8"');
      expect((await request("/key")).headers.get("www-authenticate")).toBe(
        'ApiKey realm="keys", in="header", name="X-Key"',
      );
    });

    it("reads the Authorization header's scheme in any case, the credentials after any white space", async () => {
      // White space as JavaScript knows it, a no-break space around the header included.
      for (const header of [
        "Bearer tok==",
        "bEaReR tok==",
        "  Bearer   tok==  ",
        "Bearer\ttok==",
        "\u00a0Bearer tok==\u00a0",
      ]) {
        const response = await request("/quoted", auth(header));
        expect(response.status, header).toBe(200);
        expect(await json(response), header).toEqual({ principal: { token: "tok==" } });
      }
      // No space: another scheme's name, so no bearer credentials at all.
      const glued = await request("/quoted", auth("Bearertok=="));
      expect(glued.status).toBe(401);
      expect((await json(glued)).errors[0].message).toBe(
        "Missing credentials: send a bearer token in the Authorization header",
      );
      for (const header of ["Bearer a=b", "Bearer tok==x", "Bearer to,k"]) {
        const response = await request("/quoted", auth(header));
        expect((await json(response)).errors[0].message, header).toBe(
          'Malformed Authorization header: expected "Bearer <token>"',
        );
      }
    });

    it("hands verify a Basic user name and password as sent, an empty password and colons after the first included", async () => {
      const cases: [string, unknown][] = [
        [basicHeader("ada", ""), { username: "ada", password: "" }],
        [basicHeader("", "pw"), { username: "", password: "pw" }],
        [basicHeader("ada", "a:b:c"), { username: "ada", password: "a:b:c" }],
        [basicHeader("zoë", "naïve"), { username: "zoë", password: "naïve" }],
      ];
      for (const [header, principal] of cases) {
        expect(await json(await request("/basic", auth(header))), header).toEqual({ principal });
      }
      // Not base64, or base64 of bytes that are not UTF-8: malformed, and verify never sees them.
      for (const header of [
        "Basic YWRh=OnB3",
        "Basic YW Rh",
        // "ada:pw" with a space inside, which atob() would skip: still not one base64 token.
        "Basic YWRh OnB3",
        `Basic ${btoa("\xff\xfe:pw")}`,
        "Basic ====",
        "Basic YWRhOnB3=",
      ]) {
        const response = await request("/basic", auth(header));
        expect(response.status, header).toBe(401);
        expect((await json(response)).errors[0].message, header).toBe(
          'Malformed Authorization header: expected "Basic <base64 of user:password>"',
        );
      }
    });

    it("says where each credential goes when none was sent", async () => {
      const missing = async (path: string) => (await json(await request(path))).errors[0].message;
      expect(await missing("/basic")).toBe(
        "Missing credentials: send a user name and password in the Authorization header (Basic)",
      );
      expect(await missing("/key")).toBe("Missing credentials: send an API key in the X-Key header");
      expect(await missing("/query")).toBe("Missing credentials: send an API key in the api_key query parameter");
      expect(await missing("/cookie")).toBe("Missing credentials: send an API key in the sid cookie");
    });

    it("documents each scheme under its default name, with its format and description, and no field it lacks", () => {
      // Strictly: a scheme without a format or a description has no such key, not one set to undefined.
      expect(router.schema.components.securitySchemes).toStrictEqual({
        realmBearer: { type: "http", scheme: "bearer" },
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A session token" },
        basicAuth: { type: "http", scheme: "basic", description: "Staff accounts" },
        apiKeyAuth: { type: "apiKey", in: "header", name: "X-Key", description: "Issued per client" },
      });
    });
  });

  describe(`${harness.name}: a verify function that answers undefined, and each scheme's caller()`, () => {
    // A lookup that misses answers undefined (Map.get), not null: it refuses the credentials all the same.
    const known = new Map<string, { who: string }>([
      ["tok-1", { who: "token" }],
      ["key-1", { who: "key" }],
    ]);
    const lookupBearer = bearerAuth({ verify: (token) => known.get(token) });
    const lookupBasic = basicAuth({ verify: ({ password }) => known.get(password) });
    const lookupKey = apiKeyAuth({ in: "header", name: "X-Key", verify: (key) => known.get(key) });
    const { router, request } = harness.make();
    router.get("/bearer", echo(lookupBearer));
    router.get("/basic", echo(lookupBasic));
    router.get("/key", echo(lookupKey));

    it("refuses credentials verify finds nothing for with 401, and lets in the ones it knows", async () => {
      const cases: Array<[string, RequestInit, RequestInit, string]> = [
        ["/bearer", auth("Bearer tok-2"), auth("Bearer tok-1"), "Invalid bearer token"],
        ["/basic", auth(basicHeader("u", "tok-2")), auth(basicHeader("u", "tok-1")), "Invalid user name or password"],
        ["/key", { headers: { "x-key": "key-2" } }, { headers: { "x-key": "key-1" } }, "Invalid API key"],
      ];
      for (const [path, unknown, valid, message] of cases) {
        const refused = await request(path, unknown);
        expect(refused.status, path).toBe(401);
        expect((await json(refused)).errors[0].message, path).toBe(message);
        expect((await request(path, valid)).status, path).toBe(200);
      }
    });

    it("documents schemes given no format or description with no such field", () => {
      expect(router.schema.components.securitySchemes).toStrictEqual({
        bearerAuth: { type: "http", scheme: "bearer" },
        basicAuth: { type: "http", scheme: "basic" },
        apiKeyAuth: { type: "apiKey", in: "header", name: "X-Key" },
      });
    });

    it("names the credentials a request carries through caller(), and nothing for none, malformed or empty ones", () => {
      const at = (headers: Record<string, string>) => new Request("http://api.test/", { headers });
      expect(lookupBearer.caller!(at({ authorization: "Bearer tok-1" }))).toBe("tok-1");
      expect(lookupBasic.caller!(at({ authorization: basicHeader("api", "k:1") }))).toBe("api:k:1");
      expect(lookupKey.caller!(at({ "x-key": "key-1" }))).toBe("key-1");
      const none = [
        [lookupBearer, at({})],
        [lookupBearer, at({ authorization: "Basic YWRhOnB3" })],
        [lookupBearer, at({ authorization: "Bearer" })],
        [lookupBasic, at({})],
        [lookupBasic, at({ authorization: "Basic !!!" })],
        [lookupBasic, at({ authorization: "Basic YWRh" })],
        [lookupKey, at({})],
        [lookupKey, at({ "x-key": "" })],
      ] as const;
      for (const [scheme, carrying] of none) expect(scheme.caller!(carrying)).toBeUndefined();
    });
  });

  describe(`${harness.name}: router-level security`, () => {
    function app(options: RouterOptions = {}) {
      const made = harness.make({ schema: { info: { title: "Secured", version: "1.0.0" } }, ...options });
      const admin = harness.nested({ auth: bearer });
      admin.get("/stats", Whoever);
      admin.get("/health", Public);
      admin.get("/scoped", Scoped);
      admin.get("/key", echo(headerKey));
      made.router.route("/admin", admin);
      made.router.get("/open", Whoever);
      return made;
    }

    it("enforces a nested router's auth on its routes, with opt-outs and overrides", async () => {
      const { request } = app();
      expect((await request("/admin/stats")).status).toBe(401);
      expect(await json(await request("/admin/stats", auth("Bearer tok-ada")))).toEqual({
        principal: tokens["tok-ada"],
      });
      // security: [] opts out; a route's own auth replaces the router's; other security keeps it.
      expect(await json(await request("/admin/health"))).toEqual({ principal: null });
      expect((await request("/admin/key", auth("Bearer tok-ada"))).status).toBe(401);
      expect((await request("/admin/key", { headers: { "x-api-key": "k-1" } })).status).toBe(200);
      expect((await request("/admin/scoped")).status).toBe(401);
      expect((await request("/admin/scoped", auth("Bearer tok-bob"))).status).toBe(200);
      expect(await json(await request("/open"))).toEqual({ principal: null });
    });

    it("shows each route's effective security and the schemes in the document", async () => {
      for (const version of ["3", "3.1"] as const) {
        const { request } = app({ openapiVersion: version });
        const doc = await json(await request("/openapi.json"));
        expect(await documentErrors(doc)).toBeNull();
        expect(doc.paths["/admin/stats"].get.security).toEqual([{ bearer: [] }]);
        expect(doc.paths["/admin/health"].get.security).toEqual([]);
        expect(doc.paths["/admin/scoped"].get.security).toEqual([{ bearer: ["admin"] }]);
        expect(doc.paths["/admin/key"].get.security).toEqual([{ headerKey: [] }]);
        // The document has schemes, so a route that needs no credentials says so.
        expect(doc.paths["/open"].get.security).toEqual([]);
        expect(doc.components.securitySchemes).toEqual({
          bearer: { type: "http", scheme: "bearer", bearerFormat: "opaque" },
          headerKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        });
        const unauthorized = doc.paths["/admin/stats"].get.responses["401"];
        expect(unauthorized.headers["WWW-Authenticate"].schema).toEqual({ type: "string" });
        expect(unauthorized.headers["WWW-Authenticate"].description).toContain("Bearer");
        expect(doc.paths["/admin/stats"].get.responses["403"]).toBeDefined();
        expect(doc.paths["/admin/stats"].get.responses["200"]).toBeDefined();
        expect(doc.paths["/admin/health"].get.responses).not.toHaveProperty("401");
      }
    });

    it("passes a router's auth down to routers mounted under it, the closest router winning", async () => {
      const { router, request } = harness.make({ auth: headerKey });
      const middle = harness.nested();
      const inner = harness.nested({ auth: basic });
      inner.get("/basic", Whoever);
      middle.get("/plain", Whoever);
      middle.route("/inner", inner);
      router.route("/middle", middle);
      router.get("/top", Whoever);

      expect((await request("/top")).status).toBe(401);
      expect((await request("/top", { headers: { "x-api-key": "k-1" } })).status).toBe(200);
      expect((await request("/middle/plain")).status).toBe(401);
      expect(await json(await request("/middle/plain", { headers: { "x-api-key": "k-1" } }))).toEqual({
        principal: { client: "one" },
      });
      expect((await request("/middle/inner/basic", { headers: { "x-api-key": "k-1" } })).status).toBe(401);
      expect((await request("/middle/inner/basic", auth(basicHeader("ada", "pa:ss wörd")))).status).toBe(200);

      const doc = router.schema;
      expect(doc.paths["/middle/plain"]!.get).toMatchObject({ security: [{ headerKey: [] }] });
      expect(doc.paths["/middle/inner/basic"]!.get).toMatchObject({ security: [{ basicAuth: [] }] });
      expect(await documentErrors(doc)).toBeNull();
    });

    it("documents a router's security option without enforcing anything", async () => {
      const { router, request } = harness.make({
        schema: { components: { securitySchemes: { gateway: { type: "http", scheme: "bearer" } } } },
      });
      const behindGateway = harness.nested({ security: [{ gateway: [] }] });
      behindGateway.get("/thing", Whoever);
      router.route("/api", behindGateway);
      expect((await request("/api/thing")).status).toBe(200);
      expect(router.schema.paths["/api/thing"]!.get).toMatchObject({ security: [{ gateway: [] }] });
    });

    it("refuses two different schemes under one name: compile() names the route, the document leaves it out", () => {
      const { router } = harness.make();
      router.get("/a", echo(bearerAuth({ schemeName: "token", verify: () => ({}) })));
      router.get("/b", echo(apiKeyAuth({ schemeName: "token", in: "header", name: "X-Token", verify: () => ({}) })));
      expect(() => router.compile()).toThrow(/GET \/b: Two different security schemes are named "token"/);
      const error = vi.spyOn(console, "error").mockImplementation(() => {});
      try {
        expect(Object.keys(router.schema.paths)).toEqual(["/a"]);
        expect(router.schema.components.securitySchemes.token).toEqual({ type: "http", scheme: "bearer" });
      } finally {
        error.mockRestore();
      }
    });
  });
}
