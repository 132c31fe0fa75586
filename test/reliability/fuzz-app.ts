import Database from "better-sqlite3";
import { Hono } from "hono";
import { Router } from "itty-router";
import { z } from "zod";
import {
  betterSqlite3Driver,
  contentForm,
  contentJson,
  contentMultipart,
  fileField,
  fromHono,
  fromIttyRouter,
  NotFoundException,
  OpenAPIRoute,
  renderException,
  SqlCreateEndpoint,
  SqlDeleteEndpoint,
  SqlListEndpoint,
  SqlReadEndpoint,
  SqlUpdateEndpoint,
} from "../../src";

/**
 * The fuzzing target: one hand-written endpoint declaring every request part and every parameter
 * type of the spec's table, plus the five auto endpoints over a real SQLite database.
 */

export const Address = z.object({ city: z.string().min(1).max(40), zip: z.string().regex(/^\d{5}$/) }).strict();
const ip = z.union([z.ipv4(), z.ipv6()]);

export const EverythingBody = z.object({
  name: z.string().min(1).max(50),
  email: z.email(),
  age: z.number().int().min(0).max(150).optional(),
  score: z.number().min(-1000).max(1000).default(0),
  tags: z.array(z.string().min(1).max(12)).max(5).default([]),
  address: Address.optional(),
  prefs: z
    .object({ newsletter: z.boolean(), volume: z.number().int().min(0).max(10) })
    .partial()
    .default({}),
  nickname: z.string().max(20).nullable(),
  role: z.enum(["admin", "member"]).default("member"),
  ip: ip.optional(),
  website: z.url().optional(),
  born: z.iso.date().optional(),
  seen: z.iso.datetime().optional(),
  alarm: z.iso.time().optional(),
});

export const EverythingQuery = z.object({
  code: z.string().length(5).startsWith("ab").optional(),
  file: z.string().max(30).endsWith(".txt").optional(),
  word: z
    .string()
    .min(2)
    .max(20)
    .regex(/^[a-z]+$/)
    .optional(),
  limit: z.number().int().positive().max(100).default(10),
  offset: z.number().int().min(0).optional(),
  delta: z.number().int().negative().optional(),
  ratio: z.number().min(0).max(1).optional(),
  flag: z.boolean().default(false),
  color: z.enum(["red", "green", "blue"]).default("red"),
  level: z
    .enum(["low", "high"])
    .transform((level) => (level === "low" ? 1 : 2))
    .optional(),
  mode: z
    .preprocess((value) => (typeof value === "string" ? value.toLowerCase() : value), z.enum(["fast", "slow"]))
    .optional(),
  tags: z.array(z.string().min(1).max(10)).min(1).max(5).optional(),
  ids: z.array(z.number().int()).nonempty().max(20).optional(),
  email: z.email().optional(),
  site: z.url().optional(),
  uid: z.uuid().optional(),
  v4: z.ipv4().optional(),
  v6: z.ipv6().optional(),
  ip: ip.optional(),
  at: z.iso.datetime().optional(),
  day: z.iso.date().optional(),
  time: z.iso.time().optional(),
  even: z
    .number()
    .int()
    .refine((n) => n % 2 === 0, "must be even")
    .optional(),
  shout: z
    .string()
    .max(20)
    .transform((text) => text.toUpperCase())
    .optional(),
  big: z.bigint().optional(),
  note: z.string().nullable().optional(),
});

export const EverythingHeaders = z.object({
  "X-Api-Key": z.string().min(8).max(64),
  "X-Count": z.number().int().min(0).max(1000).optional(),
  "X-Flag": z.boolean().optional(),
  "X-Trace": z.uuid().optional(),
});

export const EverythingCookies = z.object({
  session: z
    .string()
    .regex(/^[A-Za-z0-9]{16}$/)
    .optional(),
  theme: z.enum(["dark", "light"]).default("light"),
});

export const EverythingParams = z.object({ id: z.number().int().positive().max(1_000_000), slug: z.string().max(40) });

/** Echoes what it validated, so a fuzz case can check that a valid request round-trips. */
export class Everything extends OpenAPIRoute {
  schema = {
    request: {
      params: EverythingParams,
      query: EverythingQuery,
      headers: EverythingHeaders,
      cookies: EverythingCookies,
      body: contentJson(EverythingBody),
    },
    responses: { "200": { description: "What was validated" } },
  };

  async handle() {
    return await this.getValidatedData();
  }
}

export const FormBody = z.object({
  title: z.string().min(1).max(40),
  count: z.number().int().min(0).max(100).default(0),
  flag: z.boolean().default(false),
  tags: z.array(z.string().min(1).max(10)).max(4).default([]),
});
export const FORM_FILE_LIMIT = 64 * 1024;

/** One body schema as JSON, URL-encoded form, or multipart with an optional file; echoes what it got. */
export class Forms extends OpenAPIRoute {
  schema = {
    request: {
      body: {
        content: {
          ...contentJson(FormBody).content,
          ...contentForm(FormBody).content,
          ...contentMultipart(
            FormBody.extend({ doc: fileField({ maxSize: FORM_FILE_LIMIT, types: ["text/plain"] }).optional() }),
          ).content,
        },
      },
    },
    responses: { "200": { description: "What was validated" } },
  };

  async handle() {
    const { body } = await this.getValidatedData();
    const doc =
      "doc" in body && body.doc ? { name: body.doc.name, size: body.doc.size, text: await body.doc.text() } : null;
    return { title: body.title, count: body.count, flag: body.flag, tags: body.tags, doc };
  }
}

export const Note = z.object({
  id: z.number().int(),
  title: z.string().min(1).max(60),
  body: z.string().max(500).nullable().default(null),
  priority: z.number().int().min(1).max(5).default(3),
  done: z.boolean().default(false),
  tag: z.enum(["a", "b", "c"]).default("a"),
  due: z.iso.date().nullable().default(null),
});
export type NoteRow = z.infer<typeof Note>;
export const NewNote = Note.omit({ id: true });

const noteModel = { tableName: "notes", schema: Note, primaryKeys: ["id"] };
const noteMeta = { model: noteModel };

class CreateNote extends SqlCreateEndpoint {
  _meta = { ...noteMeta, fields: NewNote };
}
class ReadNote extends SqlReadEndpoint {
  _meta = noteMeta;
}
class UpdateNote extends SqlUpdateEndpoint {
  _meta = { ...noteMeta, fields: NewNote };
}
class DeleteNote extends SqlDeleteEndpoint {
  _meta = noteMeta;
}
class ListNotes extends SqlListEndpoint {
  _meta = noteMeta;
  filterFields = ["done", "tag", "priority"];
  filterOperators = { priority: ["gte", "lte", "in"] as ("gte" | "lte" | "in")[] };
  searchFields = ["title", "body"];
  orderByFields = ["id", "title", "priority"];
  defaultOrderBy = "id";
}

export const NOTES_DDL = `CREATE TABLE notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  title TEXT NOT NULL UNIQUE,
  body TEXT,
  priority INTEGER NOT NULL DEFAULT 3,
  done INTEGER NOT NULL DEFAULT 0,
  tag TEXT NOT NULL DEFAULT 'a',
  due TEXT
)`;

/** Rows the table is (re)seeded with. */
export const SEED_NOTES = Array.from({ length: 12 }, (_, i) => ({
  title: `seed note ${i + 1}`,
  body: i % 3 === 0 ? null : `body of note ${i + 1} with 100% _wild_ chars`,
  priority: (i % 5) + 1,
  done: i % 2 === 0,
  tag: (["a", "b", "c"] as const)[i % 3],
  due: i % 4 === 0 ? null : `2026-0${(i % 9) + 1}-1${i % 10}`,
}));

export type AdapterName = "hono" | "itty-router";

/** One fuzzing target: send a Request, look at the stored notes. */
export interface FuzzTarget {
  adapter: AdapterName;
  fetch(request: Request): Promise<Response>;
  /** Every stored note, decoded as the endpoints answer them, in id order. */
  notes(): NoteRow[];
  /** Empties the table and stores the seed rows again. */
  reseed(): void;
  close(): void;
}

/** Builds the target app on one adapter, over a fresh in-memory SQLite database. */
export function buildTarget(adapter: AdapterName): FuzzTarget {
  const sqlite = new Database(":memory:");
  sqlite.exec(NOTES_DDL);
  const driver = betterSqlite3Driver(sqlite);
  const select = sqlite.prepare("SELECT id, title, body, priority, done, tag, due FROM notes ORDER BY id");
  const notFound = () => renderException(new NotFoundException());

  const register = (router: any) => {
    router.post("/things/:id/:slug", Everything);
    router.put("/things/:id/:slug", Everything);
    router.post("/forms", Forms);
    router.post("/notes", CreateNote);
    router.get("/notes", ListNotes);
    router.get("/notes/:id", ReadNote);
    router.patch("/notes/:id", UpdateNote);
    router.put("/notes/:id", UpdateNote);
    router.delete("/notes/:id", DeleteNote);
  };

  let fetch: (request: Request) => Promise<Response>;
  if (adapter === "hono") {
    const app = new Hono();
    // No onError: an error that escaped the framework would reach Hono's default 500 and fail the case.
    app.notFound(notFound);
    register(fromHono(app, { db: driver, openapi_url: null }));
    fetch = async (request) => app.fetch(request);
  } else {
    // No catch: an error that escaped the framework rejects fetch() and fails the case.
    const router = Router();
    register(fromIttyRouter(router, { db: driver, openapi_url: null }));
    fetch = async (request) => ((await router.fetch(request)) as Response | undefined) ?? notFound();
  }

  const reseed = () => {
    sqlite.exec("DELETE FROM notes; DELETE FROM sqlite_sequence;");
    const insert = sqlite.prepare(
      "INSERT INTO notes (title, body, priority, done, tag, due) VALUES (@title, @body, @priority, @done, @tag, @due)",
    );
    for (const note of SEED_NOTES) insert.run({ ...note, done: note.done ? 1 : 0 });
  };
  reseed();

  return {
    adapter,
    fetch,
    notes: () =>
      (select.all() as Array<Omit<NoteRow, "done"> & { done: number }>).map((row) => ({
        ...row,
        done: row.done === 1,
      })),
    reseed,
    close: () => sqlite.close(),
  };
}
