import { Miniflare } from "miniflare";
import { type D1DatabaseLike, d1Driver } from "../../src";
import type { D1PreparedStatementLike } from "../../src/sql";
import type { Connection } from "../sql/fixtures";

/** A raw D1 binding inside workerd (Miniflare), for code that calls `prepare().bind().all()` itself. */
export async function openD1Binding(): Promise<{ binding: any; close(): Promise<void> }> {
  const mf = new Miniflare({
    modules: true,
    script: "export default { fetch() { return new Response(null, { status: 404 }) } }",
    d1Databases: ["DB"],
  });
  return { binding: await mf.getD1Database("DB"), close: () => mf.dispose() };
}

// Runs the statements it is sent on its D1 binding, one request each (a batch as one), and answers
// D1's own result, or the error's name and message.
const STATEMENT_WORKER = `export default {
  async fetch(request, env) {
    const { statements, batch } = await request.json();
    try {
      const prepared = statements.map(({ sql, params }) => {
        const statement = env.DB.prepare(sql);
        return params.length > 0 ? statement.bind(...params) : statement;
      });
      if (batch) return Response.json({ results: await env.DB.batch(prepared) });
      return Response.json({ result: await prepared[0][statements[0].method]() });
    } catch (error) {
      return Response.json({ error: { name: error.name, message: error.message } });
    }
  },
};`;

interface SentStatement extends D1PreparedStatementLike {
  sql: string;
  params: unknown[];
  /** D1's rows as arrays, which Drizzle's D1 session reads. */
  raw(): Promise<unknown[][]>;
}

/**
 * A D1 binding whose statements a Worker inside workerd runs on its own binding, as a deployed app's
 * code does: each statement (or batch) is one asynchronous request from Node. Miniflare's binding proxy
 * (`openD1Binding`) makes five synchronous round trips per statement (looking up and
 * calling `prepare`, `bind` and `all`), each blocking Node's thread until workerd answers; under CPU
 * load that is slow, and its handshake can lose a reply (a late wake-up from the previous call; fixed
 * upstream in cloudflare/workers-sdk#15552), after which every later call of that Miniflare fails.
 * Values cross as JSON, so a BLOB parameter is refused.
 */
export async function openD1ThroughWorker(): Promise<{ binding: D1DatabaseLike; close(): Promise<void> }> {
  const mf = new Miniflare({ modules: true, script: STATEMENT_WORKER, d1Databases: ["DB"] });
  const send = async (body: { statements: object[]; batch?: boolean }) => {
    const response = await mf.dispatchFetch("http://d1.test/", { method: "POST", body: JSON.stringify(body) });
    // any: D1's results as workerd sent them, typed by the generic the driver calls `all<T>()` with.
    const answer = (await response.json()) as { result?: any; results?: any[]; error?: Error };
    if (answer.error) throw Object.assign(new Error(answer.error.message), { name: answer.error.name });
    return answer;
  };
  const statement = (sql: string, params: unknown[]): SentStatement => ({
    sql,
    params,
    bind: (...values) => statement(sql, values.map(jsonParameter)),
    all: async () => (await send({ statements: [{ sql, params, method: "all" }] })).result,
    run: async () => (await send({ statements: [{ sql, params, method: "run" }] })).result,
    raw: async () => (await send({ statements: [{ sql, params, method: "raw" }] })).result,
  });
  const binding: D1DatabaseLike = {
    prepare: (sql) => statement(sql, []),
    batch: async (statements) => {
      const sent = (statements as SentStatement[]).map(({ sql, params }) => ({ sql, params }));
      return (await send({ statements: sent, batch: true })).results!;
    },
  };
  await mf.ready;
  return { binding, close: () => mf.dispose() };
}

/** `openD1ThroughWorker`'s binding behind `d1Driver`: a real D1 that a busy machine cannot desynchronise. */
export async function connectD1ThroughWorker(): Promise<Connection> {
  const { binding, close } = await openD1ThroughWorker();
  return { driver: d1Driver(binding), close };
}

function jsonParameter(value: unknown): unknown {
  if (value === null || ["string", "number", "boolean"].includes(typeof value)) return value;
  throw new Error(
    `connectD1ThroughWorker sends parameters as JSON and cannot send ${Object.prototype.toString.call(value)}`,
  );
}
