// Issue #41, finding 13: a collection route (List, Create, Changes) is scoped by the URL parameters that
// are model fields, whatever `pathParameters` says. chanfana's List and Create take their path keys from
// the route's own URL (its router's base included) and never read `pathParameters`, so a Meta naming only
// the collection's parameters, `pathParameters: ["owner"]` at `/u/:owner/notes`, is scoped there; it must
// be here too, on every storage engine, over real HTTP, as a client on another owner's path acts.
import Database from "better-sqlite3";
import { Hono } from "hono";
import { Router } from "itty-router";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  betterSqlite3Driver,
  changeFeed,
  fromHono,
  fromIttyRouter,
  mysql2Driver,
  pgDriver,
  SqlChangesEndpoint,
  SqlCreateEndpoint,
  type SqlDriver,
  SqlListEndpoint,
  SqlReadEndpoint,
} from "../../src";
import { mariadbDialect } from "../../src/sql";
import { documentErrors, jsonBody, listenOnLoopback } from "../helpers";

const Note = z.object({ id: z.number().int(), owner: z.string(), text: z.string() });

const closers: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

const engines: Array<{ name: string; open(): Promise<SqlDriver> }> = [
  {
    name: "SQLite (better-sqlite3)",
    async open() {
      const db = new Database(":memory:");
      closers.push(() => {
        db.close();
      });
      return betterSqlite3Driver(db);
    },
  },
];
const pgUrl = process.env.SPECROUTE_PG_URL;
if (pgUrl) {
  let pool: SqlDriver | undefined;
  engines.push({
    name: "PostgreSQL",
    async open() {
      if (!pool) {
        pool = pgDriver(new pg.Pool({ connectionString: pgUrl, max: 4 }));
        const driver = pool;
        closers.push(() => driver.close!());
      }
      return pool;
    },
  });
}
const mysqlUrl = process.env.SPECROUTE_MYSQL_URL;
if (mysqlUrl) {
  let pool: SqlDriver | undefined;
  engines.push({
    name: "MariaDB",
    async open() {
      if (!pool) {
        pool = mysql2Driver(mysql.createPool({ uri: mysqlUrl, connectionLimit: 4 }), { dialect: mariadbDialect });
        const driver = pool;
        closers.push(() => driver.close!());
      }
      return pool;
    },
  });
}

let tables = 0;

/** A notes table of the test's own on `driver`. */
async function notesTable(driver: SqlDriver): Promise<string> {
  const table = `scope_notes_${process.pid}_${++tables}`;
  const id = {
    sqlite: "INTEGER PRIMARY KEY AUTOINCREMENT",
    postgres: "SERIAL PRIMARY KEY",
    mysql: "INT AUTO_INCREMENT PRIMARY KEY",
  }[driver.dialect.name === "postgres" ? "postgres" : driver.dialect.name === "sqlite" ? "sqlite" : "mysql"];
  await driver.execute(`DROP TABLE IF EXISTS ${table}`, []);
  await driver.execute(`CREATE TABLE ${table} (id ${id}, owner VARCHAR(40) NOT NULL, text VARCHAR(200) NOT NULL)`, []);
  closers.push(() => driver.execute(`DROP TABLE IF EXISTS ${table}`, []).then(() => undefined));
  return table;
}

/** The notes API of one owner per path, over `pathParameters` as given (absent when undefined). */
async function notesApi(driver: SqlDriver, pathParameters: string[] | undefined) {
  const table = await notesTable(driver);
  const meta = {
    model: { tableName: table, schema: Note, primaryKeys: ["id"] },
    fields: Note.omit({ id: true }),
    ...(pathParameters ? { pathParameters } : {}),
    changes: changeFeed({ heartbeatMs: 60_000 }),
  };
  class ListNotes extends SqlListEndpoint {
    _meta = meta;
  }
  class CreateNote extends SqlCreateEndpoint {
    _meta = meta;
  }
  class NoteChanges extends SqlChangesEndpoint {
    _meta = meta;
  }
  const app = new Hono();
  fromHono(app, { db: driver })
    .get("/u/:owner/notes", ListNotes)
    .post("/u/:owner/notes", CreateNote)
    .get("/u/:owner/notes/changes", NoteChanges);
  return serve(app, driver, table);
}

/** How a nested router is mounted at `/u/:owner/notes`: Hono's `route()`, itty-router's `route()` or `all()`. */
type NestedMount = "hono route()" | "itty-router route()" | "itty-router all()";

/**
 * The notes API of `notesApi` in a nested router mounted at `/u/:owner/notes`, the layout of docs/crud.md's
 * path-scope example: the owner is a parameter of the mount's path only.
 */
async function nestedNotesApi(driver: SqlDriver, pathParameters: string[] | undefined, mount: NestedMount) {
  const table = await notesTable(driver);
  const meta = {
    model: { tableName: table, schema: Note, primaryKeys: ["id"] },
    fields: Note.omit({ id: true }),
    ...(pathParameters ? { pathParameters } : {}),
    changes: changeFeed({ heartbeatMs: 60_000 }),
  };
  class ListNotes extends SqlListEndpoint {
    _meta = meta;
  }
  class CreateNote extends SqlCreateEndpoint {
    _meta = meta;
  }
  class NoteChanges extends SqlChangesEndpoint {
    _meta = meta;
  }
  if (mount === "hono route()") {
    const app = new Hono();
    const nested = fromHono(new Hono(), { db: driver })
      .get("/", ListNotes)
      .post("/", CreateNote)
      .get("/changes", NoteChanges);
    fromHono(app, { db: driver }).route("/u/:owner/notes", nested);
    return serve(app, driver, table);
  }
  const router = Router();
  const nested =
    mount === "itty-router route()"
      ? fromIttyRouter(Router(), { db: driver })
      : fromIttyRouter(Router({ base: "/u/:owner/notes" }), { db: driver, base: "/u/:owner/notes" });
  nested.get("/", ListNotes).post("/", CreateNote).get("/changes", NoteChanges);
  const parent = fromIttyRouter(router, { db: driver });
  if (mount === "itty-router route()") parent.route("/u/:owner/notes", nested);
  else parent.all("/u/:owner/notes/*", nested);
  return serve(
    { fetch: async (request, env) => (await router.fetch(request, env)) ?? new Response("no route", { status: 404 }) },
    driver,
    table,
  );
}

async function serve(
  app: { fetch(request: Request, env: unknown): Response | Promise<Response> },
  driver: SqlDriver,
  table: string,
) {
  const server = await listenOnLoopback((request, env) => app.fetch(request, env));
  closers.push(() => server.close());
  const { origin } = server;
  return {
    origin,
    table,
    create: (owner: string, body: object) => fetch(`${origin}/u/${owner}/notes`, jsonBody(body)),
    list: async (owner: string) => (await (await fetch(`${origin}/u/${owner}/notes`)).json()) as any,
    stored: () => driver.query(`SELECT owner, text FROM ${table} ORDER BY id`, []),
    document: async () => (await (await fetch(`${origin}/openapi.json`)).json()) as any,
  };
}

/** The `data` of the next `count` events of a Server-Sent Events response (comments skipped). */
async function events(response: Response, count: number): Promise<any[]> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  const found: any[] = [];
  let buffered = "";
  while (found.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += value;
    let end = buffered.indexOf("\n\n");
    while (end >= 0 && found.length < count) {
      const data = buffered
        .slice(0, end)
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trimStart());
      if (data.length > 0) found.push(JSON.parse(data.join("\n")));
      buffered = buffered.slice(end + 2);
      end = buffered.indexOf("\n\n");
    }
  }
  await reader.cancel();
  return found;
}

describe.each(engines)("path scope on $name", (engine) => {
  describe.each([
    ["naming only the collection's parameter", ["owner"]],
    ["naming the object's full path", ["owner", "id"]],
    ["left out", undefined],
  ] as const)("pathParameters %s", (_, pathParameters) => {
    const api = async () => notesApi(await engine.open(), pathParameters as string[] | undefined);

    it("lists only the notes of the owner the URL names", async () => {
      const notes = await api();
      // Each body names its own owner too: a route that reads the owner from the body still gets one.
      expect((await notes.create("alice", { owner: "alice", text: "alice's secret" })).status).toBe(201);
      expect((await notes.create("mallory", { owner: "mallory", text: "mallory's own" })).status).toBe(201);
      const listed = await notes.list("mallory");
      expect(listed.result.map((note: { owner: string; text: string }) => [note.owner, note.text])).toEqual([
        ["mallory", "mallory's own"],
      ]);
      expect(listed.result_info.total_count).toBe(1);
    });

    it("creates a note owned by the URL's owner, whatever owner the body names", async () => {
      const notes = await api();
      const created = await notes.create("mallory", { owner: "alice", text: "planted" });
      expect(created.status).toBe(201);
      expect(((await created.json()) as any).result.owner).toBe("mallory");
      expect(await notes.stored()).toEqual([{ owner: "mallory", text: "planted" }]);
    });

    it("streams only the changes of the owner the URL names", async () => {
      const notes = await api();
      const listening = await fetch(`${notes.origin}/u/mallory/notes/changes`);
      expect(listening.status).toBe(200);
      expect((await notes.create("alice", { owner: "alice", text: "alice's secret" })).status).toBe(201);
      expect((await notes.create("mallory", { owner: "mallory", text: "mallory's own" })).status).toBe(201);
      const [first] = await events(listening, 1);
      expect(first.object).toMatchObject({ owner: "mallory", text: "mallory's own" });
    });

    it("documents the owner as a path parameter of each collection route", async () => {
      const doc = await (await api()).document();
      expect(await documentErrors(doc)).toBeNull();
      for (const [path, method] of [
        ["/u/{owner}/notes", "get"],
        ["/u/{owner}/notes", "post"],
        ["/u/{owner}/notes/changes", "get"],
      ] as const) {
        const parameters = doc.paths[path][method].parameters ?? [];
        expect(parameters.filter((p: { in: string }) => p.in === "path").map((p: { name: string }) => p.name)).toEqual([
          "owner",
        ]);
      }
      const body = doc.paths["/u/{owner}/notes"].post.requestBody.content["application/json"].schema;
      expect(Object.keys(body.properties)).toEqual(["text"]);
    });
  });

  // chanfana's List and Create read only the URL parameters of the path they were registered at on their own
  // router: mounted at /u/:owner/notes, they list every owner's notes and store the owner the body names.
  // specroute scopes them by every parameter of the full path, as it scopes a flat route.
  describe.each([
    ["naming only the collection's parameter", ["owner"]],
    ["naming the object's full path", ["owner", "id"]],
    ["left out", undefined],
  ] as const)("in a nested router, pathParameters %s", (_, pathParameters) => {
    describe.each(["hono route()", "itty-router route()", "itty-router all()"] as const)("mounted with %s", (mount) => {
      const api = async () => nestedNotesApi(await engine.open(), pathParameters as string[] | undefined, mount);

      it("lists only the notes of the owner the mount's path names", async () => {
        const notes = await api();
        expect((await notes.create("alice", { owner: "alice", text: "alice's secret" })).status).toBe(201);
        expect((await notes.create("mallory", { owner: "mallory", text: "mallory's own" })).status).toBe(201);
        const listed = await notes.list("mallory");
        expect(listed.result.map((note: { owner: string; text: string }) => [note.owner, note.text])).toEqual([
          ["mallory", "mallory's own"],
        ]);
      });

      it("creates a note owned by the mount path's owner, whatever owner the body names", async () => {
        const notes = await api();
        const created = await notes.create("mallory", { owner: "alice", text: "planted" });
        expect(created.status).toBe(201);
        expect(((await created.json()) as any).result.owner).toBe("mallory");
        expect(await notes.stored()).toEqual([{ owner: "mallory", text: "planted" }]);
      });

      it("streams only the changes of the owner the mount's path names", async () => {
        const notes = await api();
        const listening = await fetch(`${notes.origin}/u/mallory/notes/changes`);
        expect(listening.status).toBe(200);
        expect((await notes.create("alice", { owner: "alice", text: "alice's secret" })).status).toBe(201);
        expect((await notes.create("mallory", { owner: "mallory", text: "mallory's own" })).status).toBe(201);
        const [first] = await events(listening, 1);
        expect(first.object).toMatchObject({ owner: "mallory", text: "mallory's own" });
      });

      it("documents the owner as a path parameter of each collection route, and not in the body", async () => {
        const doc = await (await api()).document();
        expect(await documentErrors(doc)).toBeNull();
        for (const [path, method] of [
          ["/u/{owner}/notes", "get"],
          ["/u/{owner}/notes", "post"],
          ["/u/{owner}/notes/changes", "get"],
        ] as const) {
          const parameters = doc.paths[path][method].parameters ?? [];
          const inPath = parameters.filter((p: { in: string }) => p.in === "path").map((p: { name: string }) => p.name);
          expect(inPath).toEqual(["owner"]);
        }
        const body = doc.paths["/u/{owner}/notes"].post.requestBody.content["application/json"].schema;
        expect(Object.keys(body.properties)).toEqual(["text"]);
      });
    });
  });

  // MariaDB's default collations compare text ignoring case, accents and trailing spaces: a check in before()
  // that the owner is "Bob" must not let the SQL list "bob"'s rows too, nor the changes stream disagree with it.
  it("scopes by the path's owner exactly: another case, accent or trailing space is another owner", async () => {
    const notes = await notesApi(await engine.open(), undefined);
    for (const owner of ["bob", "Bob", "bób", "bob "]) {
      expect((await notes.create(encodeURIComponent(owner), { text: `${owner}'s note` })).status).toBe(201);
    }
    for (const owner of ["bob", "Bob", "bób", "bob "]) {
      const listed = await notes.list(encodeURIComponent(owner));
      expect(listed.result.map((note: { owner: string }) => note.owner)).toEqual([owner]);
      expect(listed.result_info.total_count).toBe(1);
    }
    const listening = await fetch(`${notes.origin}/u/Bob/notes/changes`);
    expect((await notes.create("bob", { text: "bob's second" })).status).toBe(201);
    expect((await notes.create("Bob", { text: "Bob's second" })).status).toBe(201);
    const [first] = await events(listening, 1);
    expect(first.object).toMatchObject({ owner: "Bob", text: "Bob's second" });
  });

  it("scopes a collection by a parameter of its router's base, as chanfana does", async () => {
    const driver = await engine.open();
    const table = await notesTable(driver);
    const meta = { model: { tableName: table, schema: Note, primaryKeys: ["id"] }, fields: Note.omit({ id: true }) };
    class ListNotes extends SqlListEndpoint {
      _meta = meta;
    }
    class CreateNote extends SqlCreateEndpoint {
      _meta = meta;
    }
    const app = new Hono();
    fromHono(app, { db: driver, base: "/u/:owner" }).get("/notes", ListNotes).post("/notes", CreateNote);
    const notes = await serve(app, driver, table);
    expect((await notes.create("alice", { owner: "alice", text: "alice's secret" })).status).toBe(201);
    expect((await notes.create("mallory", { owner: "alice", text: "planted" })).status).toBe(201);
    expect(await notes.stored()).toEqual([
      { owner: "alice", text: "alice's secret" },
      { owner: "mallory", text: "planted" },
    ]);
    expect((await notes.list("mallory")).result.map((note: { text: string }) => note.text)).toEqual(["planted"]);
  });

  it("scopes a nested router's collection by the mount's parameter that pathParameters names", async () => {
    const driver = await engine.open();
    const table = await notesTable(driver);
    const meta = {
      model: { tableName: table, schema: Note, primaryKeys: ["id"] },
      fields: Note.omit({ id: true }),
      pathParameters: ["owner", "id"],
    };
    class ListNotes extends SqlListEndpoint {
      _meta = meta;
    }
    class CreateNote extends SqlCreateEndpoint {
      _meta = meta;
    }
    class ReadNote extends SqlReadEndpoint {
      _meta = { ...meta, model: { ...meta.model, primaryKeys: ["owner", "id"] } };
    }
    const app = new Hono();
    const nested = fromHono(new Hono(), { db: driver }).get("/", ListNotes).post("/", CreateNote).get("/:id", ReadNote);
    fromHono(app, { db: driver }).route("/u/:owner/notes", nested);
    const notes = await serve(app, driver, table);
    expect((await notes.create("alice", { text: "alice's secret" })).status).toBe(201);
    expect((await notes.create("mallory", { owner: "alice", text: "planted" })).status).toBe(201);
    expect((await notes.list("mallory")).result.map((note: { owner: string }) => note.owner)).toEqual(["mallory"]);
    expect((await fetch(`${notes.origin}/u/mallory/notes/1`)).status).toBe(404);
  });
});
