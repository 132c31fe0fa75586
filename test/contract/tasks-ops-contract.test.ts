import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { app, openapi } from "../../examples/tasks/app";
import { writeLimit } from "../../examples/tasks/endpoints";
import { MIGRATIONS } from "../../examples/tasks/migrations";
import { betterSqlite3Driver, idempotencyTable, rateLimitTable, sqlIdempotencyStore } from "../../src";
import { sqliteDialect } from "../../src/sql";
import { resolvedResponse } from "../openapi/helpers";
import { type Doc, unlistedHeaders, validBody, violations } from "./calls";

/**
 * The contract check of the example's rate limit and idempotency keys: the operations the document
 * marks (a 429, an `Idempotency-Key` parameter) are driven to each answer those add (429, 409, 422, a
 * replay), and each answer is checked against the document: its body by openapi-response-validator,
 * its RateLimit headers listed for its status. Real requests on a real SQLite database, as the
 * contract check makes them.
 */

const KEY = "contract-key";
// The example's verify names the API key's client "api-key": its writes count in this bucket.
const BUCKET = `${writeLimit.name}#api-key`;

function seeded() {
  const sqlite = new Database(":memory:");
  sqlite.pragma("foreign_keys = ON");
  for (const statement of MIGRATIONS) sqlite.exec(statement);
  sqlite.exec("INSERT INTO projects (name) VALUES ('Launch'), ('Other')");
  sqlite.exec("INSERT INTO tasks (projectId, id, title) VALUES (1, 1, 'First')");
  const rows = () =>
    (
      sqlite.prepare("SELECT (SELECT COUNT(*) FROM projects) + (SELECT COUNT(*) FROM tasks) AS n").get() as {
        n: number;
      }
    ).n;
  return { sqlite, rows, env: { DB: betterSqlite3Driver(sqlite), API_KEY: KEY } };
}

type Marked = { method: string; template: string; path: string };

/** The operations whose responses list `status`, or which take `Idempotency-Key`. */
function operations(doc: Doc, marked: (operation: Doc["paths"][string][string]) => boolean): Marked[] {
  const found: Marked[] = [];
  for (const [template, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (marked(operation)) found.push({ method, template, path: template.replace(/\{[^}]+\}/g, "1") });
    }
  }
  return found;
}

const takesKey = (operation: Doc["paths"][string][string]) =>
  (operation.parameters ?? []).some((parameter) => parameter.name.toLowerCase() === "idempotency-key");

/** A create's request: its valid JSON body, with the key; `changed` alters each string field. */
function create(method: string, template: string, key: string, changed = false): RequestInit {
  const valid = validBody(method, template)!;
  const fields = JSON.parse(valid.body as string) as Record<string, unknown>;
  if (changed) for (const name of Object.keys(fields)) fields[name] = `${fields[name]} (changed)`;
  return {
    method: method.toUpperCase(),
    headers: { "content-type": "application/json", "x-api-key": KEY, "idempotency-key": key },
    body: JSON.stringify(fields),
  };
}

/**
 * What is wrong with an answer of a limited operation: its body against the document, a RateLimit header
 * sent but not listed for its status, or, on a success or the 429, missing. (On Hono an error answer but
 * the 429 goes through the router's error handler and leaves without them: docs/operations.md.)
 */
async function problems(doc: Doc, { method, template }: Marked, response: Response): Promise<string[]> {
  const found = unlistedHeaders(doc, method, template, response);
  const declared = resolvedResponse(doc, doc.paths[template]![method]!.responses[String(response.status)]);
  const listed = Object.keys(declared?.headers ?? {}).map((name) => name.toLowerCase());
  const carries = response.status < 400 || response.status === 429;
  for (const name of ["ratelimit", "ratelimit-policy"]) {
    if (carries && !response.headers.has(name)) found.push(`no ${name} header on ${response.status}`);
    if (!listed.includes(name)) found.push(`${name} not listed for ${response.status}`);
  }
  return [...found, ...(await violations(doc, method, template, response))];
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

describe("the example's rate limit and idempotency keys against its document (openapi-response-validator)", () => {
  it("migrates the stores' tables as rateLimitTable and idempotencyTable write them for SQLite", () => {
    expect(MIGRATIONS).toContain(rateLimitTable(sqliteDialect));
    expect(MIGRATIONS).toContain(idempotencyTable(sqliteDialect));
  });

  for (const version of ["3", "3.1"] as const) {
    const documentOf = async () =>
      version === "3.1"
        ? ((await (await app.request("/openapi.json")).json()) as Doc)
        : (openapi.getGeneratedSchema("3") as unknown as Doc);

    it(`limits every write and only the writes; over the limit each answers its documented 429 (OpenAPI ${version})`, async () => {
      const doc = await documentOf();
      // A 429 with the RateLimit headers: the changes route's 429 (too many open streams) is no rate limit's.
      const limited = operations(doc, (operation) => {
        const tooMany = operation.responses["429"] as { headers?: object } | undefined;
        return tooMany?.headers !== undefined && "RateLimit-Policy" in tooMany.headers;
      });
      const writes = operations(doc, (operation) => (operation.security ?? []).length > 0);
      expect(limited.map((op) => `${op.method} ${op.template}`).sort()).toEqual(
        writes.map((op) => `${op.method} ${op.template}`).sort(),
      );
      expect(limited.length).toBe(7);
      for (const operation of limited) {
        const { sqlite, rows, env } = seeded();
        const before = rows();
        const valid = validBody(operation.method, operation.template);
        const init = (): RequestInit => ({
          method: operation.method.toUpperCase(),
          headers: { "x-api-key": KEY, ...(valid?.type ? { "content-type": valid.type } : {}) },
          body: valid?.body,
        });
        // The bucket's window filled to the limit, as `limit` earlier writes leave it; written again if
        // the window turned between the write and the request (at most twice in a row: a window is 60 s).
        let response: Response | undefined;
        for (let attempt = 1; attempt <= 3 && response?.status !== 429; attempt++) {
          const windowMs = writeLimit.windowSeconds * 1000;
          sqlite
            .prepare(
              "INSERT INTO specroute_rate_limits (bucket, window_start, hits) VALUES (?, ?, ?) ON CONFLICT (bucket) DO UPDATE SET window_start = excluded.window_start, hits = excluded.hits",
            )
            .run(BUCKET, Math.floor(Date.now() / windowMs) * windowMs, writeLimit.limit);
          response = await app.request(operation.path, init(), env);
        }
        const name = `${operation.method} ${operation.path}`;
        expect(response!.status, name).toBe(429);
        expect(Number(response!.headers.get("retry-after")), name).toBeGreaterThan(0);
        expect(response!.headers.get("ratelimit-policy"), name).toBe(`"writes";q=${writeLimit.limit};w=60`);
        expect(response!.headers.get("ratelimit"), name).toMatch(/^"writes";r=0;t=\d+$/);
        expect(await problems(doc, operation, response!), name).toEqual([]);
        expect(rows(), `${name} wrote nothing`).toBe(before);
      }
    });

    it(`a retried create with the same Idempotency-Key gets the same answer and creates once (OpenAPI ${version})`, async () => {
      const doc = await documentOf();
      const creates = operations(doc, takesKey);
      expect(creates.map((op) => `${op.method} ${op.template}`).sort()).toEqual([
        "post /projects",
        "post /projects/{projectId}/tasks",
      ]);
      for (const operation of creates) {
        const { rows, env } = seeded();
        const before = rows();
        const first = await app.request(operation.path, create(operation.method, operation.template, "retry-1"), env);
        expect(first.status).toBe(201);
        const firstBody = await first.clone().text();
        expect(await problems(doc, operation, first)).toEqual([]);
        for (let retry = 0; retry < 3; retry++) {
          const again = await app.request(operation.path, create(operation.method, operation.template, "retry-1"), env);
          expect(again.status).toBe(201);
          expect(await again.clone().text()).toBe(firstBody);
          expect(await problems(doc, operation, again)).toEqual([]);
        }
        expect(rows(), `${operation.path}: one row created`).toBe(before + 1);
        // Without a key, the same create runs again (another body: project names are unique).
        const keyed = create(operation.method, operation.template, "", true);
        const { "idempotency-key": _key, ...unkeyed } = keyed.headers as Record<string, string>;
        for (let run = 1; run <= 2; run++) {
          const body = JSON.stringify(
            Object.fromEntries(Object.entries(JSON.parse(keyed.body as string)).map(([k, v]) => [k, `${v} ${run}`])),
          );
          expect((await app.request(operation.path, { ...keyed, headers: unkeyed, body }, env)).status).toBe(201);
        }
        expect(rows()).toBe(before + 3);
      }
    });

    it(`the same key on another body is its documented 422, and one still running its 409 (OpenAPI ${version})`, async () => {
      const doc = await documentOf();
      for (const operation of operations(doc, takesKey)) {
        const { rows, env } = seeded();
        expect(
          (await app.request(operation.path, create(operation.method, operation.template, "reused"), env)).status,
        ).toBe(201);
        const before = rows();
        const other = await app.request(
          operation.path,
          create(operation.method, operation.template, "reused", true),
          env,
        );
        expect(other.status).toBe(422);
        expect(await problems(doc, operation, other)).toEqual([]);
        expect(rows()).toBe(before);

        // A request holding its key, still running: claimed in the example's store, as the first of two
        // racing requests claims it (the fingerprint is the SHA-256 of method, path and body; the key as
        // stored, the SHA-256 of the caller's scope, its API key scheme and key, with the client's key).
        const running = create(operation.method, operation.template, "running");
        const fingerprint = await sha256(`POST\n${operation.path}\n${running.body as string}`);
        const key = await sha256(JSON.stringify([JSON.stringify(["apiKey", KEY]), "running"]));
        const hold = { key, fingerprint, leaseEnds: Date.now() + 60_000 };
        const claim = await sqlIdempotencyStore(env.DB).claim(hold, { env });
        expect(claim).toEqual({ state: "claimed" });
        const during = await app.request(operation.path, running, env);
        expect(during.status).toBe(409);
        expect(await problems(doc, operation, during)).toEqual([]);
        expect(rows()).toBe(before);
      }
    });
  }
});
