import { postgresDialect } from "../dialects/postgres";
import type { SqlDriver } from "../driver";
import { isNotifying, type ListenConnection, PgListens } from "./pg-listen";
import { ConnectionLock, runTransaction } from "./transaction";
import { bigintAsText } from "./values";

/** The part of a node-postgres `Pool`, `PoolClient` or `Client` this driver uses. */
export interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<{ rows: any[]; rowCount: number | null }>;
  /** A Pool's: checks out one client, for a transaction. */
  connect?(): Promise<unknown>;
  end?(): Promise<void>;
}

/** A client checked out of a pool. */
interface PgPoolClient extends PgQueryable {
  release(error?: Error | boolean): void;
}

function statements(client: PgQueryable): SqlDriver {
  return {
    dialect: postgresDialect,
    async query<T>(sql: string, params: unknown[]) {
      const result = await client.query(sql, params.map(bigintAsText));
      return result.rows as T[];
    },
    async execute(sql, params) {
      const result = await client.query(sql, params.map(bigintAsText));
      return { changes: result.rowCount ?? 0 };
    },
  };
}

// pg's Pool counts its clients; a Client has connect() too, but for itself, once.
function isPool(client: PgQueryable): boolean {
  return typeof client.connect === "function" && "totalCount" in client;
}

/** Checks one client out of a pool for the driver's listens, for as long as one channel is listened. */
function pooledListenConnection(pool: PgQueryable): () => Promise<ListenConnection> {
  return async () => {
    const checkedOut = (await pool.connect!()) as PgPoolClient;
    if (!isNotifying(checkedOut)) {
      checkedOut.release();
      throw new TypeError("pgDriver.listen needs a pool whose clients emit notifications (node-postgres)");
    }
    return {
      client: checkedOut,
      send: (sql) => checkedOut.query(sql),
      release: (error) => checkedOut.release(error ?? false),
    };
  };
}

/**
 * Driver over a node-postgres pool or client. Note: pg returns BIGINT and NUMERIC as strings;
 * `SqlTable` turns them back into numbers for `z.number()` fields. `transaction()` checks one client
 * out of a Pool; over a single Client it holds that client, other statements waiting for it.
 * `listen()` holds one client of a Pool while any channel is listened (over a Client, that client).
 *
 * @example
 * import pg from "pg"
 * const driver = pgDriver(new pg.Pool({ connectionString: process.env.DATABASE_URL }))
 */
export function pgDriver(client: PgQueryable): SqlDriver {
  const shared = statements(client);
  const listens = isPool(client) ? new PgListens(pooledListenConnection(client)) : null;
  const close = async () => {
    // A client still checked out for listens would keep the pool's end() waiting.
    await listens?.close();
    await client.end?.();
  };
  if (listens) {
    return {
      ...shared,
      listen: (channel, onNotify, onLost) => listens.listen(channel, onNotify, onLost),
      async transaction(work) {
        const checkedOut = (await client.connect!()) as PgPoolClient;
        // A client whose ROLLBACK failed goes back to the pool as broken, so the pool drops it.
        let broken: Error | undefined;
        const control = (statement: string) =>
          checkedOut.query(statement).catch((error: unknown) => {
            if (statement === "ROLLBACK") broken = error instanceof Error ? error : new Error(String(error));
            throw error;
          });
        try {
          return await runTransaction(statements(checkedOut), control, work);
        } finally {
          checkedOut.release(broken);
        }
      },
      close,
    };
  }
  const lock = new ConnectionLock();
  // Over one Client, its listens share it with every statement: LISTEN waits for a transaction to end.
  const own = isNotifying(client)
    ? new PgListens(async () => ({
        client,
        send: (sql) => lock.whenFree(() => client.query(sql)),
        release: () => undefined,
      }))
    : null;
  return {
    dialect: postgresDialect,
    query: <T>(sql: string, params: unknown[]) => lock.whenFree(() => shared.query<T>(sql, params)),
    execute: (sql, params) => lock.whenFree(() => shared.execute(sql, params)),
    transaction(work) {
      return lock.hold(() => runTransaction(shared, (statement) => client.query(statement), work));
    },
    ...(own && { listen: (channel, onNotify, onLost) => own.listen(channel, onNotify, onLost) }),
    async close() {
      await own?.close();
      await client.end?.();
    },
  };
}
