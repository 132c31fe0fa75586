import Database from "better-sqlite3";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  betterSqlite3Driver,
  changeFeed,
  type FilterOperatorName,
  fromHono,
  recordedWrite,
  SqlChangesEndpoint,
  SqlCreateEndpoint,
  SqlListEndpoint,
  SqlUpdateEndpoint,
  sqlLiveStorage,
} from "../../src";
import { createClient } from "../../src/client";
import { documentErrors, jsonBody, listenOnLoopback } from "../helpers";
import {
  closeLiveApps,
  create,
  type Engine,
  engines,
  freshApp,
  freshTable,
  listen,
  pgUrl,
  readStream,
  serveTasks,
  take,
  update,
} from "./http-app";
import { createTable, type TasksRouter, tasksApp } from "./tasks-app";

// A live collection over real HTTP: writes through the auto endpoints record their changes, and a
// changes endpoint streams them to listeners as Server-Sent Events, on SQLite and on PostgreSQL (where
// a second pool stands in for a second process: its listeners hear the first one's writes by NOTIFY).

afterAll(closeLiveApps);

describe.each(engines)("a live collection on $name", (engine) => {
  it("streams each write through the auto endpoints to a listener, in order, as the Read endpoint serializes it", async () => {
    const { writer, reader } = await freshApp(engine);
    const events = await listen(reader, 1);
    const id = await create(writer, 1, "Write the docs");
    await create(writer, 2, "Another project's");
    await update(writer, 1, id, { title: "Write the live docs" });
    const deleted = await writer.delete("/projects/:projectId/tasks/:id", { param: { projectId: 1, id } });
    expect(deleted.status).toBe(200);
    const heard = await take(events, 3);
    await events.return?.();
    expect(heard.map((event) => event.event)).toEqual(["created", "updated", "deleted"]);
    const ids = heard.map((event) => Number(event.id));
    expect(ids[1]).toBe(ids[0]! + 2);
    expect(heard[1]).toMatchObject({
      data: { object: { id, projectId: 1, title: "Write the live docs", done: false, version: 2 }, etag: '"v2"' },
    });
  });

  it("shows a listener only what its filter lets through: an update out of it is a deletion, back into it a creation", async () => {
    const { writer, reader } = await freshApp(engine);
    const open = await listen(reader, 1, { done: false });
    const id = await create(writer, 1, "Open task");
    await create(writer, 1, "Done already", true);
    await update(writer, 1, id, { done: true });
    await update(writer, 1, id, { title: "Still done" });
    await update(writer, 1, id, { done: false });
    const heard = await take(open, 3);
    await open.return?.();
    expect(heard.map((event) => [event.event, event.data])).toEqual([
      ["created", expect.objectContaining({ object: expect.objectContaining({ id, done: false }) })],
      // Out of the filter: the object as the listener could see it, before the update.
      [
        "deleted",
        expect.objectContaining({ object: expect.objectContaining({ id, title: "Open task", done: false }) }),
      ],
      [
        "created",
        expect.objectContaining({ object: expect.objectContaining({ id, title: "Still done", done: false }) }),
      ],
    ]);
  });

  it("replays what a reconnecting listener missed after its Last-Event-ID, then goes on live", async () => {
    const { writer, reader } = await freshApp(engine);
    const first = await listen(reader, 1);
    await create(writer, 1, "one");
    const [seen] = await take(first, 1);
    await first.return?.();
    await create(writer, 1, "two");
    await create(writer, 1, "three");
    const again = await listen(reader, 1, { lastEventId: seen!.id! });
    await create(writer, 1, "four");
    const heard = await take(again, 3);
    await again.return?.();
    expect(heard.map((event) => (event.data as { object: { title: string } }).object.title)).toEqual([
      "two",
      "three",
      "four",
    ]);
  });

  it("tells a listener whose Last-Event-ID the log no longer keeps to list again", async () => {
    const { writer, reader } = await freshApp(engine, { retention: { count: 5 } });
    // The log is trimmed every 64 commits of a process: 70 writes leave the newest few.
    for (let n = 0; n < 70; n++) await create(writer, 1, `task ${n}`);
    const events = await listen(reader, 1, { lastEventId: "1" });
    await create(writer, 1, "after the reset");
    const heard = await take(events, 2);
    await events.return?.();
    expect(heard[0]).toMatchObject({
      event: "reset",
      data: { message: expect.stringMatching(/list the collection again$/) },
    });
    expect(heard[1]).toMatchObject({ event: "created", data: { object: { title: "after the reset" } } });
  });

  it("hears a write the app runs itself through recordedWrite, as it hears the endpoints' writes", async () => {
    const { driver, table, writer, reader, feed } = await freshApp(engine);
    const id = await create(writer, 3, "Raw");
    const events = await listen(reader, 3);
    const p = (n: number) => driver.dialect.placeholder(n);
    await recordedWrite(sqlLiveStorage(feed, driver, table), async (tx) => {
      const q = driver.dialect.quote;
      await tx.execute(`UPDATE ${table} SET title = ${p(1)} WHERE id = ${p(2)}`, ["Raw, renamed", id]);
      const [row] = await tx.query<Record<string, unknown>>(
        `SELECT id, ${q("projectId")}, title, done, version FROM ${table} WHERE id = ${p(1)}`,
        [id],
      );
      return { result: row, changes: [{ kind: "updated", row: row!, before: null }] };
    });
    const [heard] = await take(events, 1);
    await events.return?.();
    expect(heard).toMatchObject({ event: "updated", data: { object: { id, title: "Raw, renamed" } } });
  });

  it("never shows a listener another tenant's rows when before() narrows the feed to the caller's", async () => {
    const { writer, origin } = await freshApp(engine);
    const tenant = (n: number) => createClient<TasksRouter>(origin, { headers: { "x-key": `t${n}` } });
    const heard = [];
    for (const n of [1, 2]) {
      const answer = await tenant(n).get("/tasks/changes");
      if (!answer.ok) throw new Error(`listening answered ${answer.status}`);
      heard.push(answer.data[Symbol.asyncIterator]());
    }
    for (const projectId of [1, 2, 1, 2]) await create(writer, projectId, `in project ${projectId}`);
    const [one, two] = await Promise.all(heard.map((events) => take(events, 2)));
    await Promise.all(heard.map((events) => events.return?.()));
    const projects = (events: typeof one) =>
      events!.map((event) => (event.data as { object: { projectId: number } }).object.projectId);
    expect(projects(one)).toEqual([1, 1]);
    expect(projects(two)).toEqual([2, 2]);
  });

  it("refuses a listener without the credentials the route needs, and an id that is no event's", async () => {
    const { origin } = await freshApp(engine);
    const anonymous = await fetch(`${origin}/projects/1/tasks/changes`);
    expect(anonymous.status).toBe(401);
    const forged = await fetch(`${origin}/projects/1/tasks/changes`, {
      headers: { "x-key": "r", "last-event-id": "1; event: x" },
    });
    expect(forged.status).toBe(400);
    expect((await forged.json()).errors).toEqual([
      expect.objectContaining({
        path: ["headers", "Last-Event-ID"],
        message: "must be the id of an event this stream sent",
      }),
    ]);
  });

  it("sends its place as the stream's first bytes, a block of only an id, before any change or heartbeat", async () => {
    // No heartbeat within the test: what comes at once is the place.
    const { origin } = await freshApp(engine, { heartbeatMs: 60_000 });
    const controller = new AbortController();
    const response = await fetch(`${origin}/projects/1/tasks/changes`, {
      headers: { "x-key": "r" },
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    const { value } = await reader.read();
    controller.abort();
    // No data: an EventSource takes the id as its last event ID and dispatches nothing.
    expect(new TextDecoder().decode(value)).toBe("id: 0\n\n");
  });

  it("sends its place again after each quiet heartbeatMs, so a proxy keeps the stream open", async () => {
    const { origin } = await freshApp(engine, { heartbeatMs: 50 });
    const controller = new AbortController();
    const response = await fetch(`${origin}/projects/1/tasks/changes`, {
      headers: { "x-key": "r" },
      signal: controller.signal,
    });
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    for (let reads = 0; reads < 10 && text.length < 21; reads++) text += (await reader.read()).value;
    controller.abort();
    expect(text).toBe("id: 0\n\nid: 0\n\nid: 0\n\n");
  });

  it("moves a listener's place past the changes it may not see, so one cut off before its first event reconnects losing none", async () => {
    const { writer, reader } = await freshApp(engine, { heartbeatMs: 50 });
    const controller = new AbortController();
    const answer = await reader.get(
      "/projects/:projectId/tasks/changes",
      { param: { projectId: 2 } },
      { signal: controller.signal },
    );
    if (!answer.ok) throw new Error(`listening answered ${answer.status}`);
    const stream = answer.data;
    const waiting = stream.next();
    const placeBecomes = async (id: string) => {
      for (let polls = 0; polls < 100 && stream.lastEventId !== id; polls++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return stream.lastEventId;
    };
    expect(await placeBecomes("0")).toBe("0");
    // Another project's write: nothing for this listener, but the next heartbeat says it is past it.
    await create(writer, 1, "not this listener's");
    expect(await placeBecomes("1")).toBe("1");
    controller.abort();
    await waiting.catch(() => {});
    // Cut off before any event it could see: what comes meanwhile is replayed from its place.
    await create(writer, 2, "while away");
    const again = await listen(reader, 2, { lastEventId: stream.lastEventId! });
    await create(writer, 2, "back");
    const heard = await take(again, 2);
    await again.return?.();
    expect(
      heard.map((event) => [event.event, event.id, (event.data as { object: { title: string } }).object.title]),
    ).toEqual([
      ["created", "2", "while away"],
      ["created", "3", "back"],
    ]);
  });
});

describe("a changes endpoint in the document", () => {
  it("declares its filters, Last-Event-ID and every event it sends, in a document that validates", async () => {
    const { router } = tasksApp(betterSqlite3Driver(new Database(":memory:")), "tasks");
    for (const version of ["3.2", "3.1", "3"] as const) {
      const doc = router.getGeneratedSchema(version) as any;
      expect(await documentErrors(doc)).toBeNull();
      const operation = doc.paths["/projects/{projectId}/tasks/changes"].get;
      expect(
        operation.parameters.map((parameter: { name: string; in: string }) => [parameter.in, parameter.name]),
      ).toEqual([
        ["path", "projectId"],
        ["query", "done"],
        ["header", "Last-Event-ID"],
      ]);
      const media = operation.responses["200"].content["text/event-stream"];
      const items = version === "3.2" ? media.itemSchema : media["x-itemSchema"];
      expect(items.anyOf.map((item: any) => item.properties.event.const ?? item.properties.event.enum?.[0])).toEqual([
        "created",
        "updated",
        "deleted",
        "reset",
        "lagged",
        "reconnect",
        "error",
      ]);
      // The notices that end a stream carry the id to go on from.
      const required = (kind: string) =>
        items.anyOf.find((item: any) => (item.properties.event.const ?? item.properties.event.enum?.[0]) === kind)
          .required;
      expect(required("lagged")).toContain("id");
      expect(required("reconnect")).toContain("id");
      expect(required("reset")).not.toContain("id");
      expect(Object.keys(operation.responses)).toContain("429");
      // What each event means, and what its id and Last-Event-ID are for, as a client reading the document learns it.
      expect(items.anyOf.map((item: any) => item.description)).toEqual([
        "An object was created, or an update brought it into the filters",
        "An object changed and still meets the filters",
        "An object was deleted, or an update took it out of the filters: the object as it was before",
        "Changes were missed: list the collection again; the stream goes on from now",
        "The last event of a client that read too slowly; reconnect with its id as Last-Event-ID",
        "The last event of a stream that reached its lifetime; reconnect with its id as Last-Event-ID",
        "The last event of a stream that failed part-way (the database went away): reconnect",
      ]);
      expect(items.anyOf[0].properties.id.description).toBe(
        "Its place in the collection's log; send it back as Last-Event-ID",
      );
      expect(items.anyOf[4].properties.id.description).toBe(
        "Where the client goes on from; send it back as Last-Event-ID",
      );
      expect(items.anyOf[0].properties.data.properties.etag.description).toBe("The object's ETag, from its version");
      const lastEventId = operation.parameters.find(
        (parameter: { name: string }) => parameter.name === "Last-Event-ID",
      );
      expect(lastEventId.description).toBe(
        "The id of the last event received: the stream goes on after it (reconnects send it)",
      );
      expect(operation.responses["200"].description).toBe(
        "The collection's changes as they happen, as Server-Sent Events",
      );
    }
  });
});

describe("a changes endpoint's error event", () => {
  it("is documented with the body an error response of its router has: the envelope, or problem details", async () => {
    const errorEvent = (router: { getGeneratedSchema(version: "3.2"): unknown }) => {
      const doc = router.getGeneratedSchema("3.2") as any;
      const items = doc.paths["/projects/{projectId}/tasks/changes"].get.responses["200"].content["text/event-stream"];
      return items.itemSchema.anyOf.find((item: any) => item.properties.event.const === "error").properties.data;
    };
    const driver = betterSqlite3Driver(new Database(":memory:"));
    expect(Object.keys(errorEvent(tasksApp(driver, "tasks").router).properties)).toEqual([
      "success",
      "errors",
      "result",
    ]);
    const problem = tasksApp(driver, "tasks", {}, { errorFormat: "problem" }).router;
    expect(await documentErrors(problem.getGeneratedSchema("3.2") as any)).toBeNull();
    expect(errorEvent(problem).required).toEqual(["type", "title", "status", "detail", "errors"]);
  });
});

describe.skipIf(!pgUrl)("a live collection on PostgreSQL, written by one process and heard by another", () => {
  it("wakes the listeners of a second pool by NOTIFY when the first one's write commits", async () => {
    const { driver, second } = await engines.find((engine) => engine.name === "PostgreSQL")!.open();
    const table = freshTable();
    await createTable(driver, table);
    const here = await serveTasks(driver, table);
    const there = await serveTasks(second!, table);
    const events = await listen(there.reader, 7);
    for (let n = 0; n < 20; n++) await create(here.writer, 7, `task ${n}`);
    const heard = await take(events, 20);
    await events.return?.();
    expect(heard.map((event) => (event.data as { object: { title: string } }).object.title)).toEqual(
      Array.from({ length: 20 }, (_, n) => `task ${n}`),
    );
  });
});

/*
 * Every filter operator a changes endpoint takes, against the List endpoint with the same query: a
 * listener must end up knowing exactly the rows List shows it, never one its filters keep out (a NULL
 * owner for `owner__ne`, a score one past a bound), through creates and updates that move rows in and
 * out. On PostgreSQL the score is a BIGINT, which its driver reads, and the log keeps, as text.
 */
/** A reading whose score is `score`: a number, or a bigint (which the log's JSON keeps as text); a rank, when ranked. */
const readingOf = (score: z.ZodType) =>
  z.object({
    id: z.number().int(),
    owner: z.string().nullable(),
    score,
    rank: z.number().int().nullable().default(null),
  });

async function readingsApp(engine: Engine, score: z.ZodType) {
  const Reading = readingOf(score);
  const { driver } = await engine.open();
  const table = freshTable();
  const family = driver.dialect.name;
  const columns =
    {
      postgres: "id SERIAL PRIMARY KEY, owner TEXT NULL, score BIGINT NOT NULL, rank INTEGER NULL",
      sqlite: "id INTEGER PRIMARY KEY AUTOINCREMENT, owner TEXT NULL, score INTEGER NOT NULL, rank INTEGER NULL",
    }[family as "postgres" | "sqlite"] ??
    "id INT AUTO_INCREMENT PRIMARY KEY, owner TEXT NULL, score INT NOT NULL, rank INT NULL";
  await driver.execute(`DROP TABLE IF EXISTS ${table}`, []);
  await driver.execute(`CREATE TABLE ${table} (${columns})`, []);
  const meta = {
    model: { tableName: table, schema: Reading, primaryKeys: ["id"] },
    fields: Reading.pick({ owner: true, score: true, rank: true }),
    // A stream per query, from one client address.
    changes: changeFeed({ maxListeners: { perCaller: 32 } }),
  };
  // No range over text: the database's collation orders it, which a listener cannot follow.
  const filters = {
    filterFields: ["owner", "rank"],
    filterOperators: {
      score: ["ne", "in", "gt", "gte", "lt", "lte"],
      owner: ["ne", "in", "isnull"],
      rank: ["lt"],
    } as Record<string, FilterOperatorName[]>,
  };
  const router = fromHono(new Hono(), { db: driver })
    .post(
      "/readings",
      class extends SqlCreateEndpoint {
        _meta = meta;
      },
    )
    .patch(
      "/readings/:id",
      class extends SqlUpdateEndpoint {
        _meta = meta;
      },
    )
    .get(
      "/readings",
      class extends SqlListEndpoint {
        _meta = meta;
        filterFields = filters.filterFields;
        filterOperators = filters.filterOperators;
      },
    )
    .get(
      "/readings/changes",
      class extends SqlChangesEndpoint {
        _meta = meta;
        filterFields = filters.filterFields;
        filterOperators = filters.filterOperators;
      },
    );
  const server = await listenOnLoopback((request, env) => router.fetch(request, env));
  const write = async (path: string, method: string, body: unknown) => {
    const answer = await fetch(`${server.origin}${path}`, jsonBody(body, { method }));
    if (!answer.ok) throw new Error(`${method} ${path} answered ${answer.status}`);
    return (await answer.json()).result.id as number;
  };
  return { origin: server.origin, write, close: server.close };
}

describe.each(engines)("a listener's filters on $name, against List's", (engine) => {
  it.each([
    ["a number", z.coerce.number().int()],
    ["a bigint", z.coerce.bigint()],
  ])(
    "lets a listener know exactly the rows List shows with the same query, for every operator, the score %s",
    async (_, score) => {
      const app = await readingsApp(engine, score);
      const queries = [
        "score__ne=3",
        "score__in=1&score__in=5&score__in=9",
        "score__gt=4",
        "score__gte=5",
        "score__lt=5",
        "score__lte=4",
        "owner=zed",
        "owner__ne=mallory",
        "owner__isnull=true",
        "owner__isnull=false",
        "owner__in=amy&owner__in=zed",
        // An unranked reading meets no comparison: not even 0, nor a bound above it.
        "rank=0",
        "rank__lt=5",
        "owner__isnull=false&score__lte=4",
      ];
      const streams = [];
      for (const query of queries) {
        const response = await fetch(`${app.origin}/readings/changes?${query}`);
        expect(response.status, query).toBe(200);
        streams.push(response);
      }
      const ids: Record<string, number> = {};
      for (const [name, owner, score] of [
        ["nobody's one", null, 1],
        ["amy's three", "amy", 3],
        ["mallory's five", "mallory", 5],
        ["zed's four", "zed", 4],
        ["amy's ten", "amy", 10],
        ["nobody's nine", null, 9],
        ["amy smith's six", "amy smith", 6],
      ] as const) {
        ids[name] = await app.write("/readings", "POST", { owner, score });
      }
      // Into and out of the filters: a score past a bound, an owner taken away.
      await app.write(`/readings/${ids["amy's three"]}`, "PATCH", { score: 5 });
      await app.write(`/readings/${ids["amy's ten"]}`, "PATCH", { owner: null });
      await app.write(`/readings/${ids["mallory's five"]}`, "PATCH", { score: 2 });
      // The last writes, one of which every query's filters let through: a stream is read up to it.
      const last = [
        await app.write("/readings", "POST", { owner: "zed", score: 1, rank: 0 }),
        await app.write("/readings", "POST", { owner: null, score: 9 }),
        await app.write("/readings", "POST", { owner: "amy", score: 9 }),
      ];
      for (const [index, query] of queries.entries()) {
        const listed = await fetch(`${app.origin}/readings?${query}&per_page=100`);
        const shown = ((await listed.json()).result as Array<{ id: number }>).map((row) => row.id).sort();
        const final = Math.max(...last.filter((id) => shown.includes(id)));
        expect(final, `${query}: no last write to read up to`).toBeGreaterThan(0);
        const events = await readStream(streams[index]!, (event) => event.data.object?.id === final);
        const known = new Set<number>();
        for (const { event, data } of events) {
          if (event === "deleted") known.delete(data.object.id);
          else known.add(data.object.id);
        }
        expect([...known].sort(), query).toEqual(shown);
      }
      await app.close();
    },
  );
});
