import { toStandardJsonSchema } from "@valibot/to-json-schema";
import Database from "better-sqlite3";
import { Hono } from "hono";
import * as v from "valibot";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  betterSqlite3Driver,
  type ChangeFeedOptions,
  ChangesEndpoint,
  changeFeed,
  type FilterOperatorName,
  type Filters,
  ForbiddenException,
  fromHono,
  recordedWrite,
  SqlChangesEndpoint,
  SqlCreateEndpoint,
  sqlLiveStorage,
} from "../../src";
import { captureConsoleErrors, jsonBody, listenOnLoopback } from "../helpers";
import { readStream } from "./http-app";

// What a changes endpoint promises whatever its storage, over real HTTP on SQLite: which Last-Event-ID it
// takes, that a refused listener holds no place, what an event carries for a model without a version,
// and what a developer is told when the endpoint cannot serve.

const logged = captureConsoleErrors();
const servers: Array<{ close(): Promise<void> }> = [];
afterAll(async () => {
  for (const server of servers) await server.close();
});

const Note = z.object({ id: z.number().int(), text: z.string(), done: z.boolean() });

/**
 * Notes (no version field) on a SQLite database of their own, served on 127.0.0.1: POST /notes, and
 * GET /notes/changes as the app's `Changes` class, a SqlChangesEndpoint with `done` as a filter unless given.
 */
async function notesApp(
  options: { feed?: ChangeFeedOptions; Changes?: (meta: NotesMeta) => typeof ChangesEndpoint } = {},
) {
  const driver = betterSqlite3Driver(new Database(":memory:"));
  await driver.execute(
    "CREATE TABLE notes (id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, done INTEGER NOT NULL)",
    [],
  );
  const meta: NotesMeta = {
    model: { tableName: "notes", schema: Note, primaryKeys: ["id"] },
    fields: Note.pick({ text: true, done: true }),
    changes: changeFeed(options.feed),
  };
  const Changes =
    options.Changes?.(meta) ??
    class extends SqlChangesEndpoint {
      _meta = meta;
      filterFields = ["done"];
    };
  const router = fromHono(new Hono(), { db: driver })
    .post(
      "/notes",
      class extends SqlCreateEndpoint {
        _meta = meta;
      },
    )
    .get("/notes/changes", Changes);
  const server = await listenOnLoopback((request, env) => router.fetch(request, env));
  servers.push(server);
  const { origin } = server;
  return {
    origin,
    router,
    driver,
    async write(text: string, done = false) {
      const answer = await fetch(`${origin}/notes`, jsonBody({ text, done }));
      if (!answer.ok) throw new Error(`POST /notes answered ${answer.status}`);
    },
    /** The answer to GET /notes/changes (`query` and `headers` as given), and a way to close its stream. */
    async open(query = "", headers: Record<string, string> = {}) {
      const controller = new AbortController();
      const response = await fetch(`${origin}/notes/changes${query}`, { headers, signal: controller.signal });
      return { response, close: () => controller.abort() };
    },
  };
}
type NotesMeta = {
  model: { tableName: string; schema: typeof Note; primaryKeys: string[] };
  fields: z.ZodType;
  changes: ReturnType<typeof changeFeed>;
};

describe("a changes endpoint's Last-Event-ID", () => {
  it("is any number of up to 15 digits: a longer one, or one with anything around its digits, is refused with a 400", async () => {
    const app = await notesApp();
    // The largest id a client may send is ahead of an empty log: the stream starts with reset.
    const largest = await app.open("", { "last-event-id": "999999999999999" });
    await app.write("after the largest id");
    const events = await readStream(largest.response, (event) => event.data.object?.text === "after the largest id");
    largest.close();
    expect(events.map((event) => event.event)).toEqual(["reset", "created"]);
    // An empty one is none: the stream starts from now, as without the header.
    const empty = await app.open("", { "last-event-id": "" });
    await app.write("after an empty id");
    const fromNow = await readStream(empty.response, (event) => event.data.object?.text === "after an empty id");
    empty.close();
    expect(fromNow.map((event) => event.event)).toEqual(["created"]);
    for (const forged of ["1234567890123456", "x1", "1x", "-1", "1e3", "1 2"]) {
      const { response } = await app.open("", { "last-event-id": forged });
      expect(response.status, forged).toBe(400);
      expect((await response.json()).errors, forged).toEqual([
        expect.objectContaining({
          path: ["headers", "Last-Event-ID"],
          message: "must be the id of an event this stream sent",
        }),
      ]);
    }
  });

  it("is refused when it is no event's number, on a route whose own schema declares the header more loosely", async () => {
    const app = await notesApp({
      Changes: (meta) =>
        class extends SqlChangesEndpoint {
          _meta = meta;
          schema = { request: { headers: z.object({ "Last-Event-ID": z.string().optional() }) } };
        },
    });
    for (const forged of ["abc", "1.5", "99999999999999999999"]) {
      const { response } = await app.open("", { "last-event-id": forged });
      expect(response.status, forged).toBe(400);
      expect((await response.json()).errors, forged).toEqual([
        expect.objectContaining({
          path: ["headers", "Last-Event-ID"],
          message: "must be the id of an event this stream sent",
        }),
      ]);
    }
    // A number still replays from there.
    await app.write("first");
    await app.write("second");
    const replay = await app.open("", { "last-event-id": "1" });
    const events = await readStream(replay.response, (event) => event.data.object?.text === "second");
    replay.close();
    expect(events.map((event) => [event.event, event.id, event.data.object.text])).toEqual([
      ["created", "2", "second"],
    ]);
  });
});

describe("a changes endpoint without filter parameters", () => {
  it("declares no query and takes a stream whose URL carries one (a cache-buster), as any route without a query", async () => {
    const app = await notesApp({
      Changes: (meta) =>
        class extends SqlChangesEndpoint {
          _meta = meta;
        },
    });
    const stream = await app.open("?cache=1701234567");
    expect(stream.response.status).toBe(200);
    stream.close();
    const doc = app.router.getGeneratedSchema("3.1") as any;
    expect(doc.paths["/notes/changes"].get.parameters.map((parameter: { in: string }) => parameter.in)).toEqual([
      "header",
    ]);
  });
});

describe("a changes endpoint's listener bound", () => {
  it("gives back the place of a listener that before() refuses, so refusals never lock a caller out", async () => {
    const app = await notesApp({
      feed: { maxListeners: { perCaller: 1 } },
      Changes: (meta) =>
        class extends SqlChangesEndpoint {
          _meta = meta;
          filterFields = ["done"];
          // The done notes are an archive this app shows no listener.
          override async before(filters: Filters): Promise<Filters> {
            if (filters.filters.some((condition) => condition.field === "done" && condition.value === true)) {
              throw new ForbiddenException("The archive has no live changes");
            }
            return filters;
          }
        },
    });
    for (let n = 0; n < 3; n++) {
      const refused = await app.open("?done=true");
      expect(refused.response.status).toBe(403);
      await refused.response.body?.cancel();
    }
    const admitted = await app.open("?done=false");
    expect(admitted.response.status).toBe(200);
    admitted.close();
  });
});

describe("a changes endpoint asked with HEAD", () => {
  it("answers the stream's headers and holds no listener's place, so HEADs never lock a caller out", async () => {
    const app = await notesApp({ feed: { maxListeners: { perCaller: 1 } } });
    for (let n = 0; n < 3; n++) {
      // Hono answers HEAD by running the GET route and dropping the body it made: nothing ever reads it.
      const head = await fetch(`${app.origin}/notes/changes`, { method: "HEAD" });
      expect(head.status).toBe(200);
      expect(head.headers.get("content-type")).toBe("text/event-stream");
      expect(await head.text()).toBe("");
    }
    const listening = await app.open();
    expect(listening.response.status).toBe(200);
    listening.close();
  });
});

describe("a changes event of a model without a version field", () => {
  it("carries the object alone, with no etag, and the document declares none", async () => {
    const app = await notesApp();
    const stream = await app.open();
    await app.write("untagged");
    const events = await readStream(stream.response, (event) => event.data.object?.text === "untagged");
    stream.close();
    expect(events).toEqual([{ event: "created", id: "1", data: { object: { id: 1, text: "untagged", done: false } } }]);
    const doc = app.router.getGeneratedSchema("3.2") as any;
    const items = doc.paths["/notes/changes"].get.responses["200"].content["text/event-stream"].itemSchema;
    const created = items.anyOf.find((item: any) => item.properties.event.const === "created");
    expect(Object.keys(created.properties.data.properties)).toEqual(["object"]);
  });
});

describe("a changes endpoint over a change source of the app's own", () => {
  it("streams the source's changes, with the rows as the log keeps them", async () => {
    const app = await notesApp({
      Changes: (meta) =>
        class extends ChangesEndpoint {
          _meta = meta;
          override async changeSource() {
            return sqlLiveStorage(meta.changes, app.driver, "notes").source;
          }
        },
    });
    const stream = await app.open();
    await app.write("from the app's source", true);
    const events = await readStream(stream.response, (event) => event.data.object?.text === "from the app's source");
    stream.close();
    expect(events).toMatchObject([
      { event: "created", id: "1", data: { object: { id: 1, text: "from the app's source" } } },
    ]);
  });

  it("answers 500, and tells the developer what to extend, when the class names no storage", async () => {
    const app = await notesApp({
      Changes: (meta) =>
        class NoteChanges extends ChangesEndpoint {
          _meta = meta;
        },
    });
    const { response } = await app.open();
    expect(response.status).toBe(500);
    // The client learns nothing of the app's code; the log says what is missing.
    expect(await response.text()).not.toContain("SqlChangesEndpoint");
    expect(String(logged.flat().find((entry) => entry instanceof Error))).toContain(
      "NoteChanges has no storage: extend SqlChangesEndpoint, or implement changeSource()",
    );
  });
});

describe("a changes endpoint's filters", () => {
  it("compare a date parameter with the ISO text a row of an app's own source holds, as List's SQL would", async () => {
    const driver = betterSqlite3Driver(new Database(":memory:"));
    const Meeting = z.object({ id: z.number().int(), at: z.date() });
    const feed = changeFeed();
    const live = sqlLiveStorage(feed, driver, "meetings");
    class MeetingChanges extends ChangesEndpoint {
      _meta = { model: { tableName: "meetings", schema: Meeting, primaryKeys: ["id"] }, changes: feed };
      filterOperators = { at: ["gt"] as FilterOperatorName[] };
      override async changeSource() {
        return live.source;
      }
    }
    const router = fromHono(new Hono(), { db: driver }).get("/meetings/changes", MeetingChanges);
    const server = await listenOnLoopback((request, env) => router.fetch(request, env));
    servers.push(server);
    const stream = await fetch(`${server.origin}/meetings/changes?at__gt=2026-06-01T00:00:00.000Z`);
    expect(stream.status).toBe(200);
    for (const [id, at] of [
      [1, "2026-01-15T09:00:00.000Z"],
      [2, "2026-12-15T09:00:00.000Z"],
    ] as const) {
      const row = { id, at: new Date(at) };
      await recordedWrite(live, async () => ({ result: row, changes: [{ kind: "created", row, before: null }] }));
    }
    const events = await readStream(stream, (event) => event.data.object?.id === 2);
    expect(events.map((event) => event.data.object)).toEqual([{ id: 2, at: "2026-12-15T09:00:00.000Z" }]);
  });

  it("refuse a search condition before() adds: the listener gets a 500, the developer the reason", async () => {
    const app = await notesApp({
      Changes: (meta) =>
        class extends SqlChangesEndpoint {
          _meta = meta;
          override async before(filters: Filters): Promise<Filters> {
            return { filters: [...filters.filters, { field: "text", operator: "LIKE", value: "%plan%" }] };
          }
        },
    });
    const { response } = await app.open();
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain("LIKE");
    expect(String(logged.flat().find((entry) => entry instanceof Error))).toContain(
      "A live collection cannot filter changes with LIKE",
    );
  });
});

describe("a changes endpoint's range over text", () => {
  // List orders text by the database's collation ("B" before "a" on SQLite, after it on MariaDB's default), which no listener can follow.
  it("is refused when the route is registered, naming the parameter and what to filter instead", async () => {
    await expect(
      notesApp({
        Changes: (meta) =>
          class extends SqlChangesEndpoint {
            _meta = meta;
            filterOperators = { text: ["gte" as const] };
          },
      }),
    ).rejects.toThrow(
      "A changes endpoint cannot filter text by GTE: it may be text, which the database orders by its collation",
    );
  });

  /** Registers a changes endpoint filtering `v` (of the given schema) by `operator` (`__lt` unless given). */
  const registerRangeOver =
    (v: z.ZodType, operator: FilterOperatorName = "lt") =>
    () =>
      fromHono(new Hono(), { db: betterSqlite3Driver(new Database(":memory:")) }).get(
        "/things/changes",
        class extends SqlChangesEndpoint {
          _meta = {
            model: { tableName: "things", schema: z.object({ id: z.number(), v }), primaryKeys: ["id"] },
            changes: changeFeed(),
          };
          filterOperators = { v: [operator] };
        },
      );

  it.each([
    ["a piped string", z.string().pipe(z.string().min(1))],
    ["a transformed string", z.string().transform((text) => text.trim())],
    ["a union with a string", z.union([z.string(), z.null()])],
    ["a lazy string", z.lazy(() => z.string())],
    ["anything", z.any()],
    ["an enum of text", z.enum(["low", "high"])],
  ])("is refused over %s, which may be text", (_, v) => {
    expect(registerRangeOver(v)).toThrow("A changes endpoint cannot filter v by LT");
  });

  it.each(["gt", "gte", "lt", "lte"] as const)("is refused for %s over text, as for every range", (operator) => {
    expect(registerRangeOver(z.string(), operator)).toThrow(
      `A changes endpoint cannot filter v by ${operator.toUpperCase()}`,
    );
  });

  it.each([
    ["a number", z.number().nullable()],
    ["a bigint", z.bigint()],
    ["a date", z.date().optional()],
    ["ISO date-time text", z.iso.datetime()],
    ["ISO date text", z.iso.date()],
    ["ISO date-time text (z.string().datetime())", z.string().datetime()],
    ["ISO date-time text, lazily", z.lazy(() => z.iso.datetime())],
    ["text piped to ISO date-time text, which the row holds", z.string().pipe(z.iso.datetime())],
    ["a boolean", z.boolean()],
    ["a numeric literal", z.literal(5)],
    ["a numeric enum", z.enum({ Low: 1, High: 2 })],
  ])("is followed over %s, which orders by value", (_, v) => {
    expect(registerRangeOver(v)).not.toThrow();
  });

  it("is refused, as any condition, on a field the model does not have, when before() adds it: a 500, the developer the reason", async () => {
    const app = await notesApp({
      Changes: (meta) =>
        class extends SqlChangesEndpoint {
          _meta = meta;
          override async before(filters: Filters): Promise<Filters> {
            return { filters: [...filters.filters, { field: "owner", operator: "EQ", value: "ada" }] };
          }
        },
    });
    const { response } = await app.open();
    expect(response.status).toBe(500);
    expect(String(logged.flat().find((entry) => entry instanceof Error))).toContain(
      "A changes endpoint cannot filter owner: it is not a field of the model",
    );
  });

  it("is refused when before() adds it, so a prefix scope cannot send rows List hides: a 500, the developer the reason", async () => {
    const app = await notesApp({
      Changes: (meta) =>
        class extends SqlChangesEndpoint {
          _meta = meta;
          override async before(filters: Filters): Promise<Filters> {
            return { filters: [...filters.filters, { field: "text", operator: "LT", value: "team-b" }] };
          }
        },
    });
    const { response } = await app.open();
    expect(response.status).toBe(500);
    expect(await response.text()).not.toContain("collation");
    expect(String(logged.flat().find((entry) => entry instanceof Error))).toContain(
      "A changes endpoint cannot filter text by LT",
    );
  });
});

describe("a changes endpoint over a model of another schema library", () => {
  it("is refused when the route is registered, pointing at what is supported", () => {
    const feed = changeFeed();
    const schema = toStandardJsonSchema(v.object({ id: v.number(), text: v.string() }));
    class NoteChanges extends SqlChangesEndpoint {
      _meta = { model: { tableName: "notes", schema, primaryKeys: ["id"] }, changes: feed };
    }
    const router = fromHono(new Hono(), { db: betterSqlite3Driver(new Database(":memory:")) });
    expect(() => router.get("/notes/changes", NoteChanges)).toThrow(
      "A changes endpoint needs a zod model schema for now: see docs/schema-libraries.md",
    );
  });
});
