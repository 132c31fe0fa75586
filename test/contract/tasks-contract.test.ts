import Database from "better-sqlite3";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { app, openapi } from "../../examples/tasks/app";
import { MIGRATIONS } from "../../examples/tasks/migrations";
import { betterSqlite3Driver, fromHono, OpenAPIRoute } from "../../src";
import { resolvedResponse } from "../openapi/helpers";
import { callsFor, type Doc, unlistedHeaders, violations } from "./calls";

/**
 * The contract check: every operation of the example is called validly and invalidly, and every answer
 * is checked by an independent validator (openapi-response-validator) against the served document.
 */

const KEY = "contract-key";

/** A database with two projects ("Launch", "Other") and one task of project 1. */
function seededEnv() {
  const sqlite = new Database(":memory:");
  sqlite.pragma("foreign_keys = ON");
  for (const statement of MIGRATIONS) sqlite.exec(statement);
  sqlite.exec("INSERT INTO projects (name) VALUES ('Launch'), ('Other')");
  sqlite.exec("INSERT INTO tasks (projectId, id, title) VALUES (1, 1, 'First')");
  return { DB: betterSqlite3Driver(sqlite), API_KEY: KEY };
}

describe("the example's answers against its served document (openapi-response-validator)", () => {
  for (const version of ["3", "3.1"] as const) {
    it(`lists every status it answers and every body fits its schema (OpenAPI ${version})`, async () => {
      // The served document is the 3.1 one; the 3.0 one is what `specroute openapi --openapi-version 3` writes.
      const served = (await (await app.request("/openapi.json")).json()) as Doc;
      const checked = version === "3.1" ? served : (openapi.getGeneratedSchema("3") as unknown as Doc);
      const found: string[] = [];
      const statuses = new Set<number>();
      let limitedAnswers = 0;
      for (const [template, item] of Object.entries(checked.paths)) {
        for (const [method, operation] of Object.entries(item)) {
          for (const call of callsFor(method, template, operation, KEY)) {
            const response = await app.request(call.path, call.init, seededEnv());
            statuses.add(response.status);
            if (response.headers.has("ratelimit-policy")) limitedAnswers++;
            for (const problem of unlistedHeaders(checked, method, template, response)) {
              found.push(`${method.toUpperCase()} ${call.path} (${call.name}) → ${response.status}: ${problem}`);
            }
            for (const problem of await violations(checked, method, template, response)) {
              found.push(`${method.toUpperCase()} ${call.path} (${call.name}) → ${response.status}: ${problem}`);
            }
          }
        }
      }
      expect(found).toEqual([]);
      // The writes are limited: their counted answers carried the RateLimit headers, listed (checked above).
      expect(limitedAnswers).toBeGreaterThan(0);
      // The calls reached every kind of answer the document promises.
      expect([...statuses].sort()).toEqual([200, 201, 400, 401, 404, 413, 415]);
    });
  }

  it("documents a PATCH that hits a unique name as the 409 it answers", async () => {
    const doc = (await (await app.request("/openapi.json")).json()) as Doc;
    const response = await app.request(
      "/projects/2",
      {
        method: "PATCH",
        headers: { "content-type": "application/json", "x-api-key": KEY },
        body: JSON.stringify({ name: "Launch" }),
      },
      seededEnv(),
    );
    expect(response.status).toBe(409);
    expect(await violations(doc, "patch", "/projects/{id}", response)).toEqual([]);
  });

  it("counts an unlisted status or a body off its schema as a violation, so the check above can fail", async () => {
    const doc = (await (await app.request("/openapi.json")).json()) as Doc;
    const teapot = new Response(JSON.stringify({ success: false }), { status: 418 });
    expect(await violations(doc, "get", "/stats", teapot)).not.toEqual([]);
    const wrongShape = new Response(JSON.stringify({ client: null, counts: { todo: "many" } }), { status: 200 });
    expect(await violations(doc, "get", "/stats", wrongShape)).not.toEqual([]);
  });
});

describe("design-first schemas and negotiated answers against their document (openapi-response-validator)", () => {
  // A plain JSON Schema body (documented as written, not validated) and an answer in JSON or CSV.
  const noteSchema = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
  class SaveNote extends OpenAPIRoute {
    schema = {
      request: { body: { content: { "application/json": { schema: noteSchema } } } },
      responses: { "201": { description: "Stored", content: { "application/json": { schema: noteSchema } } } },
    };
    async handle() {
      const { body } = await this.getValidatedData();
      return Response.json(body, { status: 201 });
    }
  }
  class ListNotes extends OpenAPIRoute {
    schema = {
      responses: {
        "200": {
          description: "Every note",
          content: {
            "application/json": { schema: z.array(z.object({ text: z.string() })) },
            "text/csv": { schema: z.string() },
          },
        },
      },
    };
    async handle() {
      return [{ text: "first" }];
    }
  }
  const toCsv = (rows: unknown) => ["text", ...(rows as Array<{ text: string }>).map((row) => row.text)].join("\n");
  const notes = fromHono(new Hono(), { serializers: { "text/csv": toCsv } });
  notes.post("/notes", SaveNote);
  notes.get("/notes", ListNotes);

  const json = (body: string, type = "application/json"): RequestInit => ({
    method: "POST",
    headers: { "content-type": type },
    body,
  });
  const calls: Array<[method: string, path: string, init: RequestInit, status: number]> = [
    ["post", "/notes", json(JSON.stringify({ text: "hi" })), 201],
    ["post", "/notes", json(""), 400],
    ["post", "/notes", json("<hello/>", "application/xml"), 415],
    ["post", "/notes", json(`"${"x".repeat(1024 * 1024)}"`), 413],
    ["get", "/notes", { headers: { accept: "application/json" } }, 200],
    ["get", "/notes", { headers: { accept: "text/csv" } }, 200],
    ["get", "/notes", { headers: { accept: "application/xml" } }, 406],
  ];

  for (const version of ["3", "3.1"] as const) {
    it(`lists every answer, in the media type it came in (OpenAPI ${version})`, async () => {
      const doc = notes.getGeneratedSchema(version) as unknown as Doc;
      for (const [method, path, init, status] of calls) {
        const response = await notes.request(path, init);
        expect(response.status, `${method} ${path}`).toBe(status);
        const type = response.headers.get("content-type") ?? "";
        if (type.startsWith("text/csv")) {
          // Not JSON: the document must list this media type for the status.
          const documented = resolvedResponse(doc, doc.paths[path]![method]!.responses[String(status)]) as any;
          expect(Object.keys(documented.content)).toContain("text/csv");
          expect(await response.text()).toBe("text\nfirst");
        } else {
          expect(await violations(doc, method, path, response), `${method} ${path} ${status}`).toEqual([]);
        }
      }
    });
  }
});
