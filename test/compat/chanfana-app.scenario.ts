import { expect } from "vitest";
import { documentErrors } from "../helpers";

type Fetch = (path: string, init?: RequestInit) => Promise<Response>;

export const API_TOKEN = "shelf-key";

const send = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

const BOOKS = [
  { title: "Dune", author: "Frank Herbert", genre: "fiction", year: 1965 },
  { title: "A Brief History of Time", author: "Stephen Hawking", genre: "science", year: 1988 },
  { title: "The Guns of August", author: "Barbara Tuchman", genre: "history", year: 1962 },
  { title: "Dune Messiah", author: "Frank Herbert", genre: "fiction", year: 1969 },
  { title: "Cosmos", author: "Carl Sagan", genre: "science", year: 1980 },
  { title: "SPQR", author: "Mary Beard", genre: "history", year: 2015 },
  { title: "Neuromancer", author: "William Gibson", genre: "fiction", year: 1984 },
];

const ids = async (response: Response) => (await response.json()).result.map((book: { id: number }) => book.id);

/** The library app's life on one runtime: every call goes through the /api base path. */
export async function runChanfanaAppScenario(fetch: Fetch): Promise<void> {
  await crudThroughTheBasePath(fetch);
  await listingWithTheAppsOwnParameterNames(fetch);
  await customExceptionsAndErrorHooks(fetch);
  await bearerSecurityCheckedInHandle(fetch);
  await theDocumentAndTheDocsPage(fetch);
}

/**
 * A handler that reads `c.req.json()` itself after `getValidatedData()`. Kept apart from the scenario
 * above because chanfana 3.3 fails it: it consumes the raw request body, so the handler's read throws (a 500).
 */
export async function runBodyRereadScenario(fetch: Fetch): Promise<void> {
  const record = { title: "Foundation", author: "Isaac Asimov", genre: "fiction", year: 1951, isbn: "0-553-29335-4" };
  const imported = await fetch("/api/books/import", send("POST", record));
  expect(imported.status).toBe(201);
  expect(await imported.json()).toEqual({
    success: true,
    result: { id: expect.any(Number), title: "Foundation", author: "Isaac Asimov", genre: "fiction", year: 1951 },
    ignored: ["isbn"],
  });
  expect((await (await fetch("/api/books?q=asimov")).json()).result).toHaveLength(1);
}

async function crudThroughTheBasePath(fetch: Fetch) {
  for (const [index, book] of BOOKS.entries()) {
    const created = await fetch("/api/books", send("POST", book));
    expect(created.status).toBe(201);
    expect(await created.json()).toEqual({ success: true, result: { id: index + 1, ...book } });
  }

  const read = await fetch("/api/books/2");
  expect(read.status).toBe(200);
  expect(await read.json()).toEqual({ success: true, result: { id: 2, ...BOOKS[1] } });

  const missing = await fetch("/api/books/99");
  expect(missing.status).toBe(404);
  expect(await missing.json()).toEqual({ success: false, errors: [{ code: 7002, message: "Not Found" }], result: {} });

  const invalid = await fetch("/api/books", send("POST", { ...BOOKS[0], title: "" }));
  expect(invalid.status).toBe(400);
  const invalidBody = await invalid.json();
  expect(invalidBody.success).toBe(false);
  expect(invalidBody.errors).toEqual([expect.objectContaining({ code: 7001, path: ["body", "title"] })]);

  const revised = { ...BOOKS[4], title: "Cosmos (revised)", year: 2013 };
  const updated = await fetch("/api/books/5", send("PUT", revised));
  expect(updated.status).toBe(200);
  expect(await updated.json()).toEqual({ success: true, result: { id: 5, ...revised } });

  const deleted = await fetch("/api/books/7", { method: "DELETE" });
  expect(deleted.status).toBe(200);
  expect(await deleted.json()).toEqual({ success: true, result: { id: 7, ...BOOKS[6] } });
  expect((await fetch("/api/books/7")).status).toBe(404);

  // Without the base path nothing answers.
  expect((await fetch("/books/1")).status).toBe(404);
}

async function listingWithTheAppsOwnParameterNames(fetch: Fetch) {
  // Six books remain: 1..6, book 5 now from 2013.
  const page = await fetch("/api/books?p=2&size=5&order=year&dir=desc");
  expect(page.status).toBe(200);
  const body = await page.json();
  expect(body.result.map((book: { title: string }) => book.title)).toEqual(["The Guns of August"]);
  expect(body.result_info).toEqual({ count: 1, page: 2, per_page: 5, total_count: 6 });

  expect(await ids(await fetch("/api/books?size=5&order=year&dir=desc"))).toEqual([6, 5, 2, 4, 1]);
  expect(await ids(await fetch("/api/books?genre=fiction"))).toEqual([1, 4]);
  expect(await ids(await fetch("/api/books?author=Mary%20Beard"))).toEqual([6]);
  expect(await ids(await fetch("/api/books?q=dune&order=title&dir=desc"))).toEqual([4, 1]);
  expect(await ids(await fetch("/api/books?q=HAWKING"))).toEqual([2]);
  expect(await ids(await fetch("/api/books?genre=science&q=cosmos"))).toEqual([5]);

  const badPage = await fetch("/api/books?p=0");
  expect(badPage.status).toBe(400);
  expect((await badPage.json()).errors).toEqual([expect.objectContaining({ code: 7001, path: ["query", "p"] })]);
  const badSize = await fetch("/api/books?size=101");
  expect(badSize.status).toBe(400);
  expect((await badSize.json()).errors).toEqual([expect.objectContaining({ code: 7001, path: ["query", "size"] })]);
  const badOrder = await fetch("/api/books?order=author");
  expect(badOrder.status).toBe(400);
  expect((await badOrder.json()).errors).toEqual([expect.objectContaining({ code: 7001, path: ["query", "order"] })]);
}

async function customExceptionsAndErrorHooks(fetch: Fetch) {
  const tea = await fetch("/api/brew?drink=tea");
  expect(tea.status).toBe(200);
  expect(await tea.json()).toEqual({ success: true, result: { drink: "tea" } });

  const coffee = await fetch("/api/brew?drink=coffee");
  expect(coffee.status).toBe(418);
  expect(coffee.headers.get("content-type")).toMatch(/^application\/json/);
  expect(await coffee.json()).toEqual({
    success: false,
    errors: [{ code: 7418, message: "I am a teapot" }],
    result: {},
  });

  // The endpoint's handleError turns chanfana exceptions into the app's own error, which app.onError renders.
  const legacy = await fetch("/api/legacy/books/1");
  expect(legacy.status).toBe(200);
  expect(await legacy.json()).toEqual({ ok: true, book: { title: "Dune", author: "Frank Herbert" } });
  const legacyMissing = await fetch("/api/legacy/books/99");
  expect(legacyMissing.status).toBe(404);
  expect(await legacyMissing.json()).toEqual({ ok: false, error: { code: 7002, message: "No book with id 99" } });
  // Validation failures reach handleError as an ApiException too (chanfana's MultiException, code 7000).
  const legacyInvalid = await fetch("/api/legacy/books/abc");
  expect(legacyInvalid.status).toBe(400);
  expect(await legacyInvalid.json()).toEqual({ ok: false, error: { code: 7000, message: expect.any(String) } });
}

async function bearerSecurityCheckedInHandle(fetch: Fetch) {
  const anonymous = await fetch("/api/me");
  expect(anonymous.status).toBe(401);
  expect(await anonymous.json()).toEqual({
    success: false,
    errors: [{ code: 7003, message: "A valid bearer token is required" }],
    result: {},
  });
  expect((await fetch("/api/me", { headers: { authorization: "Bearer wrong" } })).status).toBe(401);

  const known = await fetch("/api/me", { headers: { authorization: `Bearer ${API_TOKEN}` } });
  expect(known.status).toBe(200);
  expect(await known.json()).toEqual({ success: true, result: { user: "librarian" } });
}

async function theDocumentAndTheDocsPage(fetch: Fetch) {
  const served = await fetch("/api/openapi.json");
  expect(served.status).toBe(200);
  const doc = await served.json();
  expect(await documentErrors(doc)).toBeNull();
  expect(doc.info).toMatchObject({ title: "Library API", version: "1.0.0" });
  expect(Object.keys(doc.paths).sort()).toEqual([
    "/api/books",
    "/api/books/import",
    "/api/books/{id}",
    "/api/brew",
    "/api/legacy/books/{id}",
    "/api/me",
  ]);
  expect(Object.keys(doc.paths["/api/books/{id}"]).sort()).toEqual(["delete", "get", "put"]);

  expect(doc.components.securitySchemes).toEqual({ bearerAuth: { type: "http", scheme: "bearer" } });
  expect(doc.paths["/api/me"].get.security).toEqual([{ bearerAuth: [] }]);
  expect(doc.paths["/api/me"].get.responses["401"]).toBeDefined();
  expect(doc.paths["/api/books"].get.security).toBeUndefined();

  const teapot = doc.paths["/api/brew"].get.responses["418"];
  expect(teapot.description).toBe("I am a teapot");
  expect(teapot.content["application/json"].schema).toBeDefined();

  const listParameters = doc.paths["/api/books"].get.parameters;
  expect(listParameters.every((parameter: { in: string }) => parameter.in === "query")).toBe(true);
  expect(listParameters.map((parameter: { name: string }) => parameter.name).sort()).toEqual(
    ["author", "dir", "genre", "order", "p", "q", "size"].sort(),
  );

  const docs = await fetch("/api/docs");
  expect(docs.status).toBe(200);
  const page = await docs.text();
  expect(page).toContain("swagger-ui");
  // Swagger UI loads the document from the page's `url:`, relative to /api/docs if relative.
  const documentUrl = page.match(/url:\s*["']([^"']+)["']/)?.[1];
  expect(documentUrl && new URL(documentUrl, "http://localhost/api/docs").pathname).toBe("/api/openapi.json");
}
