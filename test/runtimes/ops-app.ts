// Rate limits (and idempotency keys) inside workerd: the same routes on Hono (/hono) and itty-router (/itty).
import { Hono } from "hono";
import { Router } from "itty-router";
import {
  basicAuth,
  D1CreateEndpoint,
  d1Driver,
  fromHono,
  fromIttyRouter,
  idempotency,
  OpenAPIRoute,
  type RateLimitContext,
  rateLimit,
  sqlIdempotencyStore,
  sqlRateLimitStore,
  workersRateLimitStore,
} from "specroute";
import { z } from "zod";

const byClient = ({ request }: RateLimitContext) => request.headers.get("x-client") ?? "anonymous";

const responses = { "200": { description: "pong" } };

class Ping extends OpenAPIRoute {
  schema = { responses };
  handle() {
    return { pong: true };
  }
}

const viaBinding = rateLimit({
  name: "binding",
  limit: 2,
  windowSeconds: 60,
  key: byClient,
  store: workersRateLimitStore("LIMITER"),
});
const viaD1 = rateLimit({
  name: "d1",
  limit: 2,
  windowSeconds: 60,
  key: byClient,
  store: sqlRateLimitStore(({ env }) => d1Driver(env.DB)),
});

// The default key: the client's address, which on Workers is CF-Connecting-IP (the request carries `cf`).
const byAddress = rateLimit({
  name: "address",
  limit: 2,
  windowSeconds: 60,
  store: sqlRateLimitStore(({ env }) => d1Driver(env.DB)),
});

// Keyed by the user, counted by the binding, which has no refund: each attempt stays counted against the address.
const login = rateLimit({
  name: "login",
  limit: 2,
  windowSeconds: 60,
  key: ({ principal }) => (principal as { user: string }).user,
  store: workersRateLimitStore("LIMITER"),
});
const auth = basicAuth({ verify: ({ username, password }) => (password === "right" ? { user: username } : null) });

class PingAddress extends Ping {
  schema = { responses, rateLimit: byAddress };
}
class Login extends Ping {
  schema = { responses, auth, rateLimit: login };
}

class PingBinding extends Ping {
  schema = { responses, rateLimit: viaBinding };
}
class PingD1 extends Ping {
  schema = { responses, rateLimit: viaD1 };
}

const Note = z.object({ id: z.number().int(), title: z.string().min(1) });
const once = idempotency({ store: sqlIdempotencyStore(({ env }) => d1Driver(env.DB)), keepHeaders: ["location"] });

class CreateNote extends D1CreateEndpoint {
  _meta = { model: { tableName: "notes", schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };
  schema = { idempotency: once };
}

// A create in a D1 session: its answer's x-d1-bookmark is documented, so a replay gives it back.
class CreateNoteInSession extends CreateNote {
  d1Sessions = true;
}

const hono = new Hono();
const honoApi = fromHono(hono, { base: "/hono" });
honoApi.get("/binding", PingBinding);
honoApi.get("/d1", PingD1);
honoApi.get("/address", PingAddress);
honoApi.get("/login", Login);
honoApi.post("/notes", CreateNote);
honoApi.post("/session-notes", CreateNoteInSession);

const itty = Router({ base: "/itty" });
const ittyApi = fromIttyRouter(itty, { base: "/itty" });
ittyApi.get("/binding", PingBinding);
ittyApi.get("/d1", PingD1);
ittyApi.get("/address", PingAddress);
ittyApi.get("/login", Login);
ittyApi.post("/notes", CreateNote);
ittyApi.post("/session-notes", CreateNoteInSession);

export default {
  fetch(request: Request, env: unknown, ctx: unknown) {
    if (new URL(request.url).pathname.startsWith("/itty/")) return itty.fetch(request, env, ctx);
    return hono.fetch(request, env as never, ctx as never);
  },
};
