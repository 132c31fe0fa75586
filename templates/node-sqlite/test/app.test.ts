import { beforeEach, describe, expect, it } from "vitest";
import { app, type Env } from "../src/app";
import { openDatabase } from "../src/database";

// Each test gets a database of its own, in memory.
let env: Env;
beforeEach(() => {
  env = { DB: openDatabase(":memory:") };
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
