import type pg from "pg";
import { pgDriver } from "specroute";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { app, type Env } from "../src/app";
import { migrate, openPool } from "../src/database";

// The tests run on the database at DATABASE_URL, in a schema of their own that they drop at the end,
// so the tables the server uses there are never touched.
const url = process.env.DATABASE_URL;
if (!url) throw new Error("The tests need PostgreSQL: run DATABASE_URL=postgres://user:password@host:5432/db npm test");
const schema = `test_${process.pid}_${Date.now()}`;
let pool: pg.Pool;
let env: Env;

beforeAll(async () => {
  const admin = openPool(url, { max: 1 });
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  pool = openPool(url, { options: `-c search_path=${schema}` });
  await migrate(pool);
  env = { DB: pgDriver(pool) };
});

afterAll(async () => {
  await pool?.query(`DROP SCHEMA ${schema} CASCADE`);
  await pool?.end();
});
const call = (path: string, init?: RequestInit) => app.request(path, init, env);
const send = (method: string, body: unknown): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});
// The answers' JSON, read loosely: each test says what it expects of it.
const json = async (response: Response | Promise<Response>): Promise<any> => (await response).json();

describe("GET /hello", () => {
  it("greets the name it is given, or the world", async () => {
    expect(await json(call("/hello?name=Ada"))).toEqual({ greeting: "Hello, Ada!" });
    expect(await json(call("/hello"))).toEqual({ greeting: "Hello, world!" });
  });

  it("answers 400 naming the field when the name is too long", async () => {
    const response = await call(`/hello?name=${"a".repeat(101)}`);
    expect(response.status).toBe(400);
    expect((await json(response)).errors[0].path).toEqual(["query", "name"]);
  });
});

describe("notes", () => {
  it("creates, reads, changes, lists and deletes a note", async () => {
    const created = await call("/notes", send("POST", { text: "Write the docs" }));
    expect(created.status).toBe(201);
    const { result: note } = await json(created);
    expect(note).toEqual({ id: expect.any(Number), text: "Write the docs", done: false });

    expect((await json(call(`/notes/${note.id}`))).result).toEqual(note);
    const changed = await call(`/notes/${note.id}`, send("PATCH", { done: true }));
    expect((await json(changed)).result).toEqual({ ...note, done: true });
    expect((await json(call("/notes?done=true"))).result).toContainEqual({ ...note, done: true });

    expect((await call(`/notes/${note.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await call(`/notes/${note.id}`)).status).toBe(404);
  });

  it("refuses a note without text", async () => {
    const response = await call("/notes", send("POST", { done: true }));
    expect(response.status).toBe(400);
    expect((await json(response)).errors[0].path).toEqual(["body", "text"]);
  });
});

it("documents every route in its OpenAPI document", async () => {
  const document = await json(call("/openapi.json"));
  expect(Object.keys(document.paths)).toEqual(["/hello", "/notes", "/notes/{id}"]);
});
