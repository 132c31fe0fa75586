import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  apiKeyAuth,
  betterSqlite3Driver,
  contentJson,
  ForbiddenException,
  OpenAPIRoute,
  SqlCreateEndpoint,
  SqlReadEndpoint,
  SqlUpdateEndpoint,
} from "../../src";
import { ERROR_CODES } from "../../src/errors/codes";
import { closeHttpHarnesses, httpHarnesses } from "../helpers";
import { resolvedResponse } from "../openapi/helpers";

// Every status the framework makes on its own, in both error formats, over HTTP on both adapters:
// the status, the code (envelope) or title (problem details), and the operation's documented answer.
afterAll(closeHttpHarnesses);

const Note = z.object({ id: z.number().int(), title: z.string().min(1), version: z.number().int() });
const meta = {
  model: { tableName: "notes", schema: Note, primaryKeys: ["id"], unique: ["title"], versionField: "version" },
  fields: Note.omit({ id: true }),
};
const key = apiKeyAuth({
  in: "header",
  name: "x-key",
  verify: (value) => {
    if (value === "reader") throw new ForbiddenException("Readers cannot write");
    return value === "writer" ? { role: "writer" } : null;
  },
});

class CreateNote extends SqlCreateEndpoint {
  _meta = meta;
  schema = { auth: key };
}
class ReadNote extends SqlReadEndpoint {
  _meta = meta;
}
class StrictUpdate extends SqlUpdateEndpoint {
  _meta = meta;
  requireIfMatch = true;
}
/** Answers a body its own schema refuses: with `validateResponse`, the framework's hidden 500. */
class Broken extends OpenAPIRoute {
  schema = { responses: { "200": { description: "A count", ...contentJson(z.object({ count: z.number() })) } } };
  async handle() {
    return { count: "many" };
  }
}

/** A request the framework answers on its own, and what it must answer. */
interface Case {
  name: keyof typeof ERROR_CODES;
  status: number;
  method: "get" | "post" | "patch";
  /** The route as the document writes it. */
  documentedPath: string;
  path: string;
  init?: RequestInit;
}

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  headers: { "content-type": "application/json", "x-key": "writer", ...headers },
  body: JSON.stringify(body),
});

const cases: Case[] = [
  {
    name: "InputValidationException",
    status: 400,
    method: "post",
    documentedPath: "/notes",
    path: "/notes",
    init: json({ title: "" }),
  },
  {
    name: "UnauthorizedException",
    status: 401,
    method: "post",
    documentedPath: "/notes",
    path: "/notes",
    init: { ...json({ title: "a" }), headers: { "content-type": "application/json" } },
  },
  {
    name: "ForbiddenException",
    status: 403,
    method: "post",
    documentedPath: "/notes",
    path: "/notes",
    init: json({ title: "a" }, { "x-key": "reader" }),
  },
  { name: "NotFoundException", status: 404, method: "get", documentedPath: "/notes/{id}", path: "/notes/999" },
  {
    name: "ConflictException",
    status: 409,
    method: "post",
    documentedPath: "/notes",
    path: "/notes",
    init: json({ title: "taken" }),
  },
  {
    name: "PreconditionFailedException",
    status: 412,
    method: "patch",
    documentedPath: "/notes/{id}",
    path: "/notes/1",
    init: json({ title: "new" }, { "if-match": '"stale"' }),
  },
  {
    name: "PreconditionRequiredException",
    status: 428,
    method: "patch",
    documentedPath: "/notes/{id}",
    path: "/notes/1",
    init: json({ title: "new" }),
  },
  {
    name: "PayloadTooLargeException",
    status: 413,
    method: "post",
    documentedPath: "/notes",
    path: "/notes",
    init: json({ title: "x".repeat(2048) }),
  },
  {
    name: "UnsupportedMediaTypeException",
    status: 415,
    method: "post",
    documentedPath: "/notes",
    path: "/notes",
    init: { headers: { "content-type": "application/xml", "x-key": "writer" }, body: "<title/>" },
  },
  // An answer its own schema refuses: a hidden 500, documented only where the app writes one.
  { name: "ResponseValidationException", status: 500, method: "get", documentedPath: "/broken", path: "/broken" },
];

for (const harness of httpHarnesses) {
  for (const errorFormat of ["envelope", "problem"] as const) {
    describe(`every status the framework answers: ${harness.name}, ${errorFormat}`, () => {
      const db = new Database(":memory:");
      db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, version INTEGER NOT NULL)");
      db.exec("INSERT INTO notes (id, title, version) VALUES (1, 'taken', 1)");
      const app = harness.make({ errorFormat, db: betterSqlite3Driver(db), maxBodySize: 1024, validateResponse: true });
      app.router.post("/notes", CreateNote);
      app.router.get("/notes/:id", ReadNote);
      app.router.patch("/notes/:id", StrictUpdate);
      app.router.get("/broken", Broken);
      const doc = app.router.getGeneratedSchema() as any;
      afterAll(() => db.close());

      for (const one of cases) {
        it(`${one.status} ${one.name.replace(/Exception$/, "")}: ${one.method.toUpperCase()} ${one.path}`, async () => {
          const original = console.error;
          console.error = () => {};
          let response: Response;
          try {
            response = await app.request(one.path, { method: one.method.toUpperCase(), ...one.init });
          } finally {
            console.error = original;
          }
          expect(response.status).toBe(one.status);
          const body = await response.json();
          const entry = ERROR_CODES[one.name];
          if (errorFormat === "problem") {
            expect(response.headers.get("content-type")).toContain("application/problem+json");
            expect(body).toMatchObject({ title: entry.message, status: one.status });
          } else {
            expect(body.success).toBe(false);
            expect(body.errors[0].code).toBe(entry.code);
          }
          const documented = doc.paths[one.documentedPath][one.method].responses[String(one.status)];
          if (one.status === 500) {
            expect(documented).toBeUndefined();
            expect(response.headers.get("x-request-id")).toBeTruthy();
          } else {
            const mediaType = errorFormat === "problem" ? "application/problem+json" : "application/json";
            expect(resolvedResponse(doc, documented)?.content?.[mediaType]).toBeDefined();
          }
        });
      }
    });
  }
}
