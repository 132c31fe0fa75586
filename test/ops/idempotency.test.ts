import Database from "better-sqlite3";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  type Authenticator,
  basicAuth,
  bearerAuth,
  betterSqlite3Driver,
  contentJson,
  type IdempotencyContext,
  type IdempotencyHold,
  type IdempotencyPolicy,
  type IdempotencyStore,
  idempotency,
  idempotencyTable,
  memoryRateLimitStore,
  OpenAPIRoute,
  rateLimit,
  SqlCreateEndpoint,
  type StoredAnswer,
  sqlIdempotencyStore,
} from "../../src";
import { sqliteDialect } from "../../src/sql";
import { closeHttpHarnesses, documentErrors, eventually, harnesses, httpHarnesses, jsonBody } from "../helpers";
import { storeEngines } from "./engines";

afterAll(closeHttpHarnesses);

const Note = z.object({ id: z.number().int(), title: z.string().min(1) });
const noteMeta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };

function database() {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL)");
  db.exec(idempotencyTable(sqliteDialect));
  const driver = betterSqlite3Driver(db);
  const count = () => (db.prepare("SELECT COUNT(*) AS n FROM notes").get() as { n: number }).n;
  const keys = () => db.prepare("SELECT idem_key, status FROM specroute_idempotency").all();
  return { db, driver, count, keys };
}

function createNote(policy: IdempotencyPolicy) {
  return class CreateNote extends SqlCreateEndpoint {
    _meta = noteMeta;
    schema = { idempotency: policy };
  };
}

/** A write whose handler waits for the test to let it finish (each wait bounded by the test's own timeout). */
function gatedWrite(policy: IdempotencyPolicy) {
  const waiting: (() => void)[] = [];
  const gate = {
    open: () => {
      for (const resolve of waiting.splice(0)) resolve();
    },
    entered: 0,
    runs: 0,
  };
  class Gated extends OpenAPIRoute {
    schema = {
      idempotency: policy,
      request: { body: contentJson(z.object({ n: z.number() })) },
      responses: { "201": { description: "done" } },
    };
    async handle() {
      gate.entered++;
      await new Promise<void>((resolve) => waiting.push(resolve));
      gate.runs++;
      return Response.json({ run: gate.runs }, { status: 201 });
    }
  }
  return { Gated, gate };
}

interface Caller {
  id: string;
  account: string;
}

const tokens = new Map<string, Caller>([
  ["token-ada", { id: "ada", account: "acme" }],
  ["token-ada-rotated", { id: "ada", account: "acme" }],
  ["token-bob", { id: "bob", account: "globex" }],
]);
const bearer = bearerAuth({ verify: (token) => tokens.get(token) ?? null });

/**
 * A create whose answer names its caller (its body and its Location), behind bearer tokens: its own
 * `auth`, or (`"router"`) that of a router serving it.
 */
function ordersFor(policy: IdempotencyPolicy, auth: "route" | "router" = "route") {
  let runs = 0;
  class CreateOrder extends OpenAPIRoute {
    schema = {
      ...(auth === "route" ? { auth: bearer } : {}),
      idempotency: policy,
      request: { body: contentJson(z.object({ item: z.string() })) },
      responses: { "201": { description: "Created" } },
    };
    async handle() {
      const { id } = (await this.getPrincipal()) as Caller;
      runs++;
      return Response.json({ owner: id, run: runs }, { status: 201, headers: { location: `/orders/${id}-${runs}` } });
    }
  }
  const send = (
    app: { request(path: string, init?: RequestInit): Promise<Response> },
    token: string,
    key: string,
    body: unknown,
    path = "/orders",
  ) => app.request(path, jsonBody(body, { headers: { authorization: `Bearer ${token}`, "idempotency-key": key } }));
  return { CreateOrder, runs: () => runs, send };
}

const post = (
  app: { request(path: string, init?: RequestInit): Promise<Response> },
  path: string,
  body: unknown,
  key?: string,
) => app.request(path, jsonBody(body, { headers: key !== undefined ? { "idempotency-key": key } : {} }));

describe.each(httpHarnesses)("idempotency keys over HTTP on $name", (harness) => {
  it("runs the first request once; a retry gets the same answer, status, body and marked headers", async () => {
    const { driver, count } = database();
    const once = idempotency({ store: sqlIdempotencyStore(driver), keepHeaders: ["x-request-marker"] });
    const app = harness.make({ db: driver });
    app.router.post("/notes", createNote(once));
    const first = await post(app, "/notes", { title: "Ada" }, "k-1");
    expect(first.status).toBe(201);
    const firstBody = await first.text();
    for (let i = 0; i < 3; i++) {
      const retry = await post(app, "/notes", { title: "Ada" }, "k-1");
      expect(retry.status).toBe(201);
      expect(await retry.text()).toBe(firstBody);
      expect(retry.headers.get("content-type")).toBe(first.headers.get("content-type"));
    }
    expect(count()).toBe(1);
    // Without a key, every request runs.
    expect((await post(app, "/notes", { title: "Ada" })).status).toBe(201);
    expect((await post(app, "/notes", { title: "Ada" })).status).toBe(201);
    expect(count()).toBe(3);
  });

  it("the same key on another request is a 422, and nothing is written", async () => {
    const { driver, count } = database();
    const once = idempotency({ store: sqlIdempotencyStore(driver) });
    const app = harness.make({ db: driver });
    app.router.post("/notes", createNote(once));
    app.router.post("/other", createNote(once));
    expect((await post(app, "/notes", { title: "Ada" }, "k-2")).status).toBe(201);
    const changed = await post(app, "/notes", { title: "Grace" }, "k-2");
    expect(changed.status).toBe(422);
    expect(((await changed.json()) as any).errors[0].message).toContain("another request");
    expect((await post(app, "/other", { title: "Ada" }, "k-2")).status).toBe(422);
    expect(count()).toBe(1);
  });

  it("a retry while the first is in flight is a 409; once it is done, the retry gets its answer", async () => {
    const { driver } = database();
    const { Gated, gate } = gatedWrite(idempotency({ store: sqlIdempotencyStore(driver) }));
    const app = harness.make();
    app.router.post("/gated", Gated);
    const first = post(app, "/gated", { n: 1 }, "k-3");
    await eventually(() => gate.entered === 1);
    const during = await post(app, "/gated", { n: 1 }, "k-3");
    expect(during.status).toBe(409);
    expect(((await during.json()) as any).errors[0].message).toBe(
      "A request with this Idempotency-Key is still being processed: retry later",
    );
    expect((await post(app, "/gated", { n: 2 }, "k-3")).status).toBe(422);
    gate.open();
    const done = await first;
    expect(done.status).toBe(201);
    expect(await done.json()).toEqual({ run: 1 });
    const after = await post(app, "/gated", { n: 1 }, "k-3");
    expect(after.status).toBe(201);
    expect(await after.json()).toEqual({ run: 1 });
    expect(gate.runs).toBe(1);
  });

  it("a failed write frees its key: the retry runs again", async () => {
    const { driver, keys } = database();
    let calls = 0;
    class Flaky extends OpenAPIRoute {
      schema = { idempotency: idempotency({ store: sqlIdempotencyStore(driver) }), responses: {} };
      handle() {
        calls++;
        if (calls === 1) throw new Error("database went away");
        return { calls };
      }
    }
    const app = harness.make();
    app.router.post("/flaky", Flaky);
    const send = () => app.request("/flaky", { method: "POST", headers: { "idempotency-key": "k-4" } });
    expect((await send()).status).toBe(500);
    expect(keys()).toEqual([]);
    const second = await send();
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual({ calls: 2 });
    expect(await (await send()).json()).toEqual({ calls: 2 });
    expect(calls).toBe(2);
  });

  it("a required key is a 400 when missing or too long; a 400 body never claims the key", async () => {
    const { driver, count, keys } = database();
    const app = harness.make({ db: driver });
    app.router.post("/notes", createNote(idempotency({ store: sqlIdempotencyStore(driver), required: true })));
    expect((await post(app, "/notes", { title: "Ada" })).status).toBe(400);
    expect((await post(app, "/notes", { title: "Ada" }, "x".repeat(201))).status).toBe(400);
    expect((await post(app, "/notes", { title: "" }, "k-5")).status).toBe(400);
    expect(keys()).toEqual([]);
    expect((await post(app, "/notes", { title: "Ada" }, "k-5")).status).toBe(201);
    expect(count()).toBe(1);
  });

  it("stores an answer no larger than maxAnswerBytes: a larger one is replayed with its status and no body", async () => {
    const { driver } = database();
    class Big extends OpenAPIRoute {
      schema = { idempotency: idempotency({ store: sqlIdempotencyStore(driver), maxAnswerBytes: 100 }), responses: {} };
      handle() {
        return { text: "x".repeat(1000) };
      }
    }
    const app = harness.make();
    app.router.post("/big", Big);
    const send = () => app.request("/big", { method: "POST", headers: { "idempotency-key": "k-6" } });
    const first = await send();
    expect(first.status).toBe(200);
    expect(await first.text()).toBe("");
    const retry = await send();
    expect(retry.status).toBe(200);
    expect(await retry.text()).toBe("");
  });

  it("a key is its caller's: another principal with the same key and body gets its own answer, never the first's", async () => {
    const { driver } = database();
    const { CreateOrder, runs, send } = ordersFor(idempotency({ store: sqlIdempotencyStore(driver) }));
    const app = harness.make();
    app.router.post("/orders", CreateOrder);
    const ada = await send(app, "token-ada", "k-7", { item: "book" });
    expect(ada.status).toBe(201);
    expect(await ada.json()).toEqual({ owner: "ada", run: 1 });
    // Bob sends Ada's key and body: his handler runs, and nothing of Ada's reaches him.
    const bob = await send(app, "token-bob", "k-7", { item: "book" });
    expect(bob.status).toBe(201);
    expect(await bob.json()).toEqual({ owner: "bob", run: 2 });
    expect(bob.headers.get("location")).toBe("/orders/bob-2");
    // Each one's retry replays their own answer.
    expect(await (await send(app, "token-ada", "k-7", { item: "book" })).json()).toEqual({ owner: "ada", run: 1 });
    expect(await (await send(app, "token-bob", "k-7", { item: "book" })).json()).toEqual({ owner: "bob", run: 2 });
    // A key one of them used never blocks the other's request with a 422.
    expect((await send(app, "token-ada", "k-8", { item: "pen" })).status).toBe(201);
    expect((await send(app, "token-bob", "k-8", { item: "ink" })).status).toBe(201);
    expect(runs()).toBe(4);
  });

  it("basicAuth scopes keys by the whole credential: clients sharing a user name (api:<key>) never share keys, and an empty user name works", async () => {
    const { driver } = database();
    // Mailgun's style: every client's user name is "api", its password its own key; or curl -u :<key>.
    const accounts = new Map([
      ["api:key-acme", "acme"],
      ["api:key-globex", "globex"],
      [":key-initech", "initech"],
    ]);
    const auth = basicAuth({
      verify: ({ username, password }) => {
        const account = accounts.get(`${username}:${password}`);
        return account === undefined ? null : { account };
      },
    });
    let runs = 0;
    class CreatePayout extends OpenAPIRoute {
      schema = {
        auth,
        idempotency: idempotency({ store: sqlIdempotencyStore(driver) }),
        request: { body: contentJson(z.object({ amount: z.number() })) },
        responses: { "201": { description: "Created" } },
      };
      async handle() {
        const { account } = await this.getPrincipal();
        runs++;
        return Response.json({ account, run: runs }, { status: 201, headers: { location: `/payouts/${runs}` } });
      }
    }
    const app = harness.make();
    app.router.post("/payouts", CreatePayout);
    const send = (credential: string, key: string, amount: number) =>
      app.request(
        "/payouts",
        jsonBody({ amount }, { headers: { authorization: `Basic ${btoa(credential)}`, "idempotency-key": key } }),
      );
    const acme = await send("api:key-acme", "order-1", 100);
    expect([acme.status, await acme.json()]).toEqual([201, { account: "acme", run: 1 }]);
    const globex = await send("api:key-globex", "order-1", 100);
    expect([globex.status, await globex.json()]).toEqual([201, { account: "globex", run: 2 }]);
    expect(globex.headers.get("location")).toBe("/payouts/2");
    // A key one client used first never blocks another's request with a 422.
    expect((await send("api:key-globex", "order-2", 5)).status).toBe(201);
    expect((await send("api:key-acme", "order-2", 7)).status).toBe(201);
    // An empty user name is a credential like any other: its retry replays its own answer.
    const initech = await send(":key-initech", "order-1", 100);
    expect([initech.status, await initech.json()]).toEqual([201, { account: "initech", run: 5 }]);
    const retried = await send(":key-initech", "order-1", 100);
    expect([retried.status, await retried.json()]).toEqual([201, { account: "initech", run: 5 }]);
    expect(runs).toBe(5);
  });

  it("a rate-limited route scopes its keys by caller too: the limit authenticates, the key still knows who", async () => {
    const { driver } = database();
    const { CreateOrder, runs, send } = ordersFor(idempotency({ store: sqlIdempotencyStore(driver) }));
    const limit = rateLimit({
      limit: 100,
      windowSeconds: 60,
      key: ({ principal }) => (principal as Caller).id,
      store: memoryRateLimitStore(),
    });
    const app = harness.make({ rateLimit: limit });
    app.router.post("/orders", CreateOrder);
    const ada = await send(app, "token-ada", "k-21", { item: "book" });
    expect(ada.status).toBe(201);
    expect(ada.headers.get("ratelimit-policy")).toContain("q=100");
    const bob = await send(app, "token-bob", "k-21", { item: "book" });
    expect(await bob.json()).toEqual({ owner: "bob", run: 2 });
    expect(await (await send(app, "token-ada", "k-21", { item: "book" })).json()).toEqual({ owner: "ada", run: 1 });
    expect(runs()).toBe(2);
  });

  it("a route mounted under a router with auth scopes its keys by that router's callers", async () => {
    const { driver } = database();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const { CreateOrder, runs, send } = ordersFor(idempotency({ store: sqlIdempotencyStore(driver) }), "router");
      const orders = harness.nested();
      orders.post("/orders", CreateOrder);
      const app = harness.make({ auth: bearer });
      app.router.route("/v1", orders);
      const ada = await send(app, "token-ada", "k-13", { item: "book" }, "/v1/orders");
      expect(await ada.json()).toEqual({ owner: "ada", run: 1 });
      const bob = await send(app, "token-bob", "k-13", { item: "book" }, "/v1/orders");
      expect(await bob.json()).toEqual({ owner: "bob", run: 2 });
      // The mounted route keeps its keys: Ada's retry gets her answer, and nothing runs again.
      const retry = await send(app, "token-ada", "k-13", { item: "book" }, "/v1/orders");
      expect(await retry.json()).toEqual({ owner: "ada", run: 1 });
      expect(runs()).toBe(2);
    } finally {
      warn.mockRestore();
    }
  });

  it("refuses to compile a route whose scheme cannot tell callers apart, unless the policy says whose keys they are", async () => {
    const { driver } = database();
    // An authenticator of the app's own, with no caller(): it cannot say who its credentials name.
    const tls: Authenticator<Caller> = {
      schemeName: "mtls",
      scheme: { type: "mutualTLS" },
      challenge: "Certificate",
      expects: "a client certificate",
      authenticate: async (request) => tokens.get(request.headers.get("x-client-cert") ?? ""),
    };
    class Certified extends OpenAPIRoute {
      schema = { auth: tls, idempotency: idempotency({ store: sqlIdempotencyStore(driver) }), responses: {} };
      handle() {
        return { ok: true };
      }
    }
    const refused = harness.make();
    refused.router.post("/certified", Certified);
    const refusal = (() => {
      try {
        refused.router.compile();
      } catch (err) {
        return err as Error;
      }
      throw new Error("the route compiled");
    })();
    expect(refusal.message).toMatch(/POST \/certified \(Certified\).*mtls.*idempotency\(\{ scope \}\)/);
    // The route's label wraps the policy's refusal, which keeps the scheme's own as its cause: its stack says where it came from.
    const policyRefusal = refusal.cause as Error;
    expect(policyRefusal.cause).toBeInstanceOf(Error);
    expect((policyRefusal.cause as Error).message).toBe(
      'security scheme "mtls" does not tell its callers apart (it has no caller())',
    );
    class Scoped extends Certified {
      override schema = {
        auth: tls,
        idempotency: idempotency({
          store: sqlIdempotencyStore(driver),
          scope: ({ principal }) => (principal as Caller).id,
        }),
        responses: {},
      };
    }
    const app = harness.make();
    app.router.post("/certified", Scoped);
    const send = () =>
      app.request("/certified", {
        method: "POST",
        headers: { "x-client-cert": "token-ada", "idempotency-key": "k-14" },
      });
    expect((await send()).status).toBe(200);
    expect((await send()).status).toBe(200);
  });

  it("a request whose credentials its scheme's caller() does not find fails, and never runs in a shared scope", async () => {
    const { driver, keys } = database();
    // Authenticates by one header, but says it reads another: no request has what caller() reads.
    const mismatched: Authenticator<Caller> = {
      schemeName: "token",
      scheme: { type: "apiKey", in: "header", name: "X-Token" },
      challenge: "Token",
      expects: "a token in X-Token",
      authenticate: async (request) => tokens.get(request.headers.get("x-token") ?? ""),
      caller: (request) => request.headers.get("x-other") ?? undefined,
    };
    let runs = 0;
    class Mismatched extends OpenAPIRoute {
      schema = { auth: mismatched, idempotency: idempotency({ store: sqlIdempotencyStore(driver) }), responses: {} };
      handle() {
        runs++;
        return { runs };
      }
    }
    const app = harness.make();
    app.router.post("/mismatched", Mismatched);
    const send = (token: string) =>
      app.request("/mismatched", { method: "POST", headers: { "x-token": token, "idempotency-key": "k-15" } });
    expect((await send("token-ada")).status).toBe(500);
    expect((await send("token-bob")).status).toBe(500);
    expect(runs).toBe(0);
    expect(keys()).toEqual([]);
    expect(app.caught.map(String)).toContain(
      "Error: POST /mismatched (Mismatched): no credential of the route's security schemes to scope its Idempotency-Key by: give idempotency({ scope })",
    );
  });

  it("scopes keys as the policy's scope says: a retry with a rotated token of the same account gets the first answer", async () => {
    const { driver } = database();
    const byAccount = idempotency({
      store: sqlIdempotencyStore(driver),
      scope: ({ principal }) => (principal as Caller).account,
    });
    const { CreateOrder, runs, send } = ordersFor(byAccount);
    const app = harness.make();
    app.router.post("/orders", CreateOrder);
    expect(await (await send(app, "token-ada", "k-9", { item: "book" })).json()).toEqual({ owner: "ada", run: 1 });
    // The same account, another token: the same caller.
    expect(await (await send(app, "token-ada-rotated", "k-9", { item: "book" })).json()).toEqual({
      owner: "ada",
      run: 1,
    });
    // Another account: its own answer.
    expect(await (await send(app, "token-bob", "k-9", { item: "book" })).json()).toEqual({ owner: "bob", run: 2 });
    expect(runs()).toBe(2);
  });

  it("warns once, when it compiles, that an unauthenticated route's keys are shared, naming the route and `scope`", async () => {
    const { driver } = database();
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      const app = harness.make({ db: driver });
      const CreateNote = createNote(idempotency({ store: sqlIdempotencyStore(driver) }));
      app.router.post("/notes", CreateNote);
      app.router.post("/scoped", createNote(idempotency({ store: sqlIdempotencyStore(driver), scope: () => "all" })));
      for (let i = 0; i < 2; i++) expect((await post(app, "/notes", { title: "Ada" }, `k-10-${i}`)).status).toBe(201);
      // The same route served by a second app is the same route: not warned again.
      const again = harness.make({ db: driver });
      again.router.post("/notes", CreateNote);
      expect((await post(again, "/notes", { title: "Ada" }, "k-10-2")).status).toBe(201);
      expect((await post(app, "/scoped", { title: "Ada" }, "k-10")).status).toBe(201);
      const about = warn.mock.calls.filter((args) => String(args[0]).includes("Idempotency-Key"));
      expect(about).toHaveLength(1);
      expect(String(about[0]![0])).toContain("POST /notes (CreateNote)");
      expect(String(about[0]![0])).toContain("scope");
    } finally {
      warn.mockRestore();
    }
  });

  it("the first answer keeps every header the route gives; a replay gives back the documented ones and keepHeaders", async () => {
    const { driver } = database();
    const header = { schema: { type: "string" } };
    let runs = 0;
    class Tagged extends OpenAPIRoute {
      schema = {
        idempotency: idempotency({ store: sqlIdempotencyStore(driver), keepHeaders: ["x-kept"] }),
        responses: { "201": { description: "Created", headers: { ETag: header, "X-Documented": header } } },
      };
      handle() {
        runs++;
        const headers = { etag: '"v1"', "x-documented": "yes", "x-undocumented": "first only", "x-kept": "kept" };
        return Response.json({ runs }, { status: 201, headers });
      }
    }
    const app = harness.make();
    app.router.post("/tagged", Tagged);
    const send = () => app.request("/tagged", { method: "POST", headers: { "idempotency-key": "k-11" } });
    const first = await send();
    expect(first.status).toBe(201);
    expect(first.headers.get("etag")).toBe('"v1"');
    expect(first.headers.get("x-documented")).toBe("yes");
    expect(first.headers.get("x-undocumented")).toBe("first only");
    expect(first.headers.get("x-kept")).toBe("kept");
    expect(await first.json()).toEqual({ runs: 1 });
    const replay = await send();
    expect(replay.status).toBe(201);
    expect(replay.headers.get("etag")).toBe('"v1"');
    expect(replay.headers.get("x-documented")).toBe("yes");
    expect(replay.headers.get("x-kept")).toBe("kept");
    expect(replay.headers.get("x-undocumented")).toBeNull();
    expect(await replay.json()).toEqual({ runs: 1 });
  });

  it("a replay gives back each documented Set-Cookie apart, not joined into one", async () => {
    const { driver } = database();
    class SignUp extends OpenAPIRoute {
      schema = {
        idempotency: idempotency({ store: sqlIdempotencyStore(driver) }),
        responses: { "201": { description: "Signed up", headers: { "Set-Cookie": { schema: { type: "string" } } } } },
      };
      handle() {
        const headers = new Headers([
          ["set-cookie", "sid=abc; Path=/; HttpOnly"],
          ["set-cookie", "theme=dark; Path=/"],
        ]);
        return new Response(null, { status: 201, headers });
      }
    }
    const app = harness.make();
    app.router.post("/sign-up", SignUp);
    const send = () => app.request("/sign-up", { method: "POST", headers: { "idempotency-key": "k-16" } });
    const cookies = ["sid=abc; Path=/; HttpOnly", "theme=dark; Path=/"];
    expect((await send()).headers.getSetCookie()).toEqual(cookies);
    const replay = await send();
    expect(replay.status).toBe(201);
    expect(replay.headers.getSetCookie()).toEqual(cookies);
  });

  it("a conditional create's ETag is on its first answer and on every replay", async () => {
    const { driver } = database();
    class CreateTagged extends SqlCreateEndpoint {
      _meta = noteMeta;
      conditionalRequests = true;
      schema = { idempotency: idempotency({ store: sqlIdempotencyStore(driver) }) };
    }
    const app = harness.make({ db: driver });
    app.router.post("/notes", CreateTagged);
    const first = await post(app, "/notes", { title: "Ada" }, "k-12");
    expect(first.status).toBe(201);
    const tag = first.headers.get("etag");
    expect(tag).toMatch(/^"[^"]+"$/);
    const replay = await post(app, "/notes", { title: "Ada" }, "k-12");
    expect(replay.status).toBe(201);
    expect(replay.headers.get("etag")).toBe(tag);
  });

  it("a required key that is missing says it is required; one too long says how long it may be", async () => {
    const { driver } = database();
    const app = harness.make({ db: driver });
    app.router.post("/notes", createNote(idempotency({ store: sqlIdempotencyStore(driver), required: true })));
    const missing = await post(app, "/notes", { title: "Ada" });
    expect(missing.status).toBe(400);
    const where = ["headers", "Idempotency-Key"];
    expect(((await missing.json()) as any).errors[0]).toMatchObject({
      message: "The Idempotency-Key header is required",
      path: where,
    });
    const long = await post(app, "/notes", { title: "Ada" }, "x".repeat(201));
    expect(long.status).toBe(400);
    expect(((await long.json()) as any).errors[0]).toMatchObject({
      message: "Idempotency-Key must be a string of 1 to 200 characters",
      path: where,
    });
  });

  it("documents the Idempotency-Key header with the 409 and 422, and the document validates", async () => {
    const { driver } = database();
    const app = harness.make({ db: driver });
    app.router.post("/notes", createNote(idempotency({ store: sqlIdempotencyStore(driver), required: true })));
    const doc = (await (await app.request("/openapi.json")).json()) as any;
    expect(await documentErrors(doc)).toBeNull();
    const operation = doc.paths["/notes"].post;
    expect(operation.parameters).toContainEqual(
      expect.objectContaining({ name: "Idempotency-Key", in: "header", required: true }),
    );
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(["201", "400", "409", "422"]));
  });

  it("documents what a client may send as a key and for how long its answer is kept; a route's own 409 stays its own", async () => {
    const { driver } = database();
    class Reserve extends OpenAPIRoute {
      schema = {
        idempotency: idempotency({ store: sqlIdempotencyStore(driver), expiresSeconds: 600, scope: () => "all" }),
        responses: { "201": { description: "Reserved" }, "409": { description: "Sold out" } },
      };
      handle() {
        return new Response(null, { status: 201 });
      }
    }
    const app = harness.make();
    app.router.post("/reservations", Reserve);
    const doc = (await (await app.request("/openapi.json")).json()) as any;
    expect(await documentErrors(doc)).toBeNull();
    const operation = doc.paths["/reservations"].post;
    const [parameter] = operation.parameters.filter((one: any) => one.name === "Idempotency-Key");
    expect(parameter).toEqual({
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: expect.stringContaining("by the same caller, gets the first answer (kept 600 s)"),
      schema: { type: "string", minLength: 1, maxLength: 200 },
    });
    expect(operation.responses["409"].description).toBe("Sold out");
    expect(operation.responses["422"].description).toBe("This Idempotency-Key was used for another request");
    expect(operation.responses["400"]).toBeDefined();
    const notes = harness.make({ db: driver });
    notes.router.post("/notes", createNote(idempotency({ store: sqlIdempotencyStore(driver), scope: () => "all" })));
    const conflict = ((await (await notes.request("/openapi.json")).json()) as any).paths["/notes"].post.responses[
      "409"
    ];
    expect(conflict.description).toBe("A request with this Idempotency-Key is still being processed");
  });
});

/** The SQL store, recording what each of its calls is handed, as a store of the app's own would see it. */
function recordingStore(store: IdempotencyStore) {
  const calls = {
    holds: [] as IdempotencyHold[],
    answers: [] as StoredAnswer[],
    contexts: [] as IdempotencyContext[],
  };
  const recorded: IdempotencyStore = {
    claim: (hold, ctx) => {
      calls.holds.push(hold);
      calls.contexts.push(ctx);
      return store.claim(hold, ctx);
    },
    complete: (hold, answer, expiresAt, ctx) => {
      calls.answers.push(structuredClone(answer));
      return store.complete(hold, answer, expiresAt, ctx);
    },
    release: (hold, ctx) => store.release(hold, ctx),
  };
  return { store: recorded, calls };
}

describe.each(harnesses)("what a store of the app's own is handed, on $name", (harness) => {
  it("a hold names its key and request only by SHA-256, never the key or the token as sent; the router's environment reaches the store", async () => {
    const { driver } = database();
    const { store, calls } = recordingStore(sqlIdempotencyStore(driver));
    const { CreateOrder } = ordersFor(idempotency({ store }));
    const app = harness.make();
    app.router.post("/orders", CreateOrder);
    const env = { TENANT: "acme" };
    for (const key of ["key-one", "key-two", "key-three", "key-four", "key-five"]) {
      const request = new Request("http://localhost/orders", {
        method: "POST",
        headers: { authorization: "Bearer token-ada", "idempotency-key": key, "content-type": "application/json" },
        body: JSON.stringify({ item: "book" }),
      });
      expect((await app.serveWith(request, env))?.status).toBe(201);
    }
    for (const hold of calls.holds) {
      expect(hold.key).toMatch(/^[0-9a-f]{64}$/);
      expect(hold.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    }
    expect(new Set(calls.holds.map((hold) => hold.key)).size).toBe(5);
    // One request, so one fingerprint; keys and credentials appear nowhere.
    expect(new Set(calls.holds.map((hold) => hold.fingerprint)).size).toBe(1);
    expect(JSON.stringify(calls)).not.toMatch(/key-one|token-ada/);
    expect(calls.contexts).toEqual(Array(5).fill({ env }));
  });

  it("an answer is handed over as a status, the replayed headers as pairs of strings, and its body in base64, marked when cut", async () => {
    const { driver } = database();
    const { store, calls } = recordingStore(sqlIdempotencyStore(driver));
    const once = idempotency({ store, keepHeaders: ["x-request-id"], maxAnswerBytes: 8, scope: () => "all" });
    const answering = (body: string) =>
      class Answer extends OpenAPIRoute {
        schema = {
          idempotency: once,
          responses: { "200": { description: "ok", headers: { "X-Unset": { schema: { type: "string" } } } } },
        };
        handle() {
          return new Response(body, { headers: { "content-type": "text/plain", "x-request-id": "r-1" } });
        }
      };
    const app = harness.make();
    app.router.post("/short", answering("12345678"));
    app.router.post("/long", answering("123456789"));
    for (const path of ["/short", "/long"]) {
      await app.request(path, { method: "POST", headers: { "idempotency-key": `k-40${path}` } });
    }
    const headers = [
      ["content-type", "text/plain"],
      ["x-request-id", "r-1"],
    ];
    expect(calls.answers).toEqual([
      { status: 200, headers, body: btoa("12345678") },
      { status: 200, headers, body: "", truncated: true },
    ]);
  });

  it("a 204 answer is replayed as a 204 without a body", async () => {
    const { driver } = database();
    let runs = 0;
    class Remove extends OpenAPIRoute {
      schema = { idempotency: idempotency({ store: sqlIdempotencyStore(driver), scope: () => "all" }), responses: {} };
      handle() {
        runs++;
        return new Response(null, { status: 204 });
      }
    }
    const app = harness.make();
    app.router.post("/remove", Remove);
    for (let i = 0; i < 2; i++) {
      const answer = await app.request("/remove", { method: "POST", headers: { "idempotency-key": "k-41" } });
      expect([answer.status, answer.body]).toEqual([204, null]);
    }
    expect(runs).toBe(1);
  });

  it("an endless answer is read no further than maxAnswerBytes: the route's stream is cancelled", async () => {
    const { driver } = database();
    const stream = { pulls: 0, cancelled: false };
    class Endless extends OpenAPIRoute {
      schema = {
        idempotency: idempotency({ store: sqlIdempotencyStore(driver), maxAnswerBytes: 4096, scope: () => "all" }),
        responses: {},
      };
      handle() {
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            stream.pulls++;
            controller.enqueue(new Uint8Array(1024));
          },
          cancel() {
            stream.cancelled = true;
          },
        });
        return new Response(body);
      }
    }
    const app = harness.make();
    app.router.post("/endless", Endless);
    const first = await app.request("/endless", { method: "POST", headers: { "idempotency-key": "k-42" } });
    expect([first.status, await first.text()]).toEqual([200, ""]);
    expect(stream.cancelled).toBe(true);
    expect(stream.pulls).toBeLessThan(10);
  });
});

const engines = storeEngines("specroute_idempotency", 8);

describe.each(engines)("the SQL idempotency store on $name", (engine) => {
  const ctx = { env: undefined };
  const answer = (status: number) => ({
    status,
    headers: [["content-type", "application/json"]] as [string, string][],
    body: btoa("{}"),
  });

  it.skipIf(engine.skip)(
    "of 20 racing claims of one key exactly one wins; the answer is kept until it expires",
    async () => {
      const { driver, close } = await engine.open();
      try {
        let clock = 1_000_000_000_000;
        const store = sqlIdempotencyStore(driver, { now: () => clock });
        const hold = { key: "k", fingerprint: "f1", leaseEnds: clock + 60_000 };
        const claims = await Promise.all(Array.from({ length: 20 }, () => store.claim(hold, ctx)));
        expect(claims.filter((claim) => claim.state === "claimed")).toHaveLength(1);
        expect(claims.filter((claim) => claim.state === "in-flight")).toHaveLength(19);
        // Completing keeps the answer until its own expiry, a day on, past the claim's lease.
        await store.complete(hold, answer(201), clock + 86_400_000, ctx);
        clock += 120_000;
        const retry = { key: "k", fingerprint: "f2", leaseEnds: clock + 60_000 };
        expect(await store.claim(retry, ctx)).toEqual({
          state: "done",
          fingerprint: "f1",
          answer: { ...answer(201), truncated: false },
        });
        // A released key is free again; an expired one too.
        const released = { key: "r", fingerprint: "f1", leaseEnds: clock + 60_000 };
        expect(await store.claim(released, ctx)).toEqual({ state: "claimed" });
        await store.release(released, ctx);
        expect(await store.claim({ ...released, leaseEnds: clock + 60_001 }, ctx)).toEqual({ state: "claimed" });
        clock += 86_400_000;
        expect(await store.claim({ ...retry, leaseEnds: clock + 60_000 }, ctx)).toEqual({ state: "claimed" });
        // r's claim lapsed a day ago; k's new one in a minute.
        expect(await store.prune()).toBe(1);
        clock += 60_001;
        expect(await store.prune()).toBe(1);
      } finally {
        await close();
      }
    },
  );

  it.skipIf(engine.skip)(
    "a claim whose lease ended is taken over by exactly one of 20 racing retries; the lapsed claim then changes nothing",
    async () => {
      const { driver, close } = await engine.open();
      try {
        let clock = 1_000_000_000_000;
        const store = sqlIdempotencyStore(driver, { now: () => clock });
        const crashed = { key: "k", fingerprint: "f1", leaseEnds: clock + 5_000 };
        expect(await store.claim(crashed, ctx)).toEqual({ state: "claimed" });
        // Within the lease, the key is held.
        clock += 4_000;
        const early = { ...crashed, leaseEnds: clock + 5_000 };
        expect(await store.claim(early, ctx)).toEqual({ state: "in-flight", fingerprint: "f1" });
        clock += 2_000;
        const retry = { ...crashed, leaseEnds: clock + 5_000 };
        const claims = await Promise.all(Array.from({ length: 20 }, () => store.claim(retry, ctx)));
        expect(claims.filter((claim) => claim.state === "claimed")).toHaveLength(1);
        expect(claims.filter((claim) => claim.state === "in-flight")).toHaveLength(19);
        // The first request, slow rather than dead, finishes late: its answer and its release are refused.
        await store.complete(crashed, answer(200), clock + 86_400_000, ctx);
        await store.release(crashed, ctx);
        expect(await store.claim({ ...retry, leaseEnds: clock + 5_001 }, ctx)).toEqual({
          state: "in-flight",
          fingerprint: "f1",
        });
        await store.complete(retry, answer(201), clock + 86_400_000, ctx);
        expect(await store.claim({ ...retry, leaseEnds: clock + 5_002 }, ctx)).toMatchObject({
          state: "done",
          answer: { status: 201 },
        });
      } finally {
        await close();
      }
    },
  );
});

describe.each(engines)("idempotency keys over HTTP with the SQL store on $name", (engine) => {
  it.skipIf(engine.skip)(
    "accounts whose ids differ only by trailing spaces never share a key: what MariaDB's PAD SPACE key compares is a hash",
    async () => {
      const { driver, close } = await engine.open();
      try {
        const auth = basicAuth({ verify: ({ username, password }) => (password === "right" ? { username } : null) });
        let runs = 0;
        class CreatePayout extends OpenAPIRoute {
          schema = {
            auth,
            idempotency: idempotency({
              store: sqlIdempotencyStore(driver),
              scope: ({ principal }) => (principal as { username: string }).username,
            }),
            request: { body: contentJson(z.object({ amount: z.number() })) },
            responses: { "201": { description: "Created" } },
          };
          async handle() {
            const { username } = (await this.getPrincipal()) as { username: string };
            runs++;
            return Response.json({ username, run: runs }, { status: 201 });
          }
        }
        const app = httpHarnesses[0]!.make();
        app.router.post("/payouts", CreatePayout);
        const send = async (username: string) => {
          const headers = { authorization: `Basic ${btoa(`${username}:right`)}`, "idempotency-key": "order-1" };
          return (await app.request("/payouts", jsonBody({ amount: 5 }, { headers }))).json();
        };
        const answers = [];
        for (const username of ["ada", "ada ", "ada  ", "ada", "ada "]) answers.push(await send(username));
        expect(answers).toEqual([
          { username: "ada", run: 1 },
          { username: "ada ", run: 2 },
          { username: "ada  ", run: 3 },
          { username: "ada", run: 1 },
          { username: "ada ", run: 2 },
        ]);
      } finally {
        await close();
      }
    },
  );
});

describe("an idempotency policy an app cannot misconfigure into one that keeps nothing", () => {
  const store = sqlIdempotencyStore(database().driver);

  it("refuses a lifetime, lease or answer bound that keeps nothing, a store that cannot claim, and a scope that is no function", () => {
    for (const expiresSeconds of [0, -1, Number.NaN]) {
      expect(() => idempotency({ store, expiresSeconds })).toThrow("idempotency expiresSeconds must be positive");
    }
    for (const leaseSeconds of [0, -1, Number.NaN]) {
      expect(() => idempotency({ store, leaseSeconds })).toThrow("idempotency leaseSeconds must be positive");
    }
    for (const maxAnswerBytes of [-1, 1.5, Number.NaN]) {
      expect(() => idempotency({ store, maxAnswerBytes })).toThrow(
        "idempotency maxAnswerBytes must be a non-negative integer",
      );
    }
    for (const bad of [undefined, {}, { claim: "no" }]) {
      expect(() => idempotency({ store: bad as never })).toThrow(
        "idempotency store must have claim(), complete() and release()",
      );
    }
    expect(() => idempotency({ store, scope: "tenant" as never })).toThrow(
      "idempotency scope must be a function of the request",
    );
    // The smallest that keep something are taken.
    const least = idempotency({ store, expiresSeconds: 0.5, leaseSeconds: 0.5, maxAnswerBytes: 0 });
    expect([least.expiresSeconds, least.leaseSeconds, least.maxAnswerBytes, least.required]).toEqual([
      0.5,
      0.5,
      0,
      false,
    ]);
  });
});

describe.each(httpHarnesses)("what a client tries with idempotency keys, over HTTP on $name", (harness) => {
  it("an empty key is a 400, never one key every client sending it empty shares; 200 characters is a key", async () => {
    const { driver, count, keys } = database();
    const app = harness.make({ db: driver });
    app.router.post("/notes", createNote(idempotency({ store: sqlIdempotencyStore(driver) })));
    const empty = await post(app, "/notes", { title: "Ada" }, "");
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as any).errors[0].message).toBe(
      "Idempotency-Key must be a string of 1 to 200 characters",
    );
    expect(keys()).toEqual([]);
    const longest = "k".repeat(200);
    expect((await post(app, "/notes", { title: "Ada" }, longest)).status).toBe(201);
    expect((await post(app, "/notes", { title: "Ada" }, longest)).status).toBe(201);
    expect(count()).toBe(1);
  });

  it("a key sent again with another method or query is another request (422): a stored answer is not replayed onto it", async () => {
    const { driver, count } = database();
    const once = idempotency({ store: sqlIdempotencyStore(driver) });
    const app = harness.make({ db: driver });
    app.router.post("/notes", createNote(once));
    app.router.put("/notes", createNote(once));
    expect((await post(app, "/notes?draft=1", { title: "Ada" }, "k-30")).status).toBe(201);
    expect((await post(app, "/notes?draft=2", { title: "Ada" }, "k-30")).status).toBe(422);
    expect((await post(app, "/notes", { title: "Ada" }, "k-30")).status).toBe(422);
    const put = await app.request("/notes?draft=1", {
      ...jsonBody({ title: "Ada" }, { headers: { "idempotency-key": "k-30" } }),
      method: "PUT",
    });
    expect(put.status).toBe(422);
    expect((await post(app, "/notes?draft=1", { title: "Ada" }, "k-30")).status).toBe(201);
    expect(count()).toBe(1);
  });

  it("an answer of 500 or more frees the key for a retry; a 4xx answer is the answer, replayed", async () => {
    const { driver } = database();
    const statuses = [500, 503, 201, 409];
    let runs = 0;
    class Upstream extends OpenAPIRoute {
      schema = { idempotency: idempotency({ store: sqlIdempotencyStore(driver) }), responses: {} };
      handle() {
        const status = statuses[runs++]!;
        return Response.json({ status, run: runs }, { status });
      }
    }
    const app = harness.make();
    app.router.post("/upstream", Upstream);
    const send = async (key: string) => {
      const answer = await app.request("/upstream", { method: "POST", headers: { "idempotency-key": key } });
      return [answer.status, await answer.json()];
    };
    expect(await send("k-31")).toEqual([500, { status: 500, run: 1 }]);
    expect(await send("k-31")).toEqual([503, { status: 503, run: 2 }]);
    expect(await send("k-31")).toEqual([201, { status: 201, run: 3 }]);
    expect(await send("k-31")).toEqual([201, { status: 201, run: 3 }]);
    expect(await send("k-32")).toEqual([409, { status: 409, run: 4 }]);
    expect(await send("k-32")).toEqual([409, { status: 409, run: 4 }]);
    expect(runs).toBe(4);
  });

  it("a scope that names no one fails the request (500) and runs nothing, never filing callers under one shared scope", async () => {
    const { driver, keys } = database();
    let runs = 0;
    class Scoped extends OpenAPIRoute {
      schema = {
        auth: bearer,
        // A principal without an account: the scope is undefined for it.
        idempotency: idempotency({
          store: sqlIdempotencyStore(driver),
          scope: ({ principal }) => (principal as any).team,
        }),
        responses: {},
      };
      handle() {
        runs++;
        return { runs };
      }
    }
    const app = harness.make();
    app.router.post("/scoped", Scoped);
    const send = (token: string) =>
      app.request("/scoped", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "idempotency-key": "k-33" },
      });
    expect((await send("token-ada")).status).toBe(500);
    expect((await send("token-bob")).status).toBe(500);
    expect(runs).toBe(0);
    expect(keys()).toEqual([]);
    expect(app.caught.map(String)).toContain(
      "TypeError: POST /scoped (Scoped): idempotency scope must return a string",
    );
  });

  it("a replay gives back the headers documented for its status, else its range, else default; keepHeaders in any case", async () => {
    const { driver } = database();
    const header = { schema: { type: "string" } };
    const once = idempotency({ store: sqlIdempotencyStore(driver), keepHeaders: ["X-Kept"] });
    const answering = (status: number) =>
      class Documented extends OpenAPIRoute {
        schema = {
          idempotency: once,
          responses: {
            "201": { description: "Created", headers: { "X-Exact": header, "X-Absent": header } },
            "2xx": { description: "Accepted", headers: z.object({ "X-Range": z.string() }) },
            default: { description: "Other", headers: { "X-Default": header } },
          },
        };
        handle() {
          const names = ["x-exact", "x-range", "x-default", "x-kept"];
          return new Response("{}", {
            status,
            headers: names.map((name): [string, string] => [name, `${name} of ${status}`]),
          });
        }
      };
    const app = harness.make();
    app.router.post("/exact", answering(201));
    app.router.post("/range", answering(202));
    app.router.post("/default", answering(409));
    const replayed = async (path: string) => {
      const send = () => app.request(path, { method: "POST", headers: { "idempotency-key": `k-36${path}` } });
      await send();
      const replay = await send();
      return Object.fromEntries([...replay.headers].filter(([name]) => name.startsWith("x-")));
    };
    expect(await replayed("/exact")).toEqual({ "x-exact": "x-exact of 201", "x-kept": "x-kept of 201" });
    expect(await replayed("/range")).toEqual({ "x-range": "x-range of 202", "x-kept": "x-kept of 202" });
    expect(await replayed("/default")).toEqual({ "x-default": "x-default of 409", "x-kept": "x-kept of 409" });
  });

  it("a replay of a route that documents no answers keeps content-type and keepHeaders only", async () => {
    const { driver } = database();
    class Bare extends OpenAPIRoute {
      schema = { idempotency: idempotency({ store: sqlIdempotencyStore(driver), keepHeaders: ["Location"] }) };
      handle() {
        const headers = { "content-type": "text/csv", location: "/reports/1", "x-secret-trace": "t" };
        return new Response("a,b", { status: 201, headers });
      }
    }
    const app = harness.make();
    app.router.post("/reports", Bare);
    const send = () => app.request("/reports", { method: "POST", headers: { "idempotency-key": "k-37" } });
    await send();
    const replay = await send();
    expect([replay.status, await replay.text()]).toEqual([201, "a,b"]);
    expect(replay.headers.get("content-type")).toBe("text/csv");
    expect(replay.headers.get("location")).toBe("/reports/1");
    expect(replay.headers.get("x-secret-trace")).toBeNull();
  });

  it("replays a body over 32 KiB byte for byte, and a documented Content-Length never outlives a body cut at maxAnswerBytes", async () => {
    const { driver } = database();
    const big = Uint8Array.from({ length: 60_000 }, (_, i) => (i * 7) % 256);
    const base64 = async (answer: Response) => Buffer.from(await answer.arrayBuffer()).toString("base64");
    const once = idempotency({ store: sqlIdempotencyStore(driver), maxAnswerBytes: 50_000 });
    const sized = (size: number) =>
      class Blob extends OpenAPIRoute {
        schema = {
          idempotency: once,
          responses: {
            "200": { description: "bytes", headers: { "Content-Length": { schema: { type: "integer" } } } },
          },
        };
        handle() {
          return new Response(big.slice(0, size), { headers: { "content-length": String(size) } });
        }
      };
    const app = harness.make();
    for (const size of [40_000, 60_000]) app.router.post(`/blob/${size}`, sized(size));
    const send = (size: number) =>
      app.request(`/blob/${size}`, { method: "POST", headers: { "idempotency-key": `k-38-${size}` } });
    for (const size of [40_000, 60_000]) {
      const expected = size > 50_000 ? new Uint8Array(0) : big.slice(0, size);
      const first = await send(size);
      expect(await base64(first)).toBe(Buffer.from(expected).toString("base64"));
      const replay = await send(size);
      expect(await base64(replay)).toBe(Buffer.from(expected).toString("base64"));
      expect(replay.headers.get("content-length") ?? "0").toBe(String(expected.length));
    }
  });

  describe("over time (the clock moved by the test)", () => {
    afterEach(() => {
      vi.useRealTimers();
    });
    const clockAt = (ms: number) => vi.setSystemTime(ms);
    // eventually() reads the clock, which stands still here: this waits by tries.
    const settled = async (condition: () => boolean) => {
      for (let tries = 0; tries < 500 && !condition(); tries++) await new Promise((resolve) => setTimeout(resolve, 10));
    };

    it("an answer is replayed for expiresSeconds, and not after: the key then runs its request again", async () => {
      vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000_000_000 });
      const { driver, count } = database();
      const app = harness.make({ db: driver });
      app.router.post("/notes", createNote(idempotency({ store: sqlIdempotencyStore(driver), expiresSeconds: 60 })));
      expect((await post(app, "/notes", { title: "Ada" }, "k-34")).status).toBe(201);
      clockAt(1_000_000_059_000);
      expect((await post(app, "/notes", { title: "Ada" }, "k-34")).status).toBe(201);
      expect(count()).toBe(1);
      // Its last millisecond is still within it.
      clockAt(1_000_000_060_000);
      expect((await post(app, "/notes", { title: "Ada" }, "k-34")).status).toBe(201);
      expect(count()).toBe(1);
      clockAt(1_000_000_060_001);
      expect((await post(app, "/notes", { title: "Ada" }, "k-34")).status).toBe(201);
      expect(count()).toBe(2);
    });

    it("a request still running holds its key for leaseSeconds (409), and a retry after that runs alongside", async () => {
      vi.useFakeTimers({ toFake: ["Date"], now: 1_000_000_000_000 });
      const { driver } = database();
      const { Gated, gate } = gatedWrite(idempotency({ store: sqlIdempotencyStore(driver), leaseSeconds: 10 }));
      const app = harness.make();
      app.router.post("/gated", Gated);
      const first = post(app, "/gated", { n: 1 }, "k-35");
      let retry: Promise<Response> | undefined;
      try {
        await settled(() => gate.entered === 1);
        clockAt(1_000_000_010_000);
        expect((await post(app, "/gated", { n: 1 }, "k-35")).status).toBe(409);
        clockAt(1_000_000_010_001);
        retry = post(app, "/gated", { n: 1 }, "k-35");
        await settled(() => gate.entered === 2);
        expect(gate.entered).toBe(2);
      } finally {
        gate.open();
      }
      expect((await first).status).toBe(201);
      expect(await (await retry!).json()).toEqual({ run: 2 });
      // The retry took the key over: its answer is the one kept.
      expect(await (await post(app, "/gated", { n: 1 }, "k-35")).json()).toEqual({ run: 2 });
    });
  });
});
