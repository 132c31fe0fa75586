import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { apiKeyAuth, basicAuth, bearerAuth, contentJson, OpenAPIRoute } from "../../src";
import { closeHttpHarnesses, httpHarnesses } from "../helpers";

// A JSON body sent as text/plain (what fetch() labels a string body): read as JSON as chanfana reads it,
// except where a form posted from another site could carry the user's credentials with it.
afterAll(closeHttpHarnesses);

const sessionCookie = apiKeyAuth({
  schemeName: "sessionCookie",
  in: "cookie",
  name: "sid",
  verify: (key) => (key === "s-1" ? { by: "cookie" } : null),
});
const headerKey = apiKeyAuth({
  schemeName: "headerKey",
  in: "header",
  name: "X-API-Key",
  verify: (key) => (key === "k-1" ? { by: "header" } : null),
});
const bearer = bearerAuth({ verify: (token) => (token === "t-1" ? { by: "bearer" } : null) });
const basic = basicAuth({ verify: ({ username }) => (username === "ada" ? { by: "basic" } : null) });

// What a browser would attach to a form posted from another site (cookies, cached Basic credentials).
const ambient = { cookie: "sid=s-1", authorization: `Basic ${btoa("ada:pw")}` };
// What only a script of the app's own origin sends.
const scripted = { "x-api-key": "k-1", authorization: "Bearer t-1" };

const noteBody = contentJson(z.object({ title: z.string() }));

/** Answers the body it validated. */
class SaveNote extends OpenAPIRoute {
  schema = { request: { body: noteBody }, responses: {} };
  async handle() {
    const { body } = await this.getValidatedData<typeof this.schema>();
    return { saved: body };
  }
}

/** SaveNote under other security: its own `auth` or `security`, or cookies it reads. */
function secured(own: Record<string, unknown>): typeof SaveNote {
  return class extends SaveNote {
    override schema = { request: { body: noteBody }, responses: {}, ...own } as SaveNote["schema"];
  };
}

/** Declares text/plain itself (left unread for handle()), besides JSON. */
class SaveText extends OpenAPIRoute {
  schema = {
    request: {
      body: { content: { "application/json": { schema: z.object({}) }, "text/plain": { schema: z.string() } } },
    },
    responses: {},
  };
  async handle() {
    const { body } = await this.getValidatedData<typeof this.schema>();
    return { parsed: body ?? null };
  }
}

const post = (body: string, contentType?: string, headers: Record<string, string> = ambient): RequestInit => ({
  method: "POST",
  headers: contentType === undefined ? headers : { ...headers, "content-type": contentType },
  body,
});
const note = JSON.stringify({ title: "milk" });

async function errorsOf(response: Response): Promise<string[]> {
  return ((await response.json()) as { errors: Array<{ message: string }> }).errors.map((error) => error.message);
}

for (const harness of httpHarnesses) {
  describe(`a JSON body sent as text/plain, over HTTP: ${harness.name}`, () => {
    it("is read as JSON whatever the case and parameters of text/plain, as chanfana reads it", async () => {
      const { router, request } = harness.make();
      router.post("/notes", SaveNote);
      // What a browser's (and Node's) fetch sends for `body: JSON.stringify(x)` with no headers.
      expect(new Request("http://x/", { method: "POST", body: note }).headers.get("content-type")).toBe(
        "text/plain;charset=UTF-8",
      );
      for (const type of [undefined, "text/plain", "TEXT/Plain; Charset=UTF-8", "text/plain; format=flowed"]) {
        const response = await request("/notes", post(note, type, {}));
        expect(response.status, type).toBe(200);
        expect(await response.json(), type).toEqual({ saved: { title: "milk" } });
      }
    });

    it("answers 400 when that text is not JSON, and validates it as any JSON body", async () => {
      const { router, request } = harness.make();
      router.post("/notes", SaveNote);
      const notJson = await request("/notes", post("title=milk", "text/plain"));
      expect(notJson.status).toBe(400);
      expect((await errorsOf(notJson))[0]).toMatch(/^Request body is not valid JSON/);
      const invalid = await request("/notes", post(JSON.stringify({ title: 7 }), "text/plain"));
      expect(invalid.status).toBe(400);
      expect(((await invalid.json()) as { errors: Array<{ path: string[] }> }).errors[0]!.path).toEqual([
        "body",
        "title",
      ]);
      const empty = await request("/notes", post("", "text/plain"));
      expect(empty.status).toBe(400);
      expect(await errorsOf(empty)).toEqual(["Request body is required (application/json)"]);
    });

    it("keeps the 415 for every other type the route does not declare", async () => {
      const { router, request } = harness.make();
      router.post("/notes", SaveNote);
      for (const type of [
        "application/xml",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "text/html",
        "text/plainish",
      ]) {
        const response = await request("/notes", post(note, type));
        expect(response.status, type).toBe(415);
        expect(await errorsOf(response)).toEqual([
          `Unsupported Content-Type "${type}": this endpoint accepts application/json`,
        ]);
      }
    });

    it("leaves text/plain to a route that declares it", async () => {
      const { router, request } = harness.make();
      router.post("/texts", SaveText);
      const response = await request("/texts", post("not JSON at all", "text/plain"));
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ parsed: null });
    });

    it("is refused with a 415 saying why where a browser would send credentials along: cookies, Basic, schemes it cannot see", async () => {
      const { router, request } = harness.make({
        schema: { components: { securitySchemes: { gatewaySession: { type: "apiKey", in: "cookie", name: "gw" } } } },
      });
      router.registry.registerComponent("securitySchemes", "session", { type: "apiKey", in: "cookie", name: "sid" });
      const routes = {
        "/auth-cookie": [secured({ auth: sessionCookie }), 'its security reads the "sid" cookie'],
        "/named-in-registry": [secured({ security: [{ session: [] }] }), 'its security reads the "sid" cookie'],
        "/named-in-schema": [secured({ security: [{ gatewaySession: [] }] }), 'its security reads the "gw" cookie'],
        "/cookie-or-header": [secured({ auth: [headerKey, sessionCookie] }), 'its security reads the "sid" cookie'],
        "/basic": [secured({ auth: basic }), "its security accepts HTTP Basic credentials"],
        "/reads-cookies": [
          secured({ request: { body: noteBody, cookies: z.object({ theme: z.string().optional() }) } }),
          "it reads cookies",
        ],
        "/unknown-scheme": [
          secured({ security: [{ mystery: [] }] }),
          'its security names "mystery", a scheme it declares nowhere specroute can see',
        ],
      } as const;
      for (const [path, [Endpoint]] of Object.entries(routes)) router.post(path, Endpoint);
      for (const [path, [, because]] of Object.entries(routes)) {
        const refused = await request(path, post(note, "text/plain;charset=UTF-8"));
        expect(refused.status, path).toBe(415);
        expect(await errorsOf(refused), path).toEqual([
          'Unsupported Content-Type "text/plain;charset=UTF-8": this endpoint accepts application/json; ' +
            `it does not read text/plain as JSON, because ${because} and a form on another site can post ` +
            "text/plain with the user's credentials",
        ]);
        // Without a Content-Type (a Blob or bytes, as a page on another site can send them): refused too.
        const unlabelled = await request(path, {
          method: "POST",
          headers: ambient,
          body: new TextEncoder().encode(note),
        });
        expect(unlabelled.status, path).toBe(415);
        expect(await errorsOf(unlabelled), path).toEqual([
          "Missing Content-Type: this endpoint accepts application/json; it does not read a body without one as JSON, " +
            `because ${because} and a page on another site can send one with the user's credentials`,
        ]);
        // The same body labelled as JSON is read.
        const sent = await request(path, post(note, "application/json"));
        expect(sent.status, path).toBe(200);
        expect(await sent.json(), path).toEqual({ saved: { title: "milk" } });
      }
    });

    it("names each scheme a browser sends by itself, from the route's requirements or the router's document-wide ones, and reads JSON where none does", async () => {
      const securitySchemes = {
        digest: { type: "http", scheme: "Digest" },
        negotiate: { type: "http", scheme: "negotiate" },
        ntlm: { type: "http", scheme: "NTLM" },
        shouting: { type: "http", scheme: "BASIC" },
        tls: { type: "mutualTLS" },
        elsewhere: { $ref: "#/components/securitySchemes/digest" },
        queryKey: { type: "apiKey", in: "query", name: "key" },
        headerKey: { type: "apiKey", in: "header", name: "X-Key" },
        oauth: { type: "oauth2", flows: { clientCredentials: { tokenUrl: "https://id.example/token", scopes: {} } } },
        oidc: { type: "openIdConnect", openIdConnectUrl: "https://id.example/.well-known/openid-configuration" },
        token: { type: "http", scheme: "bearer" },
      };
      const { router, request } = harness.make({
        schema: { security: [{ ntlm: [] }], components: { securitySchemes } },
      });
      const refusedBecause = {
        "/digest": [secured({ security: [{ digest: [] }] }), "its security accepts HTTP Digest credentials"],
        "/negotiate": [secured({ security: [{ negotiate: [] }] }), "its security accepts HTTP Negotiate credentials"],
        "/shouting": [secured({ security: [{ shouting: [] }] }), "its security accepts HTTP Basic credentials"],
        "/tls": [secured({ security: [{ queryKey: [], tls: [] }] }), "its security accepts a TLS client certificate"],
        "/ref": [secured({ security: [{ elsewhere: [] }] }), "its security names a scheme specroute cannot read"],
        "/header-then-ntlm": [
          secured({ security: [{ headerKey: [] }, { ntlm: [] }] }),
          "its security accepts HTTP NTLM credentials",
        ],
        "/document-wide": [SaveNote, "its security accepts HTTP NTLM credentials"],
      } as const;
      for (const [path, [Endpoint]] of Object.entries(refusedBecause)) router.post(path, Endpoint);
      const read = {
        "/query-key": secured({ security: [{ queryKey: [] }] }),
        "/oauth": secured({ security: [{ oauth: [] }, { oidc: [] }] }),
        "/bearer": secured({ security: [{ token: [], headerKey: [] }] }),
        "/public": secured({ security: [] }),
      };
      for (const [path, Endpoint] of Object.entries(read)) router.post(path, Endpoint);
      for (const [path, [, because]] of Object.entries(refusedBecause)) {
        const refused = await request(path, post(note, "text/plain", {}));
        expect(refused.status, path).toBe(415);
        expect(await errorsOf(refused), path).toEqual([
          'Unsupported Content-Type "text/plain": this endpoint accepts application/json; it does not read ' +
            `text/plain as JSON, because ${because} and a form on another site can post text/plain with the user's credentials`,
        ]);
      }
      for (const path of Object.keys(read)) {
        const response = await request(path, post(note, "text/plain", {}));
        expect(response.status, path).toBe(200);
        expect(await response.json(), path).toEqual({ saved: { title: "milk" } });
      }
    });

    it("judges the scheme a route enforces, whatever its requirements name, and a name found nowhere, whatever it enforces", async () => {
      const securitySchemes = {
        strayIn: { type: "http", scheme: "basic", in: "header" },
        strayTls: { type: "mutualTLS", in: "query" },
        bodyKey: { type: "apiKey", in: "body", name: "k" },
      };
      // A document with components but no securitySchemes of its own, mounted above the one that has them.
      const { router, request } = harness.make({ schema: { components: { schemas: {} } } });
      const nested = harness.nested();
      nested.registry.registerComponent("securitySchemes", "strayIn", securitySchemes.strayIn);
      nested.registry.registerComponent("securitySchemes", "strayTls", securitySchemes.strayTls);
      nested.registry.registerComponent("securitySchemes", "bodyKey", securitySchemes.bodyKey);
      const refusedBecause = {
        "/cookie-documented-as-header": [
          secured({ auth: sessionCookie, security: [{ headerKey: [] }] }),
          'its security reads the "sid" cookie',
        ],
        "/header-enforced-unknown-named": [
          secured({ auth: headerKey, security: [{ mystery: [] }] }),
          'its security names "mystery", a scheme it declares nowhere specroute can see',
        ],
        "/stray-in": [secured({ security: [{ strayIn: [] }] }), "its security accepts HTTP Basic credentials"],
        "/stray-tls": [secured({ security: [{ strayTls: [] }] }), "its security accepts a TLS client certificate"],
        "/body-key": [secured({ security: [{ bodyKey: [] }] }), "its security names a scheme specroute cannot read"],
      } as const;
      for (const [path, [Endpoint]] of Object.entries(refusedBecause)) nested.post(path, Endpoint);
      router.route("/api", nested);
      for (const [path, [, because]] of Object.entries(refusedBecause)) {
        const refused = await request(`/api${path}`, post(note, "text/plain", { ...scripted, cookie: "sid=s-1" }));
        expect(refused.status, path).toBe(415);
        expect(await errorsOf(refused), path).toEqual([
          'Unsupported Content-Type "text/plain": this endpoint accepts application/json; it does not read ' +
            `text/plain as JSON, because ${because} and a form on another site can post text/plain with the user's credentials`,
        ]);
      }
    });

    it("is read where the security travels only as a script sends it: a header key, a bearer token, a public route", async () => {
      const { router, request } = harness.make({
        auth: sessionCookie,
        schema: { components: { securitySchemes: { gateway: { type: "apiKey", in: "header", name: "X-Gateway" } } } },
      });
      router.post("/header", secured({ auth: headerKey }));
      router.post("/bearer", secured({ auth: bearer }));
      router.post("/gateway", secured({ security: [{ gateway: [] }], auth: headerKey }));
      router.post("/public", secured({ security: [] }));
      router.post("/router-auth", SaveNote);
      for (const path of ["/header", "/bearer", "/gateway", "/public"]) {
        const response = await request(path, post(note, "text/plain", scripted));
        expect(response.status, path).toBe(200);
        expect(await response.json(), path).toEqual({ saved: { title: "milk" } });
        // A body without a Content-Type is read as the declared JSON there, as chanfana reads it.
        const unlabelled = await request(path, {
          method: "POST",
          headers: scripted,
          body: new TextEncoder().encode(note),
        });
        expect(unlabelled.status, path).toBe(200);
        expect(await unlabelled.json(), path).toEqual({ saved: { title: "milk" } });
      }
      // The router's own auth reads a cookie: its routes without their own security refuse.
      const refused = await request("/router-auth", post(note, "text/plain"));
      expect(refused.status).toBe(415);
      expect((await errorsOf(refused))[0]).toContain('because its security reads the "sid" cookie');
    });

    it("is decided per mount: refused under a router whose auth reads a cookie, read where the same router is mounted without", async () => {
      const { router, request } = harness.make();
      const shared = harness.nested();
      shared.post("/notes", SaveNote);
      shared.post("/edge", secured({ security: [{ edge: [] }] }));
      const members = harness.nested({ auth: sessionCookie });
      members.route("/shared", shared);
      router.route("/members", members);
      router.route("/open", shared);
      // Named by the nested route, declared by the parent after mounting: the mount resolves it.
      router.registry.registerComponent("securitySchemes", "edge", { type: "apiKey", in: "header", name: "X-Edge" });
      const edge = await request("/open/edge", post(note, "text/plain", {}));
      expect(edge.status).toBe(200);

      const open = await request("/open/notes", post(note, "text/plain"));
      expect(open.status).toBe(200);
      expect(await open.json()).toEqual({ saved: { title: "milk" } });
      const members415 = await request("/members/shared/notes", post(note, "text/plain"));
      expect(members415.status).toBe(415);
      expect((await errorsOf(members415))[0]).toContain('because its security reads the "sid" cookie');
      const asJson = await request("/members/shared/notes", post(note, "application/json"));
      expect(asJson.status).toBe(200);
    });

    it("is refused everywhere with readTextPlainAsJson: false, on routes mounted under such a router too", async () => {
      const { router, request } = harness.make({ readTextPlainAsJson: false });
      router.post("/notes", SaveNote);
      const nested = harness.nested();
      nested.post("/notes", SaveNote);
      router.route("/nested", nested);
      const because = {
        "/notes": "its router sets readTextPlainAsJson: false",
        "/nested/notes": "a router it is mounted under sets readTextPlainAsJson: false",
      };
      for (const [path, why] of Object.entries(because)) {
        const refused = await request(path, post(note, "text/plain"));
        expect(refused.status, path).toBe(415);
        expect(await errorsOf(refused), path).toEqual([
          'Unsupported Content-Type "text/plain": this endpoint accepts application/json; it does not read ' +
            `text/plain as JSON, because ${why} and a form on another site can post text/plain with the user's credentials`,
        ]);
        expect((await request(path, post(note, "application/json"))).status, path).toBe(200);
      }
    });

    it("refuses a body without a Content-Type with readTextPlainAsJson: false, as a page on another site sends one", async () => {
      // The app checks a session cookie in middleware, out of specroute's sight: the option is its fix.
      const { router, request } = harness.make({ readTextPlainAsJson: false });
      router.post("/transfer", SaveNote);
      const nested = harness.nested();
      nested.post("/transfer", SaveNote);
      router.route("/nested", nested);
      // fetch(url, { mode: "no-cors", credentials: "include", body: new Blob([json]) }): no Content-Type, no preflight.
      const crossSite = new Blob([note]);
      expect(new Request("http://x/", { method: "POST", body: crossSite }).headers.get("content-type")).toBeNull();
      const because = {
        "/transfer": "its router sets readTextPlainAsJson: false",
        "/nested/transfer": "a router it is mounted under sets readTextPlainAsJson: false",
      };
      for (const [path, why] of Object.entries(because)) {
        const refused = await request(path, { method: "POST", headers: { cookie: "session=abc" }, body: crossSite });
        expect(refused.status, path).toBe(415);
        expect(await errorsOf(refused), path).toEqual([
          "Missing Content-Type: this endpoint accepts application/json; it does not read a body without one as " +
            `JSON, because ${why} and a page on another site can send one with the user's credentials`,
        ]);
        // Labelled application/json (which needs a CORS preflight from another site), it is read.
        const sent = await request(path, post(note, "application/json", { cookie: "session=abc" }));
        expect(sent.status, path).toBe(200);
        expect(await sent.json(), path).toEqual({ saved: { title: "milk" } });
      }
    });

    it("leaves the document as it was: the body is documented as application/json, with its 415, either way", async () => {
      const documents = [];
      for (const readTextPlainAsJson of [true, false]) {
        const { router, request } = harness.make({ readTextPlainAsJson });
        router.post("/notes", SaveNote);
        documents.push((await (await request("/openapi.json")).json()) as any);
      }
      const operation = documents[0].paths["/notes"].post;
      expect(Object.keys(operation.requestBody.content)).toEqual(["application/json"]);
      expect(operation.responses["415"]).toBeDefined();
      expect(documents[1]).toEqual(documents[0]);
    });
  });
}
